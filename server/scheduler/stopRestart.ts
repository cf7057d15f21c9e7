// `schedule: {stop, restart}`: at a stop slot the DAG's running runs are asked to stop; at a restart slot they
// are stopped too and, once none is active any more (at most RESTART_WAIT_LIMIT_MS later) and after the DAG's
// `restart_wait_sec`, a new run starts for the slot, as `dagu restart` would. Start slots stay the cron loop's.
// Slots missed while no scheduler was active are not replayed: stopping or restarting late is rarely what a
// stop time meant.

import type { Clock, Logger, Timers } from '../core/ports';
import { TimerLoop } from '../core/timerLoop';
import { isoUtc } from '../core/runStatus';
import { nextWake, planTick } from '../core/tickPlan';
import type { DagSpec } from '../core/types';
import { MINUTE, SECOND } from '../core/units';
import type { RunStore } from '../store/types';

/** How long a restart waits for the stopped runs to end before it gives up on that slot. */
export const RESTART_WAIT_LIMIT_MS = 10 * MINUTE;
const POLL_MS = SECOND;
const MAX_IDLE_MS = MINUTE;

export interface StopRestartDeps {
  catalog: { load(): Promise<DagSpec[]> };
  runs: Pick<RunStore, 'listActive' | 'readStatus'>;
  clock: Clock;
  timers: Timers;
  logger: Logger;
  canDispatch: () => boolean;
  /** Asks a run to stop (a signal on this host, a cancel on the workers); rejects when it cannot. */
  stopRun: (runId: string) => Promise<void>;
  /** Starts the run of a restart slot, as a scheduled slot is started. */
  startSlot: (dag: DagSpec, slotMs: number) => Promise<unknown>;
}

interface PendingRestart {
  dag: string;
  slotMs: number;
  /** When the slot's runs were asked to stop. */
  sinceMs: number;
  /** Whether a run was stopped: only then is `restart_wait_sec` waited. */
  stoppedAny: boolean;
}

export class StopRestartSchedules {
  private lastTickMs: number;
  private pending: PendingRestart[] = [];
  private readonly loop: TimerLoop;

  constructor(private readonly d: StopRestartDeps) {
    this.lastTickMs = d.clock.nowMs();
    this.loop = new TimerLoop({
      timers: d.timers,
      pass: () => this.tick(),
      // tick() logs its own failures; this is only reached if working out the next wake-up threw.
      onError: (err) => {
        this.d.logger.error('Stop/restart schedule tick failed', { error: (err as Error).message });
        return POLL_MS;
      },
    });
  }

  start(): void {
    this.lastTickMs = this.d.clock.nowMs();
    this.loop.start(0);
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** One pass over the stop and restart slots, whatever it met; returns the delay to the next. */
  private async tick(): Promise<number> {
    const now = this.d.clock.nowMs();
    let dags: DagSpec[] = [];
    try {
      dags = await this.d.catalog.load();
      await this.act(dags, now);
    } catch (err) {
      this.d.logger.error('Stop/restart schedule tick failed', { error: (err as Error).message });
    }
    const wake = nextWake(
      [...asStarts(dags, 'stop_schedule'), ...asStarts(dags, 'restart_schedule')],
      Math.max(this.d.clock.nowMs(), this.lastTickMs),
    );
    const idle = wake === null ? MAX_IDLE_MS : Math.min(MAX_IDLE_MS, wake - this.d.clock.nowMs());
    return this.pending.length > 0 ? Math.min(POLL_MS, idle) : Math.max(0, idle);
  }

  /** Acts on the stop and restart slots due since the last pass, then on pending restarts. */
  private async act(dags: DagSpec[], now: number): Promise<void> {
    const byName = new Map(dags.map((g) => [g.name, g]));
    const stops = planTick(asStarts(dags, 'stop_schedule'), this.lastTickMs, now);
    const restarts = planTick(asStarts(dags, 'restart_schedule'), this.lastTickMs, now);
    this.lastTickMs = Math.max(this.lastTickMs, now);
    if (!this.d.canDispatch()) return;
    for (const slot of [...stops, ...restarts]) {
      const isRestart = restarts.includes(slot);
      const stoppedAny = await this.stopRunning(slot.dag, isRestart ? 'restart' : 'stop', slot.slotMs);
      if (isRestart) {
        this.pending = this.pending.filter((p) => p.dag !== slot.dag);
        this.pending.push({ dag: slot.dag, slotMs: slot.slotMs, sinceMs: now, stoppedAny });
      }
    }
    await this.startRestarts(byName, now);
  }

  /** Asks every running run of the DAG to stop; true if there was one. */
  private async stopRunning(dagName: string, why: 'stop' | 'restart', slotMs: number): Promise<boolean> {
    const log = this.d.logger.child({ dag: dagName });
    let any = false;
    for (const a of await this.d.runs.listActive()) {
      if (a.dag_name !== dagName) continue;
      const read = await this.d.runs.readStatus(a.run_id);
      if (read.kind !== 'ok' || read.status.status !== 'running') continue;
      any = true;
      try {
        await this.d.stopRun(a.run_id);
        log.info(`Stopping a run at its ${why} schedule`, { run_id: a.run_id, slot: isoUtc(slotMs) });
      } catch (err) {
        log.warn(`Could not stop a run at its ${why} schedule`, {
          run_id: a.run_id,
          error: (err as Error).message,
        });
      }
    }
    return any;
  }

  /** Starts each pending restart whose DAG has no active run left and whose restart_wait_sec has passed. */
  private async startRestarts(byName: Map<string, DagSpec>, now: number): Promise<void> {
    if (this.pending.length === 0) return;
    const active = new Set((await this.d.runs.listActive()).map((a) => a.dag_name));
    const keep: PendingRestart[] = [];
    for (const p of this.pending) {
      const dag = byName.get(p.dag);
      if (!dag) continue;
      if (active.has(p.dag)) {
        if (now - p.sinceMs > RESTART_WAIT_LIMIT_MS) {
          this.d.logger.warn('Gave up a restart: the stopped run did not end', { dag: p.dag });
        } else keep.push(p);
        continue;
      }
      const waitMs = (dag.restart_wait_sec ?? 0) * SECOND;
      if (p.stoppedAny && now < p.sinceMs + waitMs) {
        keep.push(p);
        continue;
      }
      this.d.logger.info('Starting the run of a restart schedule', { dag: p.dag, slot: isoUtc(p.slotMs) });
      await this.d.startSlot(dag, p.slotMs).catch((err: Error) =>
        this.d.logger.error('Could not start the run of a restart schedule', {
          dag: p.dag,
          error: err.message,
        }),
      );
    }
    this.pending = keep;
  }
}

/** The DAGs with their stop (or restart) slots in place of their start slots, for the slot planner. */
function asStarts(dags: readonly DagSpec[], key: 'stop_schedule' | 'restart_schedule'): DagSpec[] {
  return dags.filter((g) => (g[key] ?? []).length > 0).map((g) => ({ ...g, schedule: g[key]! }));
}
