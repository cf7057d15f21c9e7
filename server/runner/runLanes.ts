// Run lanes: processes that take one queued run after another, so that a queue with a backlog does not pay
// for a new run process per run (a Node start-up, the CLI loaded, and on PostgreSQL a client loaded and a
// connection opened, which is most of what a short run costs). The scheduler starts a lane when a queue has
// more runs waiting than it may start; the lane connects back over a local socket and the scheduler hands it
// runs there, each as a run host would run it (server/cli/runLane.ts).
//
// What keeps a lane as safe as a process per run:
// - each run is a hosted run (cli/runHost.ts): its own status, heartbeat, process log and stop channel, and
//   it records the lane's pid, so a lane that dies leaves runs the dead-run check ends;
// - a lane runs only the build on disk: the build it loaded is compared with the build on disk before every
//   run it is given, and a lane of an older build is given nothing more;
// - it is given a run only after the fencing check, right before the hand-over, as a spare is;
// - it holds at most `runsPerLane` runs at once and takes at most LANE_LIFETIME_RUNS in its life (each run
//   keeps its process log's descriptor until the lane exits), and it is let go after LANE_IDLE_MS without a
//   run: an idle scheduler holds no lane;
// - when the scheduler lets it go or goes away (the connection ends), it takes no more runs, finishes those
//   it has and exits: runs outlive the scheduler that started them. A run handed over in a message the lane
//   never read stays queued and is offered again (queueProcessor's start timeout);
// - a run may wait for a lane that is still starting (assign's `whenStarting`), rather than pay for a
//   process of its own that would be ready no sooner: it is handed over, after the same build and fencing
//   checks, once the lane connects back, and given back to its caller (`notHanded`) if it is not.

import { unlink } from 'node:fs/promises';
import type { Socket } from 'node:net';
import type { Logger } from '../core/ports';
import type { LaunchRelay } from './launchRelay';
import { firstLine, LocalSocket } from './localSocket';
import { startHelper, watchConnectBack } from './localProcess';
import type { HostedRun } from './runHostCommand';
import { parseLaneDone, parseLaneHello, RUN_LANE_COMMAND } from './runLaneCommand';

/** A lane with nothing to run for this long is let go. */
export const LANE_IDLE_MS = 2000;

/** The most runs one lane takes in its life; then it finishes them and exits, and a new one is started. */
export const LANE_LIFETIME_RUNS = 100;

export interface LaneSettings {
  executable: string;
  env: NodeJS.ProcessEnv;
  /** Starts the lanes when given (the scheduler's relay); else they are spawned from this process. */
  relay: LaunchRelay | null;
  /** Where a lane's own output goes (not its runs'): a file per lane, removed when empty. */
  logDir: string;
  /** The build a `dagu` process started now would run; null when it cannot be told (no lane is used). */
  currentBuild: () => Promise<string | null>;
  logger: Logger;
  /** The most lanes at once (run.lanes). */
  maxLanes: number;
  /** The most runs one lane runs at once. */
  runsPerLane: number;
  idleMs?: number;
  lifetimeRuns?: number;
  /** How long a started lane may take to connect back before it is taken for dead (ms). */
  connectTimeoutMs?: number;
}

type LaneState = 'starting' | 'ready' | 'retired';

interface Lane {
  pid: number;
  token: string;
  /** The build on disk when it was started; replaced by the build it says it loaded. */
  build: string;
  log: string;
  socket: Socket | null;
  state: LaneState;
  /** Runs handed to it (or being handed) that have not ended. */
  running: Set<string>;
  /** Runs it was given in its life. */
  given: number;
  /** Runs waiting for it to connect back, to be handed over then (each counted in `running` and `given`). */
  waiting: WaitingRun[];
  idleTimer: ReturnType<typeof setTimeout> | null;
  connectTimer: ReturnType<typeof setInterval> | null;
}

interface WaitingRun {
  run: HostedRun;
  stillAllowed: () => boolean;
  notHanded: () => void;
}

/** How a hand-over went: the lane's pid, `fenced` (nothing handed over), or null (no lane could take it). */
export type LaneOutcome = { pid: number; fenced?: false } | { pid: undefined; fenced: true } | null;

export class RunLanes {
  private readonly lanes = new Set<Lane>();
  /** `off` after a lane died unexpectedly or the build cannot be told: runs get processes of their own. */
  private mode: 'on' | 'off' | 'closed' = 'on';
  private readonly listener = new LocalSocket('dagu-lanes-', (socket) => this.onConnection(socket));
  private starting: Promise<void> | null = null;
  /**
   * Runs a lane did not take after they were promised to it: the next time such a run is launched it gets
   * a process of its own, so that a run is never promised again and again to lanes that cannot take it (a
   * lane of another build, started anew for each run).
   */
  private readonly givenBack = new Set<string>();

  constructor(private readonly o: LaneSettings) {}

  /** The pids of the lanes started and not let go (for tests and the bench). */
  pids(): number[] {
    return [...this.lanes].filter((l) => l.state !== 'retired').map((l) => l.pid);
  }

  /**
   * A queue has more runs waiting than it may start now: starts a lane in the background unless one is
   * starting, one has room for another run, or there are `maxLanes` already. Never rejects.
   */
  want(): void {
    if (this.mode !== 'on' || this.starting) return;
    const live = [...this.lanes].filter((l) => l.state !== 'retired');
    if (live.length >= this.o.maxLanes) return;
    if (live.some((l) => l.state === 'starting' || this.hasRoom(l))) return;
    this.starting = this.startLane()
      .catch((err: Error) => {
        this.turnOff();
        this.o.logger.error('Could not start a run lane; queued runs get processes of their own', {
          error: err.message,
        });
      })
      .finally(() => (this.starting = null));
  }

  /**
   * Hands `run` to a lane with room for it; `stillAllowed` is asked right before the hand-over (the fencing
   * check). Null when no lane can take it: the caller starts the run in a process of its own.
   *
   * With `whenStarting`, a lane still starting may take it too: the run is promised to it and the lane's
   * pid returned now; it is handed over once the lane connects back, and `notHanded` is called if it never
   * is (the lane did not come, its build is not the one on disk, or the fence had closed by then).
   */
  async assign(
    run: HostedRun,
    stillAllowed: () => boolean,
    whenStarting?: { notHanded: () => void },
  ): Promise<LaneOutcome> {
    if (this.mode !== 'on') return null;
    const candidates = [...this.lanes].filter((l) => this.hasRoom(l));
    if (candidates.length === 0) return whenStarting ? this.promise(run, stillAllowed, whenStarting) : null;
    // The least busy: the runs spread over the lanes, and with them over the cores.
    const lane = candidates.reduce((a, b) => (b.running.size < a.running.size ? b : a));
    // Reserved at once: another launch meanwhile counts this run.
    lane.running.add(run.runId);
    lane.given++;
    this.clearIdle(lane);
    const handed = await this.handOver(lane, run, stillAllowed);
    if (handed === null || handed.fenced) {
      lane.running.delete(run.runId);
      lane.given--;
      this.maybeIdle(lane);
    }
    return handed;
  }

  /** Promises `run` to a lane that is starting and has room; null when none has. */
  private async promise(
    run: HostedRun,
    stillAllowed: () => boolean,
    o: { notHanded: () => void },
  ): Promise<LaneOutcome> {
    // A lane being spawned right now is a moment away from having a pid; a spawn that takes longer (a
    // stalled volume) does not hold up the caller: the run gets a process of its own.
    if (this.starting) await untilOrAfter(this.starting, SPAWN_WAIT_MS);
    if (this.mode !== 'on') return null;
    if (this.givenBack.delete(run.runId)) return null;
    // Promised already, to a lane that has not come yet (the queue offered the run again after its start
    // timeout): a process of its own, rather than a second promise the same lane would keep twice.
    if ([...this.lanes].some((l) => l.waiting.some((w) => w.run.runId === run.runId))) return null;
    const lane = [...this.lanes].find(
      (l) =>
        l.state === 'starting' &&
        l.running.size < this.o.runsPerLane &&
        l.given < (this.o.lifetimeRuns ?? LANE_LIFETIME_RUNS),
    );
    if (!lane) return null;
    if (!stillAllowed()) return { pid: undefined, fenced: true };
    lane.running.add(run.runId);
    lane.given++;
    lane.waiting.push({ run, stillAllowed, notHanded: o.notHanded });
    return { pid: lane.pid };
  }

  /** The lane connected back: the runs promised to it are handed over, in the order they came. */
  private async handOverWaiting(lane: Lane): Promise<void> {
    const waiting = lane.waiting.splice(0);
    for (const w of waiting) {
      const handed = await this.handOver(lane, w.run, w.stillAllowed).catch(() => null);
      if (handed === null || handed.fenced) this.giveBack(lane, w);
    }
    this.maybeIdle(lane);
  }

  /** A promised run that the lane will not get: its caller offers it again. */
  private giveBack(lane: Lane, w: WaitingRun): void {
    lane.running.delete(w.run.runId);
    lane.given--;
    this.givenBack.add(w.run.runId);
    // Kept small: a run given back is almost always launched again within a pass.
    if (this.givenBack.size > MAX_GIVEN_BACK) this.givenBack.delete(this.givenBack.values().next().value!);
    w.notHanded();
  }

  /** Lets every lane go (they finish their runs and exit) and starts no more. */
  close(): void {
    this.mode = 'closed';
    for (const lane of this.lanes) this.retire(lane);
    this.listener.close();
  }

  private hasRoom(lane: Lane): boolean {
    return (
      lane.state === 'ready' &&
      connected(lane) &&
      lane.running.size < this.o.runsPerLane &&
      lane.given < (this.o.lifetimeRuns ?? LANE_LIFETIME_RUNS)
    );
  }

  private async handOver(lane: Lane, run: HostedRun, stillAllowed: () => boolean): Promise<LaneOutcome> {
    const build = await this.o.currentBuild().catch(() => null);
    if (build !== lane.build) {
      this.o.logger.info('Let a run lane go: the build on disk changed since it started', {
        pid: lane.pid,
        build: lane.build,
        build_on_disk: build,
      });
      this.retire(lane);
      return null;
    }
    if (lane.state !== 'ready' || !connected(lane)) return null;
    if (!stillAllowed()) return { pid: undefined, fenced: true };
    lane.socket!.write(`${JSON.stringify({ run })}\n`);
    // Its last run: it finishes what it has and exits; the next backlog starts a fresh lane.
    if (lane.given >= (this.o.lifetimeRuns ?? LANE_LIFETIME_RUNS)) this.retire(lane);
    return { pid: lane.pid };
  }

  private async startLane(): Promise<void> {
    const build = await this.o.currentBuild();
    if (build === null) {
      this.turnOff();
      this.o.logger.warn('Queued runs do not share run lanes: the build on disk cannot be told', {
        executable: this.o.executable,
      });
      return;
    }
    const started = await startHelper({
      ...this.o,
      command: RUN_LANE_COMMAND,
      logName: 'lane',
      socketPath: await this.listener.listen(),
      wanted: () => this.mode === 'on',
    });
    if (started === null) return;
    const { pid, log, token, argv } = started;
    if (pid === null) {
      await unlink(log).catch(() => undefined);
      throw new Error(`could not start ${argv.slice(1, 3).join(' ')}`);
    }
    const lane: Lane = {
      pid,
      token,
      build,
      log,
      socket: null,
      state: 'starting',
      running: new Set(),
      given: 0,
      waiting: [],
      idleTimer: null,
      connectTimer: null,
    };
    lane.connectTimer = watchConnectBack(
      pid,
      this.o.connectTimeoutMs ?? 60_000,
      () => lane.state === 'starting',
      (why) => {
        lane.connectTimer = null;
        this.onGone(lane, why);
      },
    );
    this.lanes.add(lane);
    if (this.mode !== 'on') this.retire(lane);
  }

  /** A lane connecting back: its first line says its token and build; anything else is dropped. */
  private onConnection(socket: Socket): void {
    firstLine(
      socket,
      (line) => {
        const hello = parseLaneHello(line);
        const lane = hello && [...this.lanes].find((l) => l.token === hello.token);
        if (!hello || !lane || lane.state !== 'starting') {
          socket.destroy();
          return;
        }
        if (lane.connectTimer) clearInterval(lane.connectTimer);
        lane.connectTimer = null;
        lane.socket = socket;
        // What it loaded, not what was on disk when it was started (a build may have landed in between).
        lane.build = hello.build ?? '';
        lane.state = 'ready';
        let text = '';
        socket.on('data', (d: string) => {
          text += d;
          for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n')) {
            const done = parseLaneDone(text.slice(0, nl));
            text = text.slice(nl + 1);
            if (done !== null) this.onDone(lane, done);
          }
          if (text.length > 4096) socket.destroy(); // not a lane of ours
        });
        socket.once('close', () => this.onGone(lane, 'its connection closed'));
        void this.handOverWaiting(lane);
      },
      400,
    );
  }

  private onDone(lane: Lane, runId: string): void {
    lane.running.delete(runId);
    this.maybeIdle(lane);
  }

  /** An open lane with no runs is let go after the idle time, unless it gets one meanwhile. */
  private maybeIdle(lane: Lane): void {
    if (lane.state !== 'ready' || lane.running.size > 0 || lane.idleTimer) return;
    lane.idleTimer = setTimeout(() => {
      lane.idleTimer = null;
      if (lane.running.size === 0) this.retire(lane);
    }, this.o.idleMs ?? LANE_IDLE_MS);
    lane.idleTimer.unref();
  }

  private clearIdle(lane: Lane): void {
    if (lane.idleTimer) clearTimeout(lane.idleTimer);
    lane.idleTimer = null;
  }

  /** Gives the lane nothing more: its connection ends, and it exits once its runs have. */
  private retire(lane: Lane): void {
    if (lane.state === 'retired') return;
    lane.state = 'retired';
    this.clearIdle(lane);
    if (lane.connectTimer) clearInterval(lane.connectTimer);
    lane.connectTimer = null;
    for (const w of lane.waiting.splice(0)) this.giveBack(lane, w);
    // One not connected yet finds no lane of its token when it connects, and exits.
    lane.socket?.end();
    if (!lane.socket) this.lanes.delete(lane);
  }

  /** A lane's connection ended, or it never came. */
  private onGone(lane: Lane, why: string): void {
    this.lanes.delete(lane);
    for (const w of lane.waiting.splice(0)) this.giveBack(lane, w);
    this.clearIdle(lane);
    if (lane.connectTimer) clearInterval(lane.connectTimer);
    lane.connectTimer = null;
    if (lane.state === 'retired' || this.mode === 'closed') return;
    lane.state = 'retired';
    // Its runs record its pid: the dead-run check ends those it did not finish.
    this.turnOff();
    this.o.logger.error(
      'A run lane exited unexpectedly; queued runs get processes of their own until the scheduler restarts',
      { pid: lane.pid, reason: why, runs: [...lane.running], log: lane.log },
    );
  }

  private turnOff(): void {
    if (this.mode === 'on') this.mode = 'off';
  }
}

/** Runs given back by lanes that are remembered (see RunLanes.givenBack). */
const MAX_GIVEN_BACK = 1000;

/** The longest a run waits for a lane being spawned to have a pid, before it is promised to it. */
const SPAWN_WAIT_MS = 100;

/** Waits for `p` to settle, or for `ms`, whichever comes first. */
async function untilOrAfter(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([p, new Promise<void>((res) => (timer = setTimeout(res, ms)))]);
  clearTimeout(timer);
}

function connected(lane: Lane): boolean {
  return lane.socket !== null && !lane.socket.destroyed && lane.socket.writable;
}
