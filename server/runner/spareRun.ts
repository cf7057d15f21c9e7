// Pre-started run processes: a spare `dagu` process starts Node ahead of time, connects back to the scheduler
// over a local socket and waits there for the arguments of one `dagu start`, then loads the CLI bundle (from
// its code cache, about 7 ms; bin/dagu does the waiting, so a waiting spare holds little more than Node), so
// a scheduled slot starts its first step without paying for Node's start-up. A spare whose
// scheduler goes away before assigning it (the socket closes) exits untouched. The spare is started through the launch
// relay when there is one (see launchRelay.ts): the scheduler never forks once its storage is in use.
//
// What keeps a spare as safe as a fresh process:
// - it runs only the build a fresh process would run: the build on disk is read when it starts and again
//   when it is given a run, and a spare whose build is no longer there is let go;
// - its output, a crash trace included, goes to a file from its first instruction: a file of its own while
//   it waits, which is renamed to the run's process log when it is given a run; a spare that dies while
//   waiting is reported in the scheduler's log with the end of that output, and no more spares are started.

import { open, rename, unlink } from 'node:fs/promises';
import type { Socket } from 'node:net';
import type { Logger } from '../core/ports';
import type { LaunchRelay } from './launchRelay';
import { firstLine, LocalSocket } from './localSocket';
import { startHelper, watchConnectBack } from './localProcess';
import { SPARE_COMMAND, type SpareAssignment } from './spareCommand';

/** What a pool needs besides the executable and environment of its run processes. */
export interface SpareSettings {
  /** Where a spare's output goes until it is given a run (a directory of its own under the logs). */
  logDir: string;
  /** The build a `dagu` process started now would run; null when it cannot be told (no spare is used). */
  currentBuild: () => Promise<string | null>;
  logger: Logger;
  /** Starts the spares when given (the scheduler's relay); else they are spawned from this process. */
  relay?: LaunchRelay | null;
  /** How long a started spare may take to connect back before it is taken for dead (ms). */
  connectTimeoutMs?: number;
}

/** A spare's life: loading, waiting, being given a run, running it, or let go without one. */
type SpareState = 'starting' | 'waiting' | 'claimed' | 'assigned' | 'released';

interface Spare {
  pid: number;
  /** What it says first on the socket, so that the pool knows the connection is this spare's. */
  token: string;
  /** Its connection once it is waiting; it ends when the spare exits. */
  socket: Socket | null;
  /** Watches it until it connects: whether it is still alive, and whether it took too long. */
  connectTimer: ReturnType<typeof setInterval> | null;
  /** The build on disk when it was started: the build it loaded, or an older one (then it is let go). */
  build: string;
  /** Where its output goes: its own file, then the run's process log. */
  log: string;
  state: SpareState;
  /** Settles when a claim by `assign` is over, whatever its outcome (the log may have moved meanwhile). */
  claim?: Promise<void>;
}

/** How handing a run to the spare went; null when there was no usable spare (the caller spawns one itself). */
export type SpareOutcome = { pid: number; fenced?: false } | { pid: undefined; fenced: true } | null;

/** How much of a dead spare's output the scheduler's log gets. */
const TAIL_BYTES = 4096;

export class SparePool {
  private spare: Spare | null = null;
  private filling: Promise<void> | null = null;
  /** `off` after a spare died unexpectedly or the build cannot be told: runs are spawned directly. */
  private mode: 'on' | 'off' | 'closed' = 'on';
  /** Where spares connect: a socket in a directory of this process's own (mode 0700) on the local disk. */
  private readonly listener = new LocalSocket('dagu-spares-', (socket) => this.onConnection(socket));

  constructor(private readonly o: SpareSettings & { executable: string; env: NodeJS.ProcessEnv }) {}

  /** Starts one spare in the background (detached: its own session, like any run process). Never rejects. */
  fill(): Promise<void> {
    this.filling ??= this.startSpare()
      .catch((err: Error) => {
        this.turnOff();
        this.o.logger.error('Could not pre-start a run process', { error: err.message });
      })
      .finally(() => (this.filling = null));
    return this.filling;
  }

  /** The pid of the spare waiting for a run, if one is connected and waiting. */
  waitingPid(): number | null {
    const spare = this.spare;
    return spare && spare.state === 'waiting' && connected(spare) ? spare.pid : null;
  }

  /**
   * Hands the run with `args` to the waiting spare, its output going to `processLog` from now on.
   * `stillAllowed` is asked right before the spare is told to start (the fencing check).
   */
  async assign(args: string[], processLog: string, stillAllowed: () => boolean): Promise<SpareOutcome> {
    const spare = this.spare;
    if (!spare || spare.state !== 'waiting' || !connected(spare)) return null;
    this.spare = null;
    spare.state = 'claimed';
    let settled!: () => void;
    spare.claim = new Promise<void>((resolve) => (settled = resolve));
    try {
      return await this.claim(spare, args, processLog, stillAllowed);
    } finally {
      settled();
    }
  }

  private async claim(
    spare: Spare,
    args: string[],
    processLog: string,
    stillAllowed: () => boolean,
  ): Promise<SpareOutcome> {
    const build = await this.o.currentBuild().catch(() => null);
    if (build !== spare.build) {
      this.o.logger.info('Let a pre-started run process go: the build on disk changed since it started', {
        pid: spare.pid,
        build: spare.build,
        build_on_disk: build,
      });
      this.release(spare);
      return null;
    }
    try {
      // A run that already has a process log keeps it, and is spawned the usual way (appending to it).
      await (await open(processLog, 'wx')).close();
    } catch {
      this.release(spare);
      return null;
    }
    try {
      await rename(spare.log, processLog);
    } catch (err) {
      this.turnOff();
      this.o.logger.error(
        'Could not give a run to the pre-started run process; no more are started until the scheduler restarts',
        { pid: spare.pid, log: spare.log, process_log: processLog, error: (err as Error).message },
      );
      this.release(spare);
      return null;
    }
    spare.log = processLog;
    // A spare that died meanwhile is reported by onGone; its output is in the run's process log already.
    if (!connected(spare)) return null;
    if (!stillAllowed()) {
      this.release(spare);
      return { pid: undefined, fenced: true };
    }
    spare.state = 'assigned';
    const assignment: SpareAssignment = { args };
    spare.socket!.end(`${JSON.stringify(assignment)}\n`);
    return { pid: spare.pid };
  }

  /** Lets the waiting spare exit (its socket closes without an assignment) and starts no more. */
  close(): void {
    this.mode = 'closed';
    if (this.spare) this.release(this.spare);
    this.spare = null;
    this.listener.close();
  }

  /** A spare connecting back: its first line is its token; anything else is dropped. */
  private onConnection(socket: Socket): void {
    firstLine(socket, (line) => {
      const spare = this.spare;
      if (!spare || spare.state !== 'starting' || spare.token !== line) {
        socket.destroy();
        return;
      }
      if (spare.connectTimer) clearInterval(spare.connectTimer);
      spare.connectTimer = null;
      spare.socket = socket;
      spare.state = 'waiting';
      socket.once('close', () => void this.onGone(spare, 'its connection closed'));
    });
  }

  private async startSpare(): Promise<void> {
    if (this.mode !== 'on' || this.spare) return;
    const build = await this.o.currentBuild();
    if (build === null) {
      this.turnOff();
      this.o.logger.warn('Run processes are not pre-started: the build on disk cannot be told', {
        executable: this.o.executable,
      });
      return;
    }
    const started = await startHelper({
      ...this.o,
      command: SPARE_COMMAND,
      logName: 'spare',
      socketPath: await this.listener.listen(),
      wanted: () => this.mode === 'on',
    });
    if (started === null) return;
    const { pid, log, token } = started;
    if (pid === null) {
      await unlink(log).catch(() => undefined);
      this.turnOff();
      this.o.logger.error('Could not pre-start a run process', { executable: this.o.executable });
      return;
    }
    const spare: Spare = { pid, token, socket: null, connectTimer: null, build, log, state: 'starting' };
    spare.connectTimer = watchConnectBack(
      pid,
      this.o.connectTimeoutMs ?? 60_000,
      () => spare.state === 'starting',
      (why) => {
        spare.connectTimer = null;
        void this.onGone(spare, why);
      },
    );
    this.spare = spare;
    if (this.mode !== 'on') this.release(spare);
  }

  private release(spare: Spare): void {
    spare.state = 'released';
    if (spare.connectTimer) clearInterval(spare.connectTimer);
    spare.connectTimer = null;
    // One not connected yet finds, when it tries, no socket or no spare of its token, and exits quietly.
    spare.socket?.end();
  }

  /** The spare's connection ended, or it never came: how it went, unless it was given a run or let go. */
  private async onGone(spare: Spare, why: string): Promise<void> {
    if (this.spare === spare) this.spare = null;
    // A claim in progress may rename the spare's output to the run's process log: read it where it ends up.
    await spare.claim;
    // A spare given a run is that run's process: how it ends is the run's business, in the run's log.
    if (spare.state === 'assigned' || spare.state === 'released') return;
    this.turnOff();
    this.o.logger.error(
      'A pre-started run process exited before it was given a run; no more are started until the scheduler restarts',
      { pid: spare.pid, reason: why, log: spare.log, output: await tail(spare.log) },
    );
  }

  /** Spawns runs directly from now on (a closed pool stays closed). */
  private turnOff(): void {
    if (this.mode === 'on') this.mode = 'off';
  }
}

function connected(spare: Spare): boolean {
  return spare.socket !== null && !spare.socket.destroyed && spare.socket.writable;
}

/** The end of a file, for a log line; empty when it cannot be read. */
async function tail(file: string): Promise<string> {
  try {
    const handle = await open(file, 'r');
    try {
      const { size } = await handle.stat();
      const start = Math.max(0, size - TAIL_BYTES);
      const buf = Buffer.alloc(size - start);
      await handle.read(buf, 0, buf.length, start);
      return buf.toString('utf8');
    } finally {
      await handle.close();
    }
  } catch {
    return '';
  }
}
