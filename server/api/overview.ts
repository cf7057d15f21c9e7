// The console's home: which scheduler is active and which stand by, the failover settings in force, the
// failover history, what runs and waits, and whether the server is open to the network. Cheap enough to
// poll every second or two: directory listings, a few small files, and the event log's new lines only.

import { formatDuration } from '../core/duration';
import { leaseTiming } from '../core/lease/timing';
import { isoUtc } from '../core/runStatus';
import { listDagFiles } from '../store/dagCatalog';
import { isLive, type InstanceRecord } from '../store/instanceRegistry';
import type { FailoverView } from './failoverHistory';
import { securityView, type SecurityView } from './security';
import type { Services } from './services';
import { countWaiting, waitingSnapshot } from '../store/waitingSnapshot';
import { workerState } from './workers';

export type { FailoverView } from './failoverHistory';

export interface SchedulerInstanceView {
  id: string;
  host: string;
  pid: number;
  /** `lost`: the record was not refreshed for longer than the takeover bound (the instance is gone). */
  role: 'starting' | 'standby' | 'active' | 'lost' | 'stopped';
  since: string;
  /** Health endpoint port, 0 when disabled. */
  port: number;
  lock_holder: string | null;
  last_renewal_seen: string | null;
  /** Now minus last_renewal_seen (server clock), null when none. */
  last_renewal_age_ms: number | null;
  updated_at: string;
  updated_age_ms: number;
}

export interface FailoverSettings {
  lock_stale_threshold: string;
  lock_stale_threshold_ms: number;
  lock_retry_interval: string;
  lock_retry_interval_ms: number;
  renewal_interval: string;
  renewal_interval_ms: number;
  takeover_bound: string;
  takeover_bound_ms: number;
  failover_recovery_window: string;
  failover_recovery_window_ms: number;
}

export interface Overview {
  generated_at: string;
  instances: SchedulerInstanceView[];
  /** The id of the live active instance, null when there is none. */
  active_instance: string | null;
  settings: FailoverSettings;
  /** Newest first, at most 50. */
  failovers: FailoverView[];
  counts: {
    running: number;
    /** Items of the local queues. */
    queued: number;
    /** Runs held for a matching worker. */
    held: number;
    workers: { healthy: number; late: number; lost: number };
    /** DAGs whose schedule is suspended (flags of DAG files that exist). */
    suspended_dags: number;
  };
  security: SecurityView;
}

export const MAX_FAILOVERS = 50;

export async function getOverview(svc: Services): Promise<Overview> {
  const [records, snap, workers, suspended] = await Promise.all([
    svc.instances.list(),
    waitingSnapshot(svc),
    svc.workers.list(),
    countSuspended(svc),
    svc.consoleCache.sync(),
  ]);
  const nowMs = svc.clock.nowMs();
  const settings = failoverSettings(svc);
  const views = records.map((r) => instanceView(r, nowMs, settings.takeover_bound_ms));
  // Two live records saying active happen for a moment around a takeover (the dead holder's record is still
  // fresh): the one that became active last holds the lock, and the other is shown as lost, not as a second
  // active scheduler.
  const active = views
    .filter((i) => i.role === 'active')
    .sort((a, b) => Date.parse(b.since) - Date.parse(a.since))[0];
  const instances = views
    .map((i) => (i.role === 'active' && i !== active ? { ...i, role: 'lost' as const } : i))
    .sort((a, b) => ROLE_ORDER.indexOf(a.role) - ROLE_ORDER.indexOf(b.role) || a.id.localeCompare(b.id));
  const counts = countWaiting(snap);
  const byState = { healthy: 0, late: 0, lost: 0 };
  const staleMs = svc.config.coordinator.worker_stale_threshold_ms;
  for (const w of workers) byState[workerState(w.last_heartbeat_ms, nowMs, staleMs)] += 1;
  return {
    generated_at: isoUtc(nowMs),
    instances,
    active_instance: active?.id ?? null,
    settings,
    failovers: svc.consoleCache.failovers.list(MAX_FAILOVERS),
    counts: {
      running: counts.running,
      queued: counts.queued,
      held: counts.held,
      workers: byState,
      suspended_dags: suspended,
    },
    security: securityView(svc.config.auth, svc.listen),
  };
}

/** Suspended DAGs that still have a file: two directory listings, no file read. */
async function countSuspended(svc: Services): Promise<number> {
  const [flags, files] = await Promise.all([
    svc.suspendFlags.names(),
    listDagFiles(svc.config.paths.dags_dir),
  ]);
  return new Set(files.map((f) => f.name).filter((n) => flags.has(n))).size;
}

const ROLE_ORDER: ReadonlyArray<SchedulerInstanceView['role']> = [
  'active',
  'standby',
  'starting',
  'lost',
  'stopped',
];

/** T, R, I = min(7s, T/4) (the holder's renewal interval) and the takeover bound T + 2R, in force here. */
export function failoverSettings(svc: Pick<Services, 'config'>): FailoverSettings {
  const { lock_stale_threshold_ms: T, lock_retry_interval_ms: R } = svc.config.scheduler;
  const recovery = svc.config.scheduler.failover_recovery_window_ms;
  const I = leaseTiming(T, R).renewEveryMs;
  return {
    lock_stale_threshold: formatDuration(T),
    lock_stale_threshold_ms: T,
    lock_retry_interval: formatDuration(R),
    lock_retry_interval_ms: R,
    renewal_interval: formatDuration(I),
    renewal_interval_ms: I,
    takeover_bound: formatDuration(T + 2 * R),
    takeover_bound_ms: T + 2 * R,
    failover_recovery_window: formatDuration(recovery),
    failover_recovery_window_ms: recovery,
  };
}

/**
 * An instance refreshes its record every R; one silent for longer than the takeover bound T + 2R is gone
 * (killed, or cut off from the storage), whatever role it last wrote.
 */
function instanceView(r: InstanceRecord, nowMs: number, boundMs: number): SchedulerInstanceView {
  const role = r.role === 'stopped' ? 'stopped' : isLive(r, nowMs, boundMs) ? r.role : 'lost';
  const renewal = r.last_renewal_seen === null ? NaN : Date.parse(r.last_renewal_seen);
  const updated = Date.parse(r.updated_at);
  return {
    id: r.id,
    host: r.host,
    pid: r.pid,
    role,
    since: r.since,
    port: r.port,
    lock_holder: r.lock_holder,
    last_renewal_seen: r.last_renewal_seen,
    last_renewal_age_ms: Number.isFinite(renewal) ? Math.max(0, nowMs - renewal) : null,
    updated_at: r.updated_at,
    updated_age_ms: Number.isFinite(updated) ? Math.max(0, nowMs - updated) : 0,
  };
}
