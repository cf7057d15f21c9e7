// Any unknown page.

import Link from 'next/link';
import { EmptyState } from '@/components/Panels';

export default function NotFound() {
  return (
    <EmptyState title="Page not found" testId="not-found">
      <Link href="/dags" className="underline">
        Go to the DAG list
      </Link>
    </EmptyState>
  );
}
