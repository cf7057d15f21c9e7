// Finds runs whose process died (host crash, kill -9) and marks them failed, so nothing stays `running`
// or `queued` forever with no owner. Runs only on the active scheduler. Runs handed to the workers are owned
// by a dispatch task or a worker; the coordinator relays their heartbeats and judges silent workers.

import { hostname } from 'node:os';
import { isoUtc } from '../core/runStatus';
import type { Clock, Logger } from '../core/ports';
import type { RunStatus } from '../core/types';
import { formatDuration } from '../core/duration';
import type { DispatchStore } from '../store/dispatchTypes';
import type { QueueStore, RunStore } from '../store/types';

/** Requeued runs remembered; far more than can be stranded between two sweeps. */
const MAX_REMEMBERED_REQUEUES = 10_000;

export interface ZombieReaperDeps {
  clock: Clock;
  logger: Logger;
  runs: RunStore;
  queue: QueueStore;
  heartbeatStaleMs: number;
  canDispatch: () => boolean;
  /**
   * The dispatch store: a queued run with a task waits for (or is being claimed by) a worker, not stranded.
   * Without it, only queue items and `worker_id` keep a queued run from being reaped.
   */
  tasks?: Pick<DispatchStore, 'findByRun'>;
  /**
   * Whether this instance's scheduling loop has had its chance to adopt the slots a failed instance created
   * and never started (its first tick after becoming active). Until then a queued slot run with no queue item
   * is the loop's to adopt, not a run to fail: failing it first would lose a slot the design replays.
   */
  slotAdoptionDone?: () => boolean;
  /** Whether this instance is starting the run's process, or started it a moment ago (RecentLaunches). */
  launching?: (runId: string) => boolean;
  /** This host's name, compared with a run's `host` (default: os.hostname()). */
  host?: string;
  /** Whether a local pid is alive (default: signal 0); tests pass their own. */
  processAlive?: (pid: number) => boolean;
}

/** True when `pid` names a live process on this host. */
export function isLocalProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class ZombieReaper {
  private readonly host: string;
  private readonly processAlive: (pid: number) => boolean;
  /** Stranded queued runs this instance put back in their queue: a second stranding fails them. */
  private readonly requeued = new Set<string>();

  constructor(private readonly d: ZombieReaperDeps) {
    this.host = d.host ?? hostname();
    this.processAlive = d.processAlive ?? isLocalProcessAlive;
  }

  /** One sweep over the active markers. Returns the IDs of runs it marked failed. */
  async sweep(): Promise<string[]> {
    if (!this.d.canDispatch()) return [];
    const reaped: string[] = [];
    for (const a of await this.d.runs.listActive()) {
      const r = await this.d.runs.readStatus(a.run_id);
      if (r.kind === 'missing') {
        await this.d.runs.unmarkActive(a.run_id);
        continue;
      }
      if (r.kind === 'corrupt') {
        this.d.logger.error('Active run has an unreadable status file', {
          run_id: a.run_id,
          path: r.path,
          error: r.error,
        });
        continue;
      }
      const s = r.status;
      if (s.status !== 'running' && s.status !== 'queued') {
        await this.d.runs.unmarkActive(a.run_id);
        continue;
      }
      const reason =
        s.status === 'running' ? await this.deadRunReason(s) : await this.strandedQueuedReason(s);
      if (reason === null) continue;
      // Read again right before writing: the run may have finished, or been queued, while we looked.
      const again = await this.d.runs.readStatus(a.run_id);
      if (again.kind !== 'ok' || again.status.status !== s.status || again.status.attempt !== s.attempt)
        continue;
      if (s.status === 'queued' && (await this.strandedQueuedReason(again.status)) === null) continue;
      if (s.status === 'queued' && (await this.mayRequeue(again.status))) {
        await this.requeue(again.status, reason);
        continue;
      }
      await this.markFailed(again.status, reason);
      reaped.push(a.run_id);
    }
    return reaped;
  }

  private async deadRunReason(s: RunStatus): Promise<string | null> {
    const now = this.d.clock.nowMs();
    // A run on a worker is judged by its heartbeat alone (the coordinator writes it): its pid is the
    // worker host's, and signalling it here could hit an unrelated local process.
    if (s.worker_id === null && s.host === this.host && s.pid !== null && !this.processAlive(s.pid)) {
      return `run process ${s.pid} on ${s.host} is gone; marked failed`;
    }
    const hb = await this.d.runs.readHeartbeat(s.run_id, s.attempt);
    const last = hb ?? (s.started_at ? Date.parse(s.started_at) : Date.parse(s.created_at));
    const age = now - last;
    if (age <= this.d.heartbeatStaleMs) return null;
    const ago = formatDuration(Math.round(age / 1000) * 1000);
    if (s.worker_id !== null) {
      return `run on worker ${s.worker_id} stopped heartbeating ${ago} ago (no heartbeat relayed by the coordinator); marked failed`;
    }
    return `run process ${s.pid ?? '?'} on ${s.host ?? 'unknown host'} stopped heartbeating ${ago} ago; marked failed`;
  }

  private async strandedQueuedReason(s: RunStatus): Promise<string | null> {
    const slotRun = s.trigger_type === 'scheduler' || s.trigger_type === 'catchup';
    if (slotRun && this.d.slotAdoptionDone && !this.d.slotAdoptionDone()) return null;
    if (this.d.launching?.(s.run_id)) return null;
    if (await this.d.queue.find(s.run_id)) return null;
    // Acknowledged by a worker (still `queued` until it reports `running`), or waiting in the dispatch
    // store for one: the coordinator fails these itself when the worker falls silent or the hold runs out.
    if (s.worker_id !== null) return null;
    if (this.d.tasks && (await this.d.tasks.findByRun(s.run_id))) return null;
    const age = this.d.clock.nowMs() - Date.parse(s.created_at);
    if (age <= this.d.heartbeatStaleMs) return null; // a scheduled run that is just starting
    return `run was never started: queued ${formatDuration(Math.round(age / 1000) * 1000)} ago with no queue item and no run process`;
  }

  /**
   * Once per run, and only while no process has claimed the attempt: a claimed attempt would refuse every
   * process the queue starts for it, and the run would wait for ever instead of failing.
   */
  private async mayRequeue(s: RunStatus): Promise<boolean> {
    if (this.requeued.has(s.run_id)) return false;
    return !(await this.d.runs.isClaimed(s.run_id, s.attempt));
  }

  /**
   * A queued run nobody holds was never started anywhere: its run process died before taking it over (a
   * storage error), or the coordinator stopped between a worker's claim and recording the worker (the
   * worker, without a reply, does not run it). It goes back in its queue once, so the slot still runs; a
   * run stranded again is failed, so that nothing waits for ever.
   */
  private async requeue(s: RunStatus, reason: string) {
    await this.d.queue.enqueue({
      queue: s.queue,
      run_id: s.run_id,
      dag_name: s.dag_name,
      enqueued_at: s.queued_at ?? s.created_at,
    });
    this.requeued.add(s.run_id);
    if (this.requeued.size > MAX_REMEMBERED_REQUEUES)
      this.requeued.delete(this.requeued.values().next().value!);
    this.d.logger.warn('Put a queued run nobody started back in its queue', {
      dag: s.dag_name,
      run_id: s.run_id,
      reason,
    });
  }

  private async markFailed(s: RunStatus, reason: string) {
    const now = isoUtc(this.d.clock.nowMs());
    await this.d.runs.writeStatus({
      ...s,
      status: 'failed',
      finished_at: now,
      error: reason,
      conditions: [],
      steps: s.steps.map((st) =>
        st.status === 'running' || st.status === 'retrying'
          ? { ...st, status: 'failed', finished_at: now, error: 'the run process died' }
          : st,
      ),
    });
    await this.d.runs.unmarkActive(s.run_id);
    this.d.logger.warn('Marked a run failed: its process died', {
      dag: s.dag_name,
      run_id: s.run_id,
      reason,
    });
  }
}
