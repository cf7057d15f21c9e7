// The state store of a run on a worker: each operation goes to the coordinator (POST /runs/{id}/state),
// which makes it on the backend's store for this attempt while it is the worker's. Names, limits and values
// are checked here first with the store's own rules, so a refused request never leaves the worker, and the
// coordinator's answers come back as the errors a local store throws: a `state.*` step prints the same
// messages on a worker as on the scheduler host.

import type { StateReply } from '../coordinator/protocol';
import {
  InvalidStateError,
  StateConflictError,
  validateStateList,
  validateStateRef,
  type StateEntry,
  type StateListOptions,
  type StatePutOptions,
  type StateRef,
  type StateStore,
} from '../store/stateStore';
import type { CoordinatorApi } from './coordinatorClient';

export interface RemoteStateTarget {
  client: Pick<CoordinatorApi, 'state'>;
  runId: string;
  attempt: number;
  workerId: string;
}

export function remoteStateStore(t: RemoteStateTarget): StateStore {
  const call = async (req: Parameters<CoordinatorApi['state']>[1]): Promise<StateReply> => {
    const reply = await t.client.state(t.runId, req);
    if ('conflict' in reply) {
      throw new StateConflictError(reply.conflict.ref, reply.conflict.expected, reply.conflict.actual);
    }
    if ('invalid' in reply) throw new InvalidStateError(reply.invalid.replace(/^state: /, ''));
    return reply;
  };
  const who = { worker_id: t.workerId, attempt: t.attempt };
  const entryOf = (reply: StateReply): StateEntry | null => ('entry' in reply ? reply.entry : null);
  return {
    async get(ref: StateRef) {
      validateStateRef(ref);
      return entryOf(await call({ ...who, op: 'get', ref }));
    },
    async put(ref: StateRef, value: string, opts: StatePutOptions = {}) {
      validateStateRef(ref);
      const entry = entryOf(
        await call({
          ...who,
          op: 'put',
          ref,
          value,
          ...(opts.expectedVersion !== undefined ? { expected_version: opts.expectedVersion } : {}),
          ...(opts.createOnly !== undefined ? { create_only: opts.createOnly } : {}),
          ...(opts.updatedBy !== undefined ? { updated_by: opts.updatedBy } : {}),
        }),
      );
      if (!entry) throw new Error('the coordinator answered a state write without the entry');
      return entry;
    },
    async delete(ref: StateRef) {
      validateStateRef(ref);
      const reply = await call({ ...who, op: 'delete', ref });
      return 'deleted' in reply && reply.deleted;
    },
    async list(opts: StateListOptions) {
      validateStateList(opts);
      const reply = await call({
        ...who,
        op: 'list',
        scope: opts.scope,
        namespace: opts.namespace,
        key_prefix: opts.keyPrefix,
        limit: opts.limit,
      });
      return 'entries' in reply ? reply.entries : [];
    },
  };
}
