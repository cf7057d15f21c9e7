'use client';
// A loud banner on every page while the server listens beyond loopback without any auth: anyone who can reach
// the address can start, stop and cancel runs.

import { useQuery } from '@tanstack/react-query';
import { sessionQuery } from '../auth/session';

export function SecurityBanner() {
  const { data } = useQuery(sessionQuery());
  if (!data?.exposed_without_auth) return null;
  return (
    <div
      role="alert"
      data-testid="security-banner"
      className="border-b-2 border-red-700 bg-red-700 px-4 py-2 text-sm text-white dark:border-red-500 dark:bg-red-900 dark:text-red-50"
    >
      <p className="mx-auto max-w-6xl">
        <strong className="font-semibold">
          This console is reachable on <span className="font-mono">{data.listen}</span> without
          authentication.
        </strong>{' '}
        Anyone who can reach that address can start, stop and cancel runs. Set{' '}
        <code className="font-mono">auth.basic</code> or <code className="font-mono">auth.token</code> in the
        config, or listen on 127.0.0.1 only.
      </p>
    </div>
  );
}
