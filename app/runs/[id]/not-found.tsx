// A malformed run ID.

import Link from 'next/link';
import { EmptyState } from '@/components/Panels';

export default function RunNotFound() {
  return (
    <EmptyState title="Run not found" testId="run-not-found">
      <Link href="/runs" className="underline">
        See all runs
      </Link>
    </EmptyState>
  );
}
