'use client';
// Errors of any page without its own error boundary.

import { RouteError } from '@/components/RouteError';

export default function AppError({ error, retry }: { error: unknown; retry: () => void }) {
  return <RouteError title="Something went wrong" error={error} retry={retry} />;
}
