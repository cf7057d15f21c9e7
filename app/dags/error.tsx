'use client';
// Errors of the DAG pages.

import { RouteError } from '@/components/RouteError';

export default function DagsError({ error, retry }: { error: unknown; retry: () => void }) {
  return <RouteError title="Cannot show DAGs" error={error} retry={retry} />;
}
