'use client';
// Errors of the queue page.

import { RouteError } from '@/components/RouteError';

export default function QueueError({ error, retry }: { error: unknown; retry: () => void }) {
  return <RouteError title="Cannot show the queue" error={error} retry={retry} />;
}
