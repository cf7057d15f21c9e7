// Consumes the queues: starts queued runs FIFO within each queue's concurrency, as detached run processes,
// and removes a queue item only once its run has visibly started (its status left `queued`).

import { isoUtc } from '../core/runStatus';
import type { Clock, Logger, Timers, TimerHandle } from '../core/ports';
import type { DagSpec, RunStatus } from '../core/types';
import { SECOND } from '../core/units';
import type { QueueConfig } from '../config/types';
import type { QueueItem, QueueStore, RunStore } from '../store/types';
import type { DagSource } from './dagCatalogCache';
import type { Launcher } from './launcher';

const BUSY_POLL_MS = 100;
const IDLE_POLL_MS = 1 * SECOND;
/** How long a launched run may take to leave `queued` before its item is offered again. */
const START_TIMEOUT_MS = 30 * SECOND;

export interface QueueProcessorDeps {
  clock: Clock;
  timers: Timers;
  logger: Logger;
  runs: RunStore;
  queue: QueueStore;
  catalog: DagSource;
  queues: QueueConfig[];
  launch: Launcher;
  canDispatch: () => boolean;
}

interface InFlight {
  queue: string;
  sinceMono: number;
}

export class QueueProcessor {
  private timer: TimerHandle | null = null;
  private stopped = false;
  private running: Promise<void> | null = null;
  private readonly inFlight = new Map<string, InFlight>();

  constructor(private readonly d: QueueProcessorDeps) {}

  start(): void {
    this.arm(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) this.d.timers.clearTimeout(this.timer);
    await this.running;
  }

  private arm(ms: number) {
    if (this.stopped) return;
    this.timer = this.d.timers.setTimeout(() => {
      this.running = this.pass()
        .catch((err: Error) => {
          this.d.logger.error('Queue pass failed; retrying', { error: err.message });
          return false;
        })
        .then((busy) => {
          this.running = null;
          this.arm(busy ? BUSY_POLL_MS : IDLE_POLL_MS);
        });
    }, ms);
  }

  /** One pass over every non-empty queue. Returns true when there is still work waiting. */
  async pass(): Promise<boolean> {
    if (!this.d.canDispatch()) return false;
    const names = await this.d.queue.queues();
    if (names.length === 0 && this.inFlight.size === 0) return false;
    const dags = new Map((await this.d.catalog.load()).map((g) => [g.name, g]));
    const active = await this.d.runs.listActive();
    let waiting = this.inFlight.size > 0;
    const byQueue = new Map<string, QueueItem[]>();
    for (const name of names) byQueue.set(name, await this.d.queue.list(name));
    const queuedIds = new Set([...byQueue.values()].flat().map((i) => i.run_id));
    for (const [name, items] of byQueue) {
      if (items.length === 0) continue;
      waiting = true;
      // Active runs of this queue that are not queue items are running (or starting).
      const runningIds = active
        .filter((a) => a.queue === name && !queuedIds.has(a.run_id))
        .map((a) => a.run_id);
      const inFlightHere = [...this.inFlight.entries()].filter(
        ([id, f]) => f.queue === name && !runningIds.includes(id),
      );
      let free = this.limitOf(name, dags) - runningIds.length - inFlightHere.length;
      for (const item of items) {
        if (this.inFlight.has(item.run_id)) continue;
        if (free <= 0) {
          // A full queue still drops a head catch-up that overlap_policy `skip` says not to run: its DAG
          // is running right now, which is often why the queue is full.
          if (await this.startItem(item, dags, active, queuedIds, { onlySkip: true })) continue;
          break;
        }
        if (await this.startItem(item, dags, active, queuedIds)) free--;
      }
    }
    return waiting;
  }

  private limitOf(queue: string, dags: Map<string, DagSpec>): number {
    const configured = this.d.queues.find((q) => q.name === queue);
    if (configured) return configured.max_concurrency;
    const dag = dags.get(queue);
    return dag ? Math.max(1, dag.max_active_runs) : 1;
  }

  /**
   * Starts one item's run; returns true when it took a slot of the queue. With `onlySkip` it only drops a
   * catch-up that overlap_policy `skip` rules out, and returns true when it did.
   */
  private async startItem(
    item: QueueItem,
    dags: Map<string, DagSpec>,
    active: Array<{ run_id: string; dag_name: string }>,
    queuedIds: Set<string>,
    opts: { onlySkip?: boolean } = {},
  ): Promise<boolean> {
    const log = this.d.logger.child({ dag: item.dag_name, run_id: item.run_id, queue: item.queue });
    const r = await this.d.runs.readStatus(item.run_id);
    if (r.kind === 'missing') {
      log.warn('Queue item points to a run that does not exist; removing the item');
      await this.d.queue.dequeue(item.queue, item.run_id);
      return false;
    }
    if (r.kind === 'corrupt') {
      log.error('Queued run has an unreadable status file; leaving it queued', {
        path: r.path,
        error: r.error,
      });
      return false;
    }
    const status = r.status;
    if (status.status !== 'queued') {
      await this.d.queue.dequeue(item.queue, item.run_id);
      return false;
    }
    const dag = dags.get(status.dag_name);
    if (!dag) {
      log.error('Queued run of a DAG that no longer exists or is invalid; leaving it queued');
      return false;
    }
    if (status.trigger_type === 'catchup' && dag.overlap_policy === 'skip') {
      const busy = active.some(
        (a) => a.dag_name === dag.name && a.run_id !== status.run_id && !queuedIds.has(a.run_id),
      );
      if (busy) {
        if (!this.d.canDispatch()) return false;
        await this.abortQueued(status, 'skipped: the DAG was still running (overlap_policy: skip)');
        await this.d.queue.dequeue(item.queue, item.run_id);
        return opts.onlySkip === true;
      }
    }
    if (opts.onlySkip || !this.d.canDispatch()) return false;
    const { pid } = this.d.launch({
      dagName: dag.name,
      dagFile: dag.file,
      runId: status.run_id,
      triggerType: status.trigger_type,
      scheduleTime: status.schedule_time,
      processLog: `${this.d.runs.logDir(dag.name, status.run_id, status.attempt)}/process.log`,
      propagateSignals: dag.signal_handling.enable_propagation,
    });
    log.info('Started a queued run', { pid, trigger_type: status.trigger_type });
    this.inFlight.set(status.run_id, { queue: item.queue, sinceMono: this.d.clock.monoMs() });
    void this.watchStart(item).catch((err: Error) =>
      log.error('Watching a run start failed', { error: err.message }),
    );
    return true;
  }

  /** Dequeues the item once the run has left `queued`; gives the slot back if it never does. */
  private async watchStart(item: QueueItem): Promise<void> {
    const started = this.inFlight.get(item.run_id)!.sinceMono;
    while (!this.stopped) {
      await new Promise<void>((res) => this.d.timers.setTimeout(res, 50));
      const r = await this.d.runs.readStatus(item.run_id);
      if (r.kind === 'ok' && r.status.status !== 'queued') {
        await this.d.queue.dequeue(item.queue, item.run_id);
        break;
      }
      if (this.d.clock.monoMs() - started > START_TIMEOUT_MS) {
        this.d.logger.warn('A queued run did not start in time; it stays queued and will be offered again', {
          run_id: item.run_id,
        });
        break;
      }
    }
    this.inFlight.delete(item.run_id);
  }

  private async abortQueued(status: RunStatus, reason: string) {
    const now = isoUtc(this.d.clock.nowMs());
    await this.d.runs.writeStatus({
      ...status,
      status: 'aborted',
      finished_at: now,
      error: reason,
      conditions: [],
    });
    await this.d.runs.unmarkActive(status.run_id);
    this.d.logger.info('Dropped a queued catch-up run', { run_id: status.run_id, reason });
  }
}
