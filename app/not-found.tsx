// Any unknown page.

import Link from 'next/link';
import { EmptyState, linkClass } from '@/components/Panels';

export default function NotFound() {
  return (
    <EmptyState title="Page not found" testId="not-found">
      There is no page at this address. Go to the{' '}
      <Link href="/" className={linkClass}>
        overview
      </Link>{' '}
      or the{' '}
      <Link href="/dags" className={linkClass}>
        DAG list
      </Link>
      .
    </EmptyState>
  );
}
