'use client';
// One QueryClient per browser tab. Views poll on their own intervals; failed polls retry quietly, except for
// answers a retry cannot change (not signed in, forbidden, not found), which show at once.

import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';
import { ApiRequestError } from './api';
import { startLiveEvents } from './live/liveEvents';

const FINAL_STATUSES = new Set([401, 403, 404]);

function retryQuery(failures: number, err: unknown): boolean {
  if (err instanceof ApiRequestError && FINAL_STATUSES.has(err.status)) return false;
  return failures < 2;
}

export function Providers({ children }: { children: ReactNode }) {
  const [client] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          queries: { staleTime: 1000, refetchOnWindowFocus: true, retry: retryQuery },
          mutations: { retry: false },
        },
      }),
  );
  useEffect(() => startLiveEvents(client), [client]);
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
