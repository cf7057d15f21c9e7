// /runs/:id: one run (`?step=` selects a step). The first status comes from the server; the browser then
// polls until the run ends.
// A run that is not recorded yet (just started) is waited for in the browser rather than shown as missing.

import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { RunDetailView } from '@/components/runs/RunDetailView';
import { getServices } from '@/server/api/context';
import { NotFoundError } from '@/server/api/errors';
import { viewRun } from '@/server/api/operations';
import { isValidRunId } from '@/server/core/names';
import type { RunStatus } from '@/components/apiTypes';

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
  if (!isValidRunId(id)) notFound();
  let initial: RunStatus | null = null;
  try {
    initial = await viewRun(getServices(), id);
  } catch (err) {
    if (!(err instanceof NotFoundError)) throw err;
  }
  return (
    <RunDetailView
      key={id}
      runId={id}
      initial={initial}
      initialStep={typeof step === 'string' && step !== '' ? step : null}
    />
  );
}
