// /runs?dag=&status=&cursor=: runs newest first; the filter lives in the URL.

import type { Metadata } from 'next';
import { PageHeader } from '@/components/Panels';
import { RunList } from '@/components/runs/RunList';

export const metadata: Metadata = { title: 'Runs' };

type SearchParams = Record<string, string | string[] | undefined>;

export default async function RunsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const sp = await searchParams;
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) || undefined;
  const filter = { dag: one(sp.dag), status: one(sp.status), cursor: one(sp.cursor) };
  return (
    <>
      <PageHeader title="Runs" />
      <RunList filter={filter} />
    </>
  );
}
