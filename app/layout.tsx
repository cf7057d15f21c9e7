// The console's frame: a skip link, the security banner, the top navigation and the page (behind the sign-in
// form when the server wants a token), inside the query client provider.

import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { Nav } from '@/components/Nav';
import { AuthGate } from '@/components/auth/AuthGate';
import { SecurityBanner } from '@/components/shell/SecurityBanner';
import { SkipLink } from '@/components/shell/SkipLink';
import { Providers } from './providers';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'dagu', template: '%s · dagu' },
  description: 'Schedulers, DAGs, runs, queues and workers of the dagu workflow scheduler',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen bg-white text-zinc-900 antialiased dark:bg-zinc-950 dark:text-zinc-100">
        <Providers>
          <SkipLink />
          <SecurityBanner />
          <Nav />
          <main id="main" tabIndex={-1} className="mx-auto max-w-6xl px-4 py-6 focus:outline-none">
            <AuthGate>{children}</AuthGate>
          </main>
        </Providers>
      </body>
    </html>
  );
}
