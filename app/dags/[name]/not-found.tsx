// An unknown DAG name.

import Link from 'next/link';
import { EmptyState } from '@/components/Panels';

export default function DagNotFound() {
  return (
    <EmptyState title="DAG not found" testId="dag-not-found">
      No DAG file has this name.{' '}
      <Link href="/dags" className="underline">
        See all DAGs
      </Link>
    </EmptyState>
  );
}
