'use client';
// Errors of the search page.

import { RouteError } from '@/components/RouteError';

export default function SearchError({ error, retry }: { error: unknown; retry: () => void }) {
  return <RouteError title="Cannot show the search" error={error} retry={retry} />;
}
