// /runs?dag=&status=&trigger=&labels=&range=|from=&to=&cursor=: runs newest first; the filter lives in the
// URL.

import type { Metadata } from 'next';
import { PageHeader } from '@/components/Panels';
import { RunList } from '@/components/runs/RunList';
import { runFilterOf } from '@/components/runs/runFilterUrl';

export const metadata: Metadata = { title: 'Runs' };

type SearchParams = Record<string, string | string[] | undefined>;

export default async function RunsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const sp = await searchParams;
  const filter = runFilterOf(sp);
  return (
    <>
      <PageHeader title="Runs" />
      <RunList filter={filter} />
    </>
  );
}
