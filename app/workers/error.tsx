'use client';
// Errors of the workers page.

import { RouteError } from '@/components/RouteError';

export default function WorkersError({ error, retry }: { error: unknown; retry: () => void }) {
  return <RouteError title="Cannot show the workers" error={error} retry={retry} />;
}
