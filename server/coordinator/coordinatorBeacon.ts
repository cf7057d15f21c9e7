// Keeps this coordinator's liveness record fresh in the data directory, so that every process sharing it can
// tell whether a coordinator is alive: dispatchers refuse while none is, and the active scheduler then fails
// expired holds itself. A clean stop says so in the record, which makes the coordinator gone at once.

import { beaconIntervalMs } from '../core/coordinatorPresence';
import type { Clock, Logger, TimerHandle, Timers } from '../core/ports';
import type { CoordinatorRecord, CoordinatorRegistry } from '../store/dispatchTypes';

export interface CoordinatorBeaconDeps {
  registry: CoordinatorRegistry;
  clock: Clock;
  timers: Timers;
  logger: Logger;
  identity: { coordinator_id: string; host: string; pid: number };
  /**
   * How long the record stays fresh after each refresh (`coordinator.worker_stale_threshold`: a coordinator
   * silent for as long as a worker counts as gone is gone). Refreshed three times within it.
   */
  freshForMs: number;
}

export class CoordinatorBeacon {
  private timer: TimerHandle | null = null;
  private stopped = true;
  private startedAtMs = 0;
  private url = '';
  /** The write in flight: a stalled disk never stacks a second one behind it. */
  private writing: Promise<void> | null = null;
  private failing = false;

  constructor(private readonly d: CoordinatorBeaconDeps) {}

  /** Writes the record (a failure is logged and retried at the next refresh) and keeps it fresh. */
  async start(url: string): Promise<void> {
    this.stopped = false;
    this.url = url;
    this.startedAtMs = this.d.clock.nowMs();
    await this.refresh();
  }

  /** Stops refreshing and marks the record stopped, after any write in flight. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) this.d.timers.clearTimeout(this.timer);
    this.timer = null;
    await this.writing;
    const now = this.d.clock.nowMs();
    await this.d.registry.put(this.record(now, now)).catch((err: unknown) =>
      // Without the mark the record simply goes stale after freshForMs.
      this.d.logger.warn('Could not mark the coordinator stopped in its liveness record', {
        error: err instanceof Error ? err.message : String(err),
      }),
    );
  }

  private async refresh(): Promise<void> {
    if (this.stopped) return;
    this.writing = this.d.registry.put(this.record(this.d.clock.nowMs(), null)).then(
      () => {
        if (this.failing) this.d.logger.info('Refreshed the coordinator liveness record again');
        this.failing = false;
      },
      (err: unknown) => {
        if (!this.failing) {
          this.d.logger.error(
            'Could not refresh the coordinator liveness record; other processes may count no coordinator alive',
            { error: err instanceof Error ? err.message : String(err) },
          );
        }
        this.failing = true;
      },
    );
    await this.writing;
    this.writing = null;
    if (this.stopped) return;
    this.timer = this.d.timers.setTimeout(() => {
      this.timer = null;
      void this.refresh();
    }, beaconIntervalMs(this.d.freshForMs));
  }

  private record(nowMs: number, stoppedAtMs: number | null): CoordinatorRecord {
    return {
      version: 1,
      ...this.d.identity,
      url: this.url,
      started_at_ms: this.startedAtMs,
      last_seen_ms: nowMs,
      fresh_for_ms: this.d.freshForMs,
      stopped_at_ms: stoppedAtMs,
    };
  }
}
