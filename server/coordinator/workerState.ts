// The state store for `state.*` steps of runs on workers: a worker reaches the coordinator, not the storage,
// so the coordinator makes each operation on the store it was assembled with, for a run that is the asking
// worker's and has not ended. The store's own refusals (a version conflict, a name or value Dagu refuses)
// are answered, not thrown: the step fails with the store's message, as it does on the scheduler host.

import { TERMINAL_RUN_STATES } from '../core/types';
import type { RunStore } from '../store/types';
import { InvalidStateError, StateConflictError, type StateStore } from '../store/stateStore';
import type { StateReply, StateRequest } from './protocol';

export interface WorkerStateDeps {
  runs: Pick<RunStore, 'readStatus'>;
  state: StateStore;
}

export type WorkerStateRefusal = { refused: true; status: number; code: string; error: string };

/**
 * Why `runId` is not a running attempt of the asking worker (a refusal to answer with), or null when it is:
 * what a worker's run may reach through the coordinator, it reaches only while that run is its own.
 */
export async function notRunningFor(
  runs: Pick<RunStore, 'readStatus'>,
  runId: string,
  req: { worker_id: string; attempt: number },
): Promise<WorkerStateRefusal | null> {
  const r = await runs.readStatus(runId);
  if (r.kind === 'missing')
    return { refused: true, status: 404, code: 'not_found', error: `run ${runId} does not exist` };
  if (r.kind === 'corrupt')
    return { refused: true, status: 409, code: 'unreadable', error: `run ${runId} cannot be read` };
  const s = r.status;
  if (s.attempt !== req.attempt || s.worker_id !== req.worker_id || TERMINAL_RUN_STATES.includes(s.status)) {
    return {
      refused: true,
      status: 409,
      code: 'not_your_run',
      error: `attempt ${req.attempt} of run ${runId} is not a running attempt of worker ${req.worker_id}`,
    };
  }
  return null;
}

export class WorkerState {
  constructor(private readonly d: WorkerStateDeps) {}

  async handle(runId: string, req: StateRequest): Promise<StateReply | WorkerStateRefusal> {
    const refusal = await notRunningFor(this.d.runs, runId, req);
    if (refusal) return refusal;
    try {
      return await this.apply(req);
    } catch (err) {
      if (err instanceof StateConflictError)
        return { conflict: { ref: err.ref, expected: err.expected, actual: err.actual } };
      if (err instanceof InvalidStateError) return { invalid: err.message };
      throw err;
    }
  }

  private async apply(req: StateRequest): Promise<StateReply> {
    const store = this.d.state;
    switch (req.op) {
      case 'get':
        return { entry: await store.get(req.ref) };
      case 'put':
        return {
          entry: await store.put(req.ref, req.value, {
            ...(req.expected_version !== undefined ? { expectedVersion: req.expected_version } : {}),
            ...(req.create_only !== undefined ? { createOnly: req.create_only } : {}),
            ...(req.updated_by !== undefined ? { updatedBy: req.updated_by } : {}),
          }),
        };
      case 'delete':
        return { deleted: await store.delete(req.ref) };
      case 'list':
        return {
          entries: await store.list({
            scope: req.scope,
            namespace: req.namespace,
            keyPrefix: req.key_prefix,
            limit: req.limit,
          }),
        };
    }
  }
}
