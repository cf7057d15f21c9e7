// /dags: every DAG with its schedule, next run, last status and a "Run now" button.

import type { Metadata } from 'next';
import { DagList } from '@/components/dags/DagList';
import { NewDagButton } from '@/components/dags/editor/NewDagButton';
import { PageHeader } from '@/components/Panels';

export const metadata: Metadata = { title: 'DAGs' };

export default function DagsPage() {
  return (
    <>
      <PageHeader title="DAGs">
        <NewDagButton />
      </PageHeader>
      <DagList />
    </>
  );
}
