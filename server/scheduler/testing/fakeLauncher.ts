// A Launcher for the scheduling loops' unit tests: records every launch and plays the run process on the fake
// clock (claim the attempt, write `running`, later a terminal state), as `dagu start --run-id` does.

import type { Clock, Timers } from '../../core/ports';
import { isoUtc } from '../../core/runStatus';
import type { RunState } from '../../core/types';
import type { RunStore } from '../../store/types';
import type { LaunchRequest, Launcher } from '../launcher';

/** What each launched run process does on the fake clock. */
export interface FakeRunScript {
  /** Delay before the process claims the run and writes `running`. */
  startAfterMs: number;
  /** How long it then runs; null: it keeps running until the test calls `finish`. */
  runForMs: number | null;
  outcome: RunState;
}

/** Host name the fake run processes write into their status. */
export const FAKE_RUN_HOST = 'run-host';

export class FakeLauncher {
  readonly launches: LaunchRequest[] = [];
  /** The script of the next launched processes; null: they die before taking the run over. */
  script: FakeRunScript | null = { startAfterMs: 20, runForMs: null, outcome: 'succeeded' };

  constructor(
    private readonly runs: RunStore,
    private readonly clock: Clock,
    private readonly timers: Timers,
  ) {}

  /** Runs whose launch throws, as when the process log cannot be created (EIO on the log volume). */
  readonly failing = new Set<string>();
  /** Launches refused because the fence had closed by the time the process would start. */
  readonly fenced: LaunchRequest[] = [];

  /** Called as each launch begins, before anything else: what a test wants to see at that moment. */
  onLaunch: ((req: LaunchRequest) => void) | null = null;
  /** How long a launch prepares (the real one creates the process log) before it asks the fence and starts. */
  prepareMs = 0;
  /** Launches being prepared right now, and the most there ever were at once. */
  preparing = 0;
  mostPreparing = 0;

  readonly launch: Launcher = async (req) => {
    this.onLaunch?.(req);
    if (this.prepareMs > 0) {
      this.mostPreparing = Math.max(this.mostPreparing, ++this.preparing);
      await new Promise<void>((r) => this.timers.setTimeout(r, this.prepareMs));
      this.preparing--;
    }
    if (this.failing.has(req.runId)) throw new Error(`EIO: i/o error, open '${req.processLog}'`);
    // As the real launcher: the fence is asked again after the (here instant) preparation.
    if (req.stillAllowed && !req.stillAllowed()) {
      this.fenced.push(req);
      return { pid: undefined, fenced: true };
    }
    this.launches.push(req);
    const pid = 4000 + this.launches.length;
    const script = this.script;
    if (script) {
      this.timers.setTimeout(() => {
        void this.start(req.runId, pid).then((claimed) => {
          if (claimed && script.runForMs !== null)
            this.timers.setTimeout(() => void this.finish(req.runId, script.outcome), script.runForMs);
        });
      }, script.startAfterMs);
    }
    return { pid };
  };

  /** Run IDs in launch order. */
  runIds(): string[] {
    return this.launches.map((l) => l.runId);
  }

  /** The run process takes the queued run over; false when another process had claimed it first. */
  async start(runId: string, pid = 4000): Promise<boolean> {
    const r = await this.runs.readStatus(runId);
    if (r.kind !== 'ok' || r.status.status !== 'queued') return false;
    if (!(await this.runs.claimAttempt(runId, r.status.attempt, `${FAKE_RUN_HOST}:${pid}`))) return false;
    const s = r.status;
    await this.runs.markActive({ run_id: runId, dag_name: s.dag_name, queue: s.queue });
    const now = this.clock.nowMs();
    await this.runs.writeStatus({
      ...s,
      status: 'running',
      started_at: isoUtc(now),
      pid,
      host: FAKE_RUN_HOST,
    });
    await this.runs.writeHeartbeat(runId, s.attempt, now);
    return true;
  }

  /** The run process ends with `outcome` and drops the run's active marker. */
  async finish(runId: string, outcome: RunState = 'succeeded'): Promise<void> {
    const r = await this.runs.readStatus(runId);
    if (r.kind !== 'ok') return;
    await this.runs.writeStatus({ ...r.status, status: outcome, finished_at: isoUtc(this.clock.nowMs()) });
    await this.runs.unmarkActive(runId);
  }
}
