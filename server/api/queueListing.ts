// The queue view: every run that waits (an item of a local queue, or a dispatch task no worker has claimed),
// with why it waits, for how long, and until when a held one may wait; filtered by queue, DAG, selector and
// reason. Membership comes from the stores' listings on every request; the run records joined to it come
// from the console cache (see runRecordCache.ts).

import { z } from 'zod';
import { conditionsNow, type CoordinatorAvailability } from '../core/coordinatorPresence';
import { formatSelector, type Labels } from '../core/distributed';
import { isoUtc } from '../core/runStatus';
import type { RunCondition, RunState, TriggerType } from '../core/types';
import type { PendingSummary } from '../store/dispatchTypes';
import type { QueueItem, ReadStatusResult } from '../store/types';
import { BadRequestError } from './errors';
import { describeIssues } from './http';
import type { Services } from './services';
import { availabilityNow } from './waitingNow';
import { countWaiting, waitingSnapshot } from '../store/waitingSnapshot';

/** One run that waits: in a local queue (`queued`), or handed to the workers and not yet claimed. */
export interface WaitingRun {
  run_id: string;
  dag_name: string;
  /**
   * `queued`: an item of a local queue; `held`: a dispatch task waiting for a matching worker (has a hold);
   * `dispatched`: a dispatch task a healthy matching worker has not claimed yet.
   */
  kind: 'queued' | 'held' | 'dispatched';
  /** The local queue's name (`queued` only), else null. */
  queue: string | null;
  /** 1 = next to start in its queue (`queued` only), else null. */
  position: number | null;
  /** The run record's state (normally `queued`); null when the record is missing or unreadable. */
  status: RunState | null;
  trigger_type: TriggerType | null;
  schedule_time: string | null;
  params: string[];
  /** Null for runs that do not go to workers; `{}` means any worker. */
  worker_selector: Labels | null;
  /** The selector as the error texts write it: `{zone: b}`; `{}` for any worker; null without one. */
  selector_text: string | null;
  /**
   * Why the run waits (`Runnable`, `WorkerReady`, ...): as last recorded on the run, except that a run waiting
   * for a worker while no coordinator is alive reads `NoAvailableCoordinator`.
   */
  conditions: RunCondition[];
  /** The reason of the first condition with status False, e.g. `NoMatchingWorker`; null when none. */
  reason: string | null;
  /** When it started waiting (queued_at, or the task's enqueue time). */
  waiting_since: string;
  waited_ms: number;
  /** When a held run's wait runs out (it then fails), else null. */
  hold_until: string | null;
  /** Milliseconds left until hold_until (negative once expired), else null. */
  hold_remaining_ms: number | null;
  /** Error text when the run record is missing or unreadable. */
  problem: string | null;
}

export interface QueueSummary {
  name: string;
  /** From `queues.config[]`; null when the queue uses its DAG's `max_active_runs`. */
  max_concurrency: number | null;
  running: number;
  queued: number;
}

export interface QueueListing {
  enabled: boolean;
  /** Every known queue with its counts (unfiltered). */
  queues: QueueSummary[];
  /** The waiting runs that pass the filter: queued runs in queue order, then held/dispatched oldest first. */
  items: WaitingRun[];
  /** Number of items before `limit` cut the list. */
  total: number;
  /** Distinct values to offer in the filter controls (over all waiting runs, unfiltered). */
  facets: { queues: string[]; dags: string[]; selectors: string[]; reasons: string[] };
}

/**
 * The filter of the queue view. Each field is an exact match: `queue` on the local queue's name (held and
 * dispatched runs have none), `dag` on the DAG name, `selector` on `selector_text` as the listing writes it
 * (`{zone: b}`, `{}` for any worker; the values of `facets.selectors`), `reason` on `reason`.
 */
export interface QueueFilter {
  queue?: string;
  dag?: string;
  selector?: string;
  reason?: string;
  /** At most this many items (default 200, at most 5000). */
  limit?: number;
}

export const DEFAULT_QUEUE_LIMIT = 200;
export const MAX_QUEUE_LIMIT = 5000;

const filterText = z.string().min(1, 'must not be empty').max(1000, 'is at most 1000 characters');
const querySchema = z.strictObject({
  queue: filterText.optional(),
  dag: filterText.optional(),
  selector: filterText.optional(),
  reason: filterText.optional(),
  limit: z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(1).max(MAX_QUEUE_LIMIT))
    .optional(),
});

/** `?queue=&dag=&selector=&reason=&limit=`; empty parameters are ignored (an empty filter control). */
export function parseQueueQuery(params: URLSearchParams): QueueFilter {
  const raw: Record<string, string> = {};
  for (const [key, value] of params) {
    if (value === '') continue;
    if (key in raw) throw new BadRequestError(`${key}: given more than once`);
    raw[key] = value;
  }
  const parsed = querySchema.safeParse(raw);
  if (!parsed.success) throw new BadRequestError(describeIssues(parsed.error, 'query'));
  return parsed.data;
}

export async function listQueue(svc: Services, filter: QueueFilter = {}): Promise<QueueListing> {
  const nowMs = svc.clock.nowMs();
  const [snap, coordinators] = await Promise.all([
    waitingSnapshot(svc),
    availabilityNow(svc),
    svc.consoleCache.sync(),
  ]);
  const now: WaitingNow = { nowMs, coordinators };
  const withTask = new Set(snap.pending.map((t) => t.run_id));
  // A run handed to the workers keeps its queue item for a moment: the task is what it waits for now.
  const queued = [...snap.items.values()].map((items) => items.filter((i) => !withTask.has(i.run_id)));
  const runIds = [...queued.flat().map((i) => i.run_id), ...snap.pending.map((t) => t.run_id)];
  const records = await svc.consoleCache.runs.get(svc.runs, runIds, svc.clock.monoMs());
  const dagOfTask = await dagNamesOfUnreadable(svc, snap.pending, records);

  const all: WaitingRun[] = [];
  for (const items of queued) {
    items.forEach((item, i) => all.push(queuedView(item, i + 1, records.get(item.run_id)!, now)));
  }
  const tasks = [...snap.pending].sort((a, b) => a.enqueued_at_ms - b.enqueued_at_ms);
  for (const t of tasks) {
    all.push(taskView(t, records.get(t.run_id)!, dagOfTask.get(t.run_id) ?? '', now));
  }

  const matches = all.filter(
    (w) =>
      (filter.queue === undefined || w.queue === filter.queue) &&
      (filter.dag === undefined || w.dag_name === filter.dag) &&
      (filter.selector === undefined || w.selector_text === filter.selector) &&
      (filter.reason === undefined || w.reason === filter.reason),
  );
  const counts = countWaiting(snap);
  const configured = svc.config.queues.config;
  const names = new Set([
    ...configured.map((q) => q.name),
    ...snap.items.keys(),
    ...counts.runningByQueue.keys(),
  ]);
  return {
    enabled: svc.config.queues.enabled,
    queues: [...names].sort().map((name) => ({
      name,
      max_concurrency: configured.find((q) => q.name === name)?.max_concurrency ?? null,
      running: counts.runningByQueue.get(name) ?? 0,
      queued: counts.queuedByQueue.get(name) ?? 0,
    })),
    items: matches.slice(0, filter.limit ?? DEFAULT_QUEUE_LIMIT),
    total: matches.length,
    facets: {
      queues: distinct(all.map((w) => w.queue)),
      dags: distinct(all.map((w) => w.dag_name)),
      selectors: distinct(all.map((w) => w.selector_text)),
      reasons: distinct(all.map((w) => w.reason)),
    },
  };
}

// The views are written out field by field: spreading the record part into a literal with more fields made
// V8 build each of a thousand rows the slow way (about 20 microseconds a row, most of a request's time).

/** The time of a listing and whether a coordinator was alive then. */
interface WaitingNow {
  nowMs: number;
  coordinators: CoordinatorAvailability;
}

function queuedView(item: QueueItem, position: number, read: ReadStatusResult, now: WaitingNow): WaitingRun {
  const { nowMs } = now;
  const r = recordPart(read, false, now);
  const since = (read.kind === 'ok' ? read.status.queued_at : null) ?? item.enqueued_at;
  return {
    run_id: item.run_id,
    dag_name: item.dag_name,
    kind: 'queued',
    queue: item.queue,
    position,
    status: r.status,
    trigger_type: r.trigger_type,
    schedule_time: r.schedule_time,
    params: r.params,
    worker_selector: r.worker_selector,
    selector_text: r.selector_text,
    conditions: r.conditions,
    reason: r.reason,
    waiting_since: since,
    waited_ms: waitedMs(since, nowMs),
    hold_until: null,
    hold_remaining_ms: null,
    problem: r.problem,
  };
}

function taskView(t: PendingSummary, read: ReadStatusResult, dagName: string, now: WaitingNow): WaitingRun {
  const { nowMs } = now;
  const r = recordPart(read, true, now);
  const hold = t.hold_until_ms;
  return {
    run_id: t.run_id,
    dag_name: read.kind === 'ok' ? read.status.dag_name : dagName,
    kind: hold !== null ? 'held' : 'dispatched',
    queue: null,
    position: null,
    status: r.status,
    trigger_type: r.trigger_type,
    schedule_time: r.schedule_time,
    params: r.params,
    // The task's selector is the one the dispatch uses, whatever the record says.
    worker_selector: t.worker_selector,
    selector_text: formatSelector(t.worker_selector),
    conditions: r.conditions,
    reason: r.reason,
    waiting_since: isoUtc(t.enqueued_at_ms),
    waited_ms: Math.max(0, nowMs - t.enqueued_at_ms),
    hold_until: hold !== null ? isoUtc(hold) : null,
    hold_remaining_ms: hold !== null ? hold - nowMs : null,
    problem: r.problem,
  };
}

type RecordPart = Pick<
  WaitingRun,
  | 'status'
  | 'trigger_type'
  | 'schedule_time'
  | 'params'
  | 'worker_selector'
  | 'selector_text'
  | 'conditions'
  | 'reason'
  | 'problem'
>;

function recordPart(read: ReadStatusResult, hasTask: boolean, now: WaitingNow): RecordPart {
  if (read.kind !== 'ok') {
    return {
      status: null,
      trigger_type: null,
      schedule_time: null,
      params: [],
      worker_selector: null,
      selector_text: null,
      conditions: [],
      reason: null,
      problem: read.kind === 'missing' ? 'run record not found' : `corrupt status file: ${read.error}`,
    };
  }
  const s = read.status;
  const conditions = conditionsNow(
    { status: s.status, worker_id: s.worker_id, conditions: s.conditions ?? [] },
    hasTask,
    now.coordinators,
    now.nowMs,
  );
  return {
    status: s.status,
    trigger_type: s.trigger_type,
    schedule_time: s.schedule_time,
    params: s.params,
    worker_selector: s.worker_selector,
    selector_text: s.worker_selector === null ? null : formatSelector(s.worker_selector),
    conditions,
    reason: conditions.find((c) => c.status === 'False')?.reason ?? null,
    problem: null,
  };
}

/** The DAG of a task whose run record cannot be read, from the task itself (rare: read only then). */
async function dagNamesOfUnreadable(
  svc: Services,
  pending: PendingSummary[],
  records: Map<string, ReadStatusResult>,
): Promise<Map<string, string>> {
  const unreadable = new Set(
    pending.filter((t) => records.get(t.run_id)?.kind !== 'ok').map((t) => t.run_id),
  );
  if (unreadable.size === 0) return new Map();
  const tasks = await svc.tasks.listPending((t) => unreadable.has(t.run_id));
  return new Map(tasks.map((t) => [t.run_id, t.dag_name]));
}

function waitedMs(sinceIso: string, nowMs: number): number {
  const since = Date.parse(sinceIso);
  return Number.isFinite(since) ? Math.max(0, nowMs - since) : 0;
}

function distinct(values: Array<string | null>): string[] {
  return [...new Set(values.filter((v): v is string => v !== null && v !== ''))].sort();
}
