'use client';
// Errors of the run pages (a corrupt status file shows here with its path).

import { RouteError } from '@/components/RouteError';

export default function RunsError({ error, retry }: { error: unknown; retry: () => void }) {
  return <RouteError title="Cannot show runs" error={error} retry={retry} />;
}
