// The state and times of a few runs at once, by ID: what a parent run's page shows of its child runs (the
// sub-run records of a `call` or `parallel` step carry only their state). One request per visible page of
// children instead of one per child.

import { assertRunId } from '../core/names';
import type { RunState } from '../core/types';
import { BadRequestError } from './errors';
import type { Services } from './services';

export const MAX_TIMING_IDS = 100;
const READ_CONCURRENCY = 16;

/** One run's state and times; `status` null when its record is missing or cannot be read. */
export interface RunTiming {
  run_id: string;
  status: RunState | null;
  started_at: string | null;
  finished_at: string | null;
  duration_ms: number | null;
}

/** `?ids=a,b,c`: 1 to MAX_TIMING_IDS run IDs, validated at the edge. */
export function parseTimingIds(raw: string | null): string[] {
  const ids = (raw ?? '').split(',').filter((s) => s !== '');
  if (ids.length === 0 || ids.length > MAX_TIMING_IDS) {
    throw new BadRequestError(`ids: give 1 to ${MAX_TIMING_IDS} run IDs separated by commas`);
  }
  for (const id of ids) assertRunId(id);
  return [...new Set(ids)];
}

export async function getRunTimings(svc: Services, ids: readonly string[]): Promise<{ runs: RunTiming[] }> {
  const out: RunTiming[] = new Array(ids.length);
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const i = next++;
      out[i] = await timingOf(svc, ids[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, ids.length) }, worker));
  return { runs: out };
}

async function timingOf(svc: Services, runId: string): Promise<RunTiming> {
  const read = await svc.runs.readStatus(runId).catch(() => null);
  if (read?.kind !== 'ok') {
    return { run_id: runId, status: null, started_at: null, finished_at: null, duration_ms: null };
  }
  const { status, started_at, finished_at } = read.status;
  const start = started_at ? Date.parse(started_at) : NaN;
  const end = finished_at ? Date.parse(finished_at) : NaN;
  return {
    run_id: runId,
    status,
    started_at,
    finished_at,
    duration_ms: Number.isFinite(start) && Number.isFinite(end) ? Math.max(0, end - start) : null,
  };
}
