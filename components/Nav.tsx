'use client';
// The top navigation: the product name and the views; the current one is marked for screen readers too.

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { SignOutButton } from './auth/SignOutButton';
import { NavSearch } from './search/NavSearch';

const LINKS = [
  { href: '/', label: 'Overview' },
  { href: '/dags', label: 'DAGs' },
  { href: '/runs', label: 'Runs' },
  { href: '/queue', label: 'Queue' },
  { href: '/workers', label: 'Workers' },
];

/** `/` is current only on itself; every other view also owns the pages under it (`/runs/<id>`). */
function isCurrent(pathname: string, href: string): boolean {
  if (href === '/') return pathname === '/';
  return pathname === href || pathname.startsWith(`${href}/`);
}

export function Nav() {
  const pathname = usePathname();
  return (
    <header className="border-b border-zinc-200 bg-white dark:border-zinc-800 dark:bg-zinc-900">
      <nav
        aria-label="Main"
        className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3"
      >
        <Link
          href="/"
          className="rounded-md text-lg font-semibold tracking-tight focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-500"
        >
          dagu
        </Link>
        <ul className="flex flex-wrap gap-1">
          {LINKS.map((l) => {
            const current = isCurrent(pathname, l.href);
            return (
              <li key={l.href}>
                <Link
                  href={l.href}
                  aria-current={current ? 'page' : undefined}
                  data-testid={`nav-${l.label.toLowerCase()}`}
                  className={`rounded-md px-3 py-1.5 text-sm font-medium focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-500 ${
                    current
                      ? 'bg-zinc-900 text-white dark:bg-zinc-100 dark:text-zinc-900'
                      : 'text-zinc-600 hover:bg-zinc-100 hover:text-zinc-900 dark:text-zinc-300 dark:hover:bg-zinc-800 dark:hover:text-white'
                  }`}
                >
                  {l.label}
                </Link>
              </li>
            );
          })}
        </ul>
        <div className="ml-auto flex items-center gap-3">
          <NavSearch />
          <SignOutButton />
        </div>
      </nav>
    </header>
  );
}
