// The scheduler's tick loop: at each slot boundary it creates one run per due slot (run ID derived from the
// slot, created exclusively, so a slot never runs twice) and starts it as a detached process.

import { isoUtc, newRunStatus } from '../core/runStatus';
import { slotRunId } from '../core/runId';
import { nextWake, planCatchup, planTick, type PlannedSlot } from '../core/tickPlan';
import type { Clock, Logger, Timers, TimerHandle } from '../core/ports';
import type { DagSpec } from '../core/types';
import { MINUTE, SECOND } from '../core/units';
import type { QueueStore, RunStore } from '../store/types';
import type { DagCatalogCache } from './dagCatalogCache';
import type { Launcher } from './launcher';
import type { SchedulerState, SchedulerStateFile } from './schedulerState';

/** Longest sleep between ticks, so that new or edited DAG files are picked up without a watcher. */
const MAX_IDLE_MS = 5 * SECOND;

/** How long a slot whose record could not be created keeps being retried. */
const RETRY_HORIZON_MS = 2 * MINUTE;

export interface CronLoopDeps {
  dataDir: string;
  clock: Clock;
  timers: Timers;
  logger: Logger;
  runs: RunStore;
  queue: QueueStore;
  catalog: DagCatalogCache;
  stateFile: SchedulerStateFile;
  launch: Launcher;
  queuesEnabled: boolean;
  /** Fencing check, called synchronously right before every dispatch (always true without HA). */
  canDispatch: () => boolean;
}

export type DispatchOutcome = 'started' | 'exists' | 'busy' | 'fenced' | 'failed' | 'queued';

export class CronLoop {
  private state: SchedulerState | null = null;
  private lastTickMs = 0;
  private timer: TimerHandle | null = null;
  private stopped = false;
  private ticking: Promise<void> | null = null;
  /** Slots whose dispatch failed on storage errors; retried on the next tick. */
  private retry: PlannedSlot[] = [];

  constructor(private readonly d: CronLoopDeps) {}

  /**
   * Starts ticking. The first tick plans the slots of the current minute; before it, DAGs with a
   * `catchup_window` get their missed slots queued as catch-up runs.
   */
  async start(): Promise<void> {
    this.state = await this.d.stateFile.read();
    const now = this.d.clock.nowMs();
    const minuteStart = Math.floor(now / MINUTE) * MINUTE;
    this.lastTickMs = minuteStart - 1;
    await this.replayCatchup(now, minuteStart);
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) this.d.timers.clearTimeout(this.timer);
    await this.ticking;
  }

  private schedule(delayMs: number) {
    if (this.stopped) return;
    this.timer = this.d.timers.setTimeout(() => {
      this.ticking = this.tick().finally(() => (this.ticking = null));
    }, delayMs);
  }

  /** One tick: plan slots since the last tick, dispatch them, persist progress, arm the next wake-up. */
  async tick(): Promise<void> {
    let dags: DagSpec[] = [];
    const now = this.d.clock.nowMs();
    try {
      dags = await this.d.catalog.load();
      // Read what is active before consuming the window: if it cannot be read, nothing is created and
      // the same slots are planned again on the next tick.
      const activeDags = await this.activeDagNames();
      const due = [
        ...this.retry.filter((p) => now - p.slotMs <= RETRY_HORIZON_MS),
        ...planTick(dags, this.lastTickMs, now),
      ];
      for (const p of this.retry)
        if (now - p.slotMs > RETRY_HORIZON_MS)
          this.d.logger.error('Gave up on a slot whose run record could not be created', {
            dag: p.dag,
            slot: isoUtc(p.slotMs),
          });
      this.retry = [];
      this.lastTickMs = Math.max(this.lastTickMs, now);
      const byName = new Map(dags.map((g) => [g.name, g]));
      for (const p of due) {
        const dag = byName.get(p.dag);
        if (!dag) continue;
        const outcome = await this.dispatchSlot(dag, p.slotMs, activeDags);
        if (outcome === 'failed') this.retry.push(p);
        else this.noteSlot(dag.name, p.slotMs);
      }
      if (due.length > 0 && this.state) {
        this.state.last_tick_ms = now;
        await this.d.stateFile.write(this.state);
      }
    } catch (err) {
      this.d.logger.error('Scheduler tick failed; retrying', { error: (err as Error).message });
    }
    const after = this.d.clock.nowMs();
    const wake = nextWake(dags, Math.max(after, this.lastTickMs));
    const delay = wake === null ? MAX_IDLE_MS : Math.min(MAX_IDLE_MS, wake - after);
    this.schedule(this.retry.length > 0 ? Math.min(delay, SECOND) : delay);
  }

  /** Creates the slot's run record exclusively and starts its process. */
  async dispatchSlot(dag: DagSpec, slotMs: number, activeDags: Set<string>): Promise<DispatchOutcome> {
    const runId = slotRunId(this.d.dataDir, dag.name, slotMs);
    const log = this.d.logger.child({ dag: dag.name, run_id: runId });
    if (activeDags.has(dag.name)) {
      log.info('Skipped a slot: the previous run of this DAG is still active', { slot: isoUtc(slotMs) });
      return 'busy';
    }
    if (!this.d.canDispatch()) return 'fenced';
    const status = newRunStatus({
      dag,
      runId,
      status: 'queued',
      triggerType: 'scheduler',
      scheduleTime: isoUtc(slotMs),
      params: [],
      nowIso: isoUtc(this.d.clock.nowMs()),
    });
    try {
      const created = await this.d.runs.createRun(status);
      if (!created.created) {
        log.debug('Slot already has a run', { slot: status.schedule_time });
        return 'exists';
      }
      await this.d.runs.markActive({ run_id: runId, dag_name: dag.name, queue: dag.queue });
    } catch (err) {
      log.error('Could not create the run record of a slot; will retry', { error: (err as Error).message });
      return 'failed';
    }
    if (!this.d.canDispatch()) return 'fenced';
    const { pid } = this.d.launch({
      dagName: dag.name,
      dagFile: dag.file,
      runId,
      triggerType: 'scheduler',
      scheduleTime: status.schedule_time,
      processLog: `${this.d.runs.logDir(dag.name, runId, 1)}/process.log`,
    });
    activeDags.add(dag.name);
    log.info('Started a scheduled run', { slot: status.schedule_time, pid });
    return 'started';
  }

  /** Queues catch-up runs for DAGs with a `catchup_window`, under their overlap policy. */
  private async replayCatchup(nowMs: number, beforeMs: number): Promise<void> {
    let dags: DagSpec[];
    try {
      dags = await this.d.catalog.load();
    } catch (err) {
      this.d.logger.error('Could not load DAGs for catch-up', { error: (err as Error).message });
      return;
    }
    for (const dag of dags) {
      if (dag.catchup_window_ms <= 0 || dag.schedule.length === 0) continue;
      if (!this.d.queuesEnabled) {
        this.d.logger.warn('Catch-up skipped: queues are disabled (queues.enabled: false)', {
          dag: dag.name,
        });
        continue;
      }
      const slots = planCatchup(dag, {
        lastSlotMs: this.state?.dags[dag.name]?.last_slot_ms ?? this.state?.last_tick_ms ?? null,
        windowMs: dag.catchup_window_ms,
        nowMs,
        beforeMs,
      });
      for (const slotMs of slots) {
        if ((await this.enqueueCatchup(dag, slotMs)) !== 'failed') this.noteSlot(dag.name, slotMs);
      }
    }
  }

  /** Queues one missed slot as a catch-up run with the slot's own run ID (a live run of it wins). */
  async enqueueCatchup(dag: DagSpec, slotMs: number): Promise<DispatchOutcome> {
    const runId = slotRunId(this.d.dataDir, dag.name, slotMs);
    if (!this.d.canDispatch()) return 'fenced';
    const status = newRunStatus({
      dag,
      runId,
      status: 'queued',
      triggerType: 'catchup',
      scheduleTime: isoUtc(slotMs),
      params: [],
      nowIso: isoUtc(this.d.clock.nowMs()),
    });
    try {
      const created = await this.d.runs.createRun(status);
      if (!created.created) return 'exists';
      await this.d.runs.markActive({ run_id: runId, dag_name: dag.name, queue: dag.queue });
      await this.d.queue.enqueue({
        queue: dag.queue,
        run_id: runId,
        dag_name: dag.name,
        enqueued_at: status.created_at,
      });
    } catch (err) {
      this.d.logger.error('Could not queue a catch-up run', {
        dag: dag.name,
        run_id: runId,
        error: (err as Error).message,
      });
      return 'failed';
    }
    this.d.logger.info('Queued a catch-up run for a missed slot', {
      dag: dag.name,
      run_id: runId,
      slot: status.schedule_time,
    });
    return 'queued';
  }

  private noteSlot(dag: string, slotMs: number) {
    if (!this.state) return;
    const prev = this.state.dags[dag]?.last_slot_ms ?? 0;
    if (slotMs > prev) this.state.dags[dag] = { last_slot_ms: slotMs };
  }

  /** Names of DAGs with a queued or running run; a failed read counts every DAG as busy (fail closed). */
  private async activeDagNames(): Promise<Set<string>> {
    const names = new Set<string>();
    const active = await this.d.runs.listActive();
    for (const a of active) names.add(a.dag_name);
    return names;
  }
}
