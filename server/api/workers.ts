// The workers the coordinator knows, as the console and an autoscaler see them: labels, capacity, health
// (heard from within coordinator.worker_stale_threshold), how late their heartbeat is, and the runs each
// reported in its last heartbeat.

import { workerHealth, type Labels } from '../core/distributed';
import { isoUtc } from '../core/runStatus';
import type { RunState } from '../core/types';
import type { WorkerRecord } from '../store/dispatchTypes';
import type { Services } from './services';
import { FILE_READ_CONCURRENCY, mapConcurrently } from '../core/concurrency';

/** A run a worker reported executing, with what the run store says about it. */
export interface WorkerRunView {
  run_id: string;
  attempt: number;
  /** Null when the run's record is missing or unreadable here. */
  dag_name: string | null;
  status: RunState | null;
}

export type WorkerState = 'healthy' | 'late' | 'lost';

/**
 * A worker heartbeats every second or so: one not heard from for half the stale threshold has missed several
 * beats and is shown late before the dispatcher gives up on it.
 */
export function workerState(lastHeartbeatMs: number, nowMs: number, staleMs: number): WorkerState {
  const age = nowMs - lastHeartbeatMs;
  if (age <= staleMs / 2) return 'healthy';
  return age <= staleMs ? 'late' : 'lost';
}

/** One worker. */
export interface WorkerSummary {
  worker_id: string;
  labels: Labels;
  max_active_runs: number;
  host: string;
  /**
   * healthy: heard from within half of worker_stale_threshold; late: within the threshold (still dispatched
   * to); lost: beyond it (its runs fail, nothing is dispatched to it).
   */
  state: WorkerState;
  /** The dispatcher's view: healthy for healthy and late. */
  health: 'healthy' | 'unhealthy';
  registered_at: string;
  last_heartbeat_at: string;
  /** Milliseconds since the last heartbeat, by this server's clock. */
  heartbeat_age_ms: number;
  running: WorkerRunView[];
}

export interface WorkerListing {
  workers: WorkerSummary[];
  /** The threshold health is judged by. */
  stale_threshold_ms: number;
}

/** Every registered worker, healthy ones first, then late, then lost; by ID within each. */
export async function listWorkers(svc: Services): Promise<WorkerListing> {
  const nowMs = svc.clock.nowMs();
  const staleMs = svc.config.coordinator.worker_stale_threshold_ms;
  const records = await svc.workers.list();
  const workers = await mapConcurrently(records, FILE_READ_CONCURRENCY, (r) =>
    summarize(svc, r, nowMs, staleMs),
  );
  const rank = (w: WorkerSummary) => ['healthy', 'late', 'lost'].indexOf(w.state);
  const byId = (a: WorkerSummary, b: WorkerSummary) =>
    a.worker_id < b.worker_id ? -1 : a.worker_id > b.worker_id ? 1 : 0;
  workers.sort((a, b) => rank(a) - rank(b) || byId(a, b));
  return { workers, stale_threshold_ms: staleMs };
}

async function summarize(
  svc: Services,
  r: WorkerRecord,
  nowMs: number,
  staleMs: number,
): Promise<WorkerSummary> {
  const running = await Promise.all(
    r.running.map(async (run): Promise<WorkerRunView> => {
      // What a worker reports is not trusted to name a valid run: an unreadable one shows as unknown.
      const read = await svc.runs.readStatus(run.run_id).catch(() => null);
      return read?.kind === 'ok'
        ? { ...run, dag_name: read.status.dag_name, status: read.status.status }
        : { ...run, dag_name: null, status: null };
    }),
  );
  return {
    worker_id: r.worker_id,
    labels: r.labels,
    max_active_runs: r.max_active_runs,
    host: r.host,
    state: workerState(r.last_heartbeat_ms, nowMs, staleMs),
    health: workerHealth(r, nowMs, staleMs),
    registered_at: isoUtc(r.registered_at_ms),
    last_heartbeat_at: isoUtc(r.last_heartbeat_ms),
    heartbeat_age_ms: Math.max(0, nowMs - r.last_heartbeat_ms),
    running,
  };
}
