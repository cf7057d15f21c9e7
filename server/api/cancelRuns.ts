// The console's cancel of waiting runs, one or a selection: each goes through dequeueOrCancel (out of its
// queue, or its dispatch task dropped), and ends aborted. One run's failure does not stop the others.

import type { RunState } from '../core/types';
import { toErrorResponse } from './errors';
import { dequeueOrCancel } from './stopRun';
import type { Services } from './services';

export interface CancelResult {
  results: Array<{
    run_id: string;
    ok: boolean;
    /** The run's state after the attempt (`aborted` when it worked); null when it cannot be read. */
    status: RunState | null;
    /** Why this run was not cancelled (the API's error message), else null. */
    error: string | null;
  }>;
}

/** Runs cancelled at the same time: several file writes each, on storage that may be slow. */
const CONCURRENCY = 8;

/** Cancels each run once (a repeated ID is answered once), in the order given. */
export async function cancelQueuedRuns(svc: Services, runIds: readonly string[]): Promise<CancelResult> {
  const ids = [...new Set(runIds)];
  const results: CancelResult['results'] = new Array(ids.length);
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const i = next++;
      results[i] = await cancelOne(svc, ids[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, ids.length) }, worker));
  return { results };
}

async function cancelOne(svc: Services, runId: string): Promise<CancelResult['results'][number]> {
  try {
    const status = await dequeueOrCancel(svc, runId);
    svc.consoleCache.runs.invalidate(runId);
    return { run_id: runId, ok: true, status: status.status, error: null };
  } catch (err) {
    const { status, body } = toErrorResponse(err);
    if (status >= 500) {
      svc.logger.error('Cancel failed', {
        run_id: runId,
        error: err instanceof Error ? err.message : String(err),
      });
    }
    return { run_id: runId, ok: false, status: await currentState(svc, runId), error: body.error.message };
  }
}

async function currentState(svc: Services, runId: string): Promise<RunState | null> {
  try {
    const read = await svc.runs.readStatus(runId);
    return read.kind === 'ok' ? read.status.status : null;
  } catch {
    return null; // an invalid ID, or storage trouble: nothing to show
  }
}
