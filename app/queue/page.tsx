// /queue: queued runs per queue, with why they wait and a dequeue button.

import type { Metadata } from 'next';
import { PageHeader } from '@/components/Panels';
import { QueueList } from '@/components/queue/QueueList';

export const metadata: Metadata = { title: 'Queue' };

export default function QueuePage() {
  return (
    <>
      <PageHeader title="Queue" />
      <QueueList />
    </>
  );
}
