// A RunStore decorator that appends `dag.run.<state>` to the event log after every status write that
// changes a run's state, so every writer (runner, scheduler, coordinator, API) emits the same way.

import type { Logger } from '../core/ports';
import { silentLogger } from '../core/ports';
import type { RunCondition, RunState, RunStatus, StepState, TriggerType } from '../core/types';
import { MAX_EVENT_LINE_BYTES } from './eventRecord';
import { errorMessage } from './fsutil';
import type { EventLog, RunStore, WriteStatusOptions } from './types';

/** The event types of run state changes. */
/**
 * Whether a write that carried an event in its own statement may have failed because of the event's part (a
 * table of the event log dropped or changed by hand: an integrity, data or definition error), so that a
 * second write without it is worth making. Any other failure (a lost connection, a fence that no longer
 * holds, a missing run) would fail that write alike.
 */
export function mayBeTheEventsFault(err: unknown): boolean {
  return /^(22|23|42)/.test(String((err as { code?: unknown }).code ?? ''));
}

export const RUN_EVENT_TYPES = [
  'dag.run.queued',
  'dag.run.running',
  'dag.run.succeeded',
  'dag.run.failed',
  'dag.run.aborted',
  'dag.run.rejected',
] as const;

export type RunEventType = (typeof RUN_EVENT_TYPES)[number];

/** The event a run entering `state` emits; `partially_succeeded` counts as succeeded. Null: none. */
export function runEventType(state: RunState): RunEventType | null {
  switch (state) {
    case 'queued':
      return 'dag.run.queued';
    case 'running':
      return 'dag.run.running';
    case 'succeeded':
    case 'partially_succeeded':
      return 'dag.run.succeeded';
    case 'failed':
      return 'dag.run.failed';
    case 'aborted':
      return 'dag.run.aborted';
    case 'rejected':
      return 'dag.run.rejected';
    default:
      return null;
  }
}

/** What a run event carries of the status: enough to show the run, small enough for one event line. */
export interface RunEventSnapshot {
  dag_name: string;
  run_id: string;
  attempt: number;
  status: RunState;
  trigger_type: TriggerType;
  queue: string;
  error: string | null;
  conditions: RunCondition[];
  worker_id: string | null;
  created_at: string;
  queued_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  schedule_time: string | null;
  steps: Array<{ name: string; status: StepState; error: string | null }>;
  /** Steps left out so the event fits one line (only present when some were). */
  steps_omitted?: number;
}

/** The data of a run event. */
export interface RunEventData {
  dag_name: string;
  run_id: string;
  attempt: number;
  status: RunEventSnapshot;
  worker_selector: Record<string, string> | null;
}

// Room for the record's id, type and time around the data, below the event log's line limit.
const DATA_BUDGET_BYTES = MAX_EVENT_LINE_BYTES - 300;
const MAX_ERROR_CHARS = 500;
const MAX_STEP_ERROR_CHARS = 200;
/** Runs whose last emitted state is remembered; older ones may emit their current state once more. */
const MAX_REMEMBERED_RUNS = 10_000;

/** The data of the event for `status`, shortened to fit one event line. */
export function runEventData(status: RunStatus): RunEventData {
  const snapshot: RunEventSnapshot = {
    dag_name: status.dag_name,
    run_id: status.run_id,
    attempt: status.attempt,
    status: status.status,
    trigger_type: status.trigger_type,
    queue: status.queue,
    error: shorten(status.error, MAX_ERROR_CHARS),
    conditions: status.conditions ?? [],
    worker_id: status.worker_id,
    created_at: status.created_at,
    queued_at: status.queued_at,
    started_at: status.started_at,
    finished_at: status.finished_at,
    schedule_time: status.schedule_time,
    steps: status.steps.map((s) => ({
      name: s.name,
      status: s.status,
      error: shorten(s.error, MAX_STEP_ERROR_CHARS),
    })),
  };
  const data: RunEventData = {
    dag_name: status.dag_name,
    run_id: status.run_id,
    attempt: status.attempt,
    status: snapshot,
    worker_selector: status.worker_selector,
  };
  // Many steps: leave the last ones out rather than let the log replace the whole event with a stub.
  const total = snapshot.steps.length;
  while (snapshot.steps.length > 0 && Buffer.byteLength(JSON.stringify(data)) > DATA_BUDGET_BYTES) {
    snapshot.steps = snapshot.steps.slice(0, Math.floor(snapshot.steps.length * 0.75));
    snapshot.steps_omitted = total - snapshot.steps.length;
  }
  return data;
}

/** What was announced of a run: attempt, state, and the reasons of its conditions. */
function eventKey(s: RunStatus): string {
  return `${s.attempt}\n${s.status}\n${s.conditions.map((c) => `${c.type}=${c.reason}`).join(',')}`;
}

function sameStateKey(a: string, b: string): boolean {
  return a.slice(0, a.lastIndexOf('\n')) === b.slice(0, b.lastIndexOf('\n'));
}

function shorten(text: string | null, max: number): string | null {
  return text !== null && text.length > max ? `${text.slice(0, max)}... (truncated)` : text;
}

/**
 * Wraps `store` so that each successful createRun, completeRun, createAttempt and writeStatus whose run,
 * attempt and state differ from the last event this wrapper emitted for that run appends `dag.run.<state>`.
 * An append that fails is logged: the status is already written, and the write must not look failed.
 */
export function withRunEvents(store: RunStore, events: EventLog, opts: { logger?: Logger } = {}): RunStore {
  const logger = opts.logger ?? silentLogger;
  const lastEmitted = new Map<string, string>();

  /** The event writing `status` is to announce, or null when there is none or it was announced already. */
  function due(status: RunStatus): { type: RunEventType; key: string } | null {
    const type = runEventType(status.status);
    if (type === null) return null;
    const key = eventKey(status);
    const last = lastEmitted.get(status.run_id);
    // Same attempt and state: announced already, unless the run now says why it waits (a queued run that
    // a worker must come for), which is what a controller starting workers on demand looks for.
    if (last !== undefined && sameStateKey(last, key) && !(status.conditions.length > 0 && last !== key))
      return null;
    return { type, key };
  }

  function remember(runId: string, key: string): void {
    // Re-inserting keeps the map in least-recently-emitted order, so the oldest run is dropped first.
    lastEmitted.delete(runId);
    lastEmitted.set(runId, key);
    if (lastEmitted.size > MAX_REMEMBERED_RUNS) lastEmitted.delete(lastEmitted.keys().next().value!);
  }

  /**
   * Writes `status` through `write` with its event in the same write, where the store appends to this very
   * event log (eventsInStatusWrites); answers what `write` did, or undefined when it did not write: no event
   * is due, the store cannot, or the combined write failed (the caller then writes and emits apart, so that
   * a fault of the event part never fails the status write).
   */
  async function writeWithEvent<T>(
    status: RunStatus,
    write: (event: WriteStatusOptions['event']) => Promise<T>,
    wrote: (result: T) => boolean,
  ): Promise<{ result: T } | undefined> {
    if (store.eventsInStatusWrites === undefined || store.eventsInStatusWrites !== events) return undefined;
    const d = due(status);
    if (d === null) return undefined;
    // Taken as announced before the write, as emit does before its append: a write of the same state made
    // meanwhile by this process (a report retried while the first is in flight) carries no second event.
    // Given back when this write wrote nothing.
    const before = lastEmitted.get(status.run_id);
    remember(status.run_id, d.key);
    const giveBack = () => {
      if (lastEmitted.get(status.run_id) !== d.key) return;
      if (before === undefined) lastEmitted.delete(status.run_id);
      else lastEmitted.set(status.run_id, before);
    };
    try {
      const result = await write({
        type: d.type,
        data: runEventData(status) as unknown as Record<string, unknown>,
      });
      if (!wrote(result)) giveBack();
      return { result };
    } catch (err) {
      giveBack();
      if (!mayBeTheEventsFault(err)) throw err;
      logger.warn('Could not write a run status with its event; writing them apart', {
        run_id: status.run_id,
        attempt: status.attempt,
        error: errorMessage(err),
      });
      return undefined;
    }
  }

  async function emit(status: RunStatus): Promise<void> {
    const d = due(status);
    if (d === null) return;
    const { type, key } = d;
    remember(status.run_id, key);
    try {
      // That a run started need not be flushed to the disk before it goes on: its status file says so, and
      // its end (or, if it dies, the reaper's verdict) is announced durably. Queued runs are: a controller
      // starting workers on demand acts on those events.
      await events.append(type, runEventData(status) as unknown as Record<string, unknown>, {
        durable: status.status !== 'running',
      });
    } catch (err) {
      logger.warn('Could not append a run event', {
        type,
        run_id: status.run_id,
        attempt: status.attempt,
        error: errorMessage(err),
      });
    }
  }

  return {
    async createRun(initial) {
      const combined = await writeWithEvent(
        initial,
        (event) => store.createRun(initial, { event }),
        (r) => r.created,
      );
      if (combined) return combined.result;
      const result = await store.createRun(initial);
      if (result.created) await emit(initial);
      return result;
    },
    async completeRun(initial) {
      const wrote = await store.completeRun(initial);
      if (wrote) await emit(initial);
      return wrote;
    },
    async createAttempt(status) {
      await store.createAttempt(status);
      await emit(status);
    },
    async writeStatus(status, replaces, opts) {
      // The first write of a run in this process: another process may have written (and announced) this
      // state already, e.g. the CLI that held a run before the coordinator records the worker's ack. A
      // caller that has just read it says so, and it is not read again.
      if (!lastEmitted.has(status.run_id)) {
        if (replaces?.run_id === status.run_id) lastEmitted.set(status.run_id, eventKey(replaces));
        else {
          const before = await store.readStatus(status.run_id).catch(() => null);
          if (before?.kind === 'ok') lastEmitted.set(status.run_id, eventKey(before.status));
        }
      }
      const combined = await writeWithEvent(
        status,
        (event) => store.writeStatus(status, replaces, { ...opts, event }),
        () => true,
      );
      if (combined) return;
      await store.writeStatus(status, replaces, opts);
      await emit(status);
    },
    unmarksEnded: store.unmarksEnded,
    clearsCancelsOnEnd: store.clearsCancelsOnEnd,
    ensureIndexed: (status) => store.ensureIndexed(status),
    recordUnwrittenFinalStatus: (runId, attempt, note) =>
      store.recordUnwrittenFinalStatus(runId, attempt, note),
    readUnwrittenFinalStatus: (runId, attempt) => store.readUnwrittenFinalStatus(runId, attempt),
    readStatus: (runId) => store.readStatus(runId),
    ...(store.readStatusAndClaim && {
      readStatusAndClaim: (runId: string) => store.readStatusAndClaim!(runId),
    }),
    ...(store.readStatusAndCancel && {
      readStatusAndCancel: (runId: string) => store.readStatusAndCancel!(runId),
    }),
    ...(store.readStatusesAndClaims && {
      readStatusesAndClaims: (runIds: readonly string[]) => store.readStatusesAndClaims!(runIds),
    }),
    listRuns: (query) => store.listRuns(query),
    listActive: () => store.listActive(),
    history: (dagName) => store.history(dagName),
    deleteRun: (runId) => store.deleteRun(runId),
    purgeDeleted: () => store.purgeDeleted(),
    markActive: (run) => store.markActive(run),
    unmarkActive: (runId) => store.unmarkActive(runId),
    claimAttempt: (runId, attempt, owner) => store.claimAttempt(runId, attempt, owner),
    ...(store.claimQueued && {
      claimQueued: (runId: string, owner: string) => store.claimQueued!(runId, owner),
    }),
    isClaimed: (runId, attempt) => store.isClaimed(runId, attempt),
    readClaim: (runId, attempt) => store.readClaim(runId, attempt),
    releasesClaims: store.releasesClaims,
    releaseClaim: (runId, attempt, owner) => store.releaseClaim(runId, attempt, owner),
    async beginClaimedAttempt(status, owner) {
      // No read of what was announced before, as writeStatus makes: the start is written only under this
      // process's claim, which it took on the attempt while queued, and nothing else starts a claimed
      // attempt. So the start is this process's to announce. (A start retried after its answer was lost,
      // which did commit, is announced once, by the retry.)
      const combined = await writeWithEvent(
        status,
        (event) => store.beginClaimedAttempt(status, owner, { event }),
        (begun) => begun,
      );
      if (combined) return combined.result;
      const begun = await store.beginClaimedAttempt(status, owner);
      if (begun) await emit(status);
      return begun;
    },
    writeHeartbeat: (runId, attempt, nowMs) => store.writeHeartbeat(runId, attempt, nowMs),
    ...(store.writeHeartbeats && {
      writeHeartbeats: (attempts: ReadonlyArray<{ run_id: string; attempt: number }>, nowMs: number) =>
        store.writeHeartbeats!(attempts, nowMs),
    }),
    readHeartbeat: (runId, attempt) => store.readHeartbeat(runId, attempt),
    logDir: (dagName, runId, attempt) => store.logDir(dagName, runId, attempt),
  };
}
