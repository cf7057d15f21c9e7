'use client';
// What every route's error.tsx shows: the message (or the digest of a server error) and a retry button.

import { useEffect } from 'react';
import { ErrorPanel } from './Panels';

export function RouteError({ title, error, retry }: { title: string; error: unknown; retry: () => void }) {
  useEffect(() => {
    console.error(error);
  }, [error]);
  const e = error instanceof Error ? (error as Error & { digest?: string }) : null;
  const message = e
    ? e.digest
      ? `${e.message} (digest ${e.digest}; see the server log)`
      : e.message
    : String(error);
  return <ErrorPanel title={title} message={message} onRetry={retry} />;
}
