// /runs/:id: one run (`?step=` selects a step). The first status comes from the server; the browser then
// polls until the run ends (the first status is looked up by `dagu server`, see app/pageData.ts).
// A run that is not recorded yet (just started) is waited for in the browser rather than shown as missing.

import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { RunDetailView } from '@/components/runs/RunDetailView';
import type { RunStatus } from '@/components/apiTypes';
import { pageData } from '@/app/pageData';

export const dynamic = 'force-dynamic';

type Props = {
  params: Promise<{ id: string }>;
  /** `?step=<name>` selects that step (a child run's link back to its parent step uses it). */
  searchParams: Promise<{ step?: string | string[] }>;
};

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Run ${(await params).id}` };
}

export default async function RunPage({ params, searchParams }: Props) {
  const { id } = await params;
  const { step } = await searchParams;
  // Null when the run is not recorded yet; not found when no run can have this ID.
  const data = await pageData<RunStatus | null>(`run:${id}`);
  if (data.outcome === 'not_found') notFound();
  const initial = data.value;
  return (
    <RunDetailView
      key={id}
      runId={id}
      initial={initial}
      initialStep={typeof step === 'string' && step !== '' ? step : null}
    />
  );
}
