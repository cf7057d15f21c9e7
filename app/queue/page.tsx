// /queue?queue=&dag=&selector=&reason=: every run that waits, why, and for how long; the filter lives in the URL.

import type { Metadata } from 'next';
import { PageHeader } from '@/components/Panels';
import { QueueView } from '@/components/queue/QueueView';
import { readQueueFilter } from '@/components/queue/queueFilterUrl';

export const metadata: Metadata = { title: 'Queue' };

type SearchParams = Record<string, string | string[] | undefined>;

export default async function QueuePage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const filter = readQueueFilter(await searchParams);
  return (
    <>
      <PageHeader title="Queue" />
      <QueueView filter={filter} />
    </>
  );
}
