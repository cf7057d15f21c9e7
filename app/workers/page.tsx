// /workers: every registered worker with its labels, capacity in use, running tasks and heartbeat state.

import type { Metadata } from 'next';
import { PageHeader } from '@/components/Panels';
import { WorkerList } from '@/components/workers/WorkerList';

export const metadata: Metadata = { title: 'Workers' };

export default function WorkersPage() {
  return (
    <>
      <PageHeader title="Workers" />
      <WorkerList />
    </>
  );
}
