// Pre-started run processes: a spare `dagu` process loads the CLI bundle ahead of time and waits on its
// stdin for the arguments of one `dagu start`, so a scheduled slot starts its first step without paying for
// Node's and the bundle's start-up. A spare whose parent goes away before assigning it exits untouched.
//
// What keeps a spare as safe as a fresh process:
// - it runs only the build a fresh process would run: the build on disk is read when it starts and again
//   when it is given a run, and a spare whose build is no longer there is let go;
// - its output, a crash trace included, goes to a file from its first instruction: a file of its own while
//   it waits, which is renamed to the run's process log when it is given a run; a spare that dies while
//   waiting is reported in the scheduler's log with the end of that output, and no more spares are started.

import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import { mkdir } from '../store/fileCalls';
import path from 'node:path';
import type { Logger } from '../core/ports';
import { SPARE_COMMAND, type SpareAssignment } from './spareCommand';

/** What a pool needs besides the executable and environment of its run processes. */
export interface SpareSettings {
  /** Where a spare's output goes until it is given a run (a directory of its own under the logs). */
  logDir: string;
  /** The build a `dagu` process started now would run; null when it cannot be told (no spare is used). */
  currentBuild: () => Promise<string | null>;
  logger: Logger;
}

/** A spare's life: loading or waiting, being given a run, running it, or let go without one. */
type SpareState = 'waiting' | 'claimed' | 'assigned' | 'released';

interface Spare {
  child: ChildProcess;
  pid: number;
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

  /**
   * Hands the run with `args` to the waiting spare, its output going to `processLog` from now on.
   * `stillAllowed` is asked right before the spare is told to start (the fencing check).
   */
  async assign(args: string[], processLog: string, stillAllowed: () => boolean): Promise<SpareOutcome> {
    const spare = this.spare;
    if (!spare || spare.state !== 'waiting' || !running(spare.child)) return null;
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
    // A spare that died meanwhile is reported by onExit; its output is in the run's process log already.
    if (!running(spare.child) || !spare.child.stdin?.writable) return null;
    if (!stillAllowed()) {
      this.release(spare);
      return { pid: undefined, fenced: true };
    }
    spare.state = 'assigned';
    const assignment: SpareAssignment = { args };
    spare.child.stdin.end(`${JSON.stringify(assignment)}\n`);
    return { pid: spare.pid };
  }

  /** Lets the waiting spare exit (its stdin closes without an assignment) and starts no more. */
  close(): void {
    this.mode = 'closed';
    if (this.spare) this.release(this.spare);
    this.spare = null;
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
    await mkdir(this.o.logDir, true);
    const log = path.join(this.o.logDir, `spare-${randomBytes(6).toString('hex')}.log`);
    const out = await open(log, 'a');
    try {
      if (this.mode !== 'on') {
        await unlink(log);
        return;
      }
      const child = spawn(process.execPath, [this.o.executable, SPARE_COMMAND, log], {
        env: this.o.env,
        detached: true,
        stdio: ['pipe', out.fd, out.fd],
      });
      child.once('error', () => undefined); // spawn failures are reported through pid below
      if (child.pid === undefined) {
        await unlink(log).catch(() => undefined);
        this.turnOff();
        this.o.logger.error('Could not pre-start a run process', { executable: this.o.executable });
        return;
      }
      child.stdin!.on('error', () => undefined); // a spare that died: assign() sees it and returns null
      // Neither the spare nor the pipe to it keeps the scheduler's event loop alive.
      child.unref();
      (child.stdin as unknown as { unref?: () => void }).unref?.();
      const spare: Spare = { child, pid: child.pid, build, log, state: 'waiting' };
      child.once('exit', (code, signal) => void this.onExit(spare, code, signal));
      this.spare = spare;
    } finally {
      await out.close();
    }
  }

  private release(spare: Spare): void {
    spare.state = 'released';
    spare.child.stdin?.end();
  }

  private async onExit(spare: Spare, code: number | null, signal: NodeJS.Signals | null): Promise<void> {
    if (this.spare === spare) this.spare = null;
    // A claim in progress may rename the spare's output to the run's process log: read it where it ends up.
    await spare.claim;
    // A spare given a run is that run's process: how it ends is the run's business, in the run's log.
    if (spare.state === 'assigned') return;
    // Let go: it exits 0 and removes its own output file.
    if (spare.state === 'released' && code === 0) return;
    this.turnOff();
    this.o.logger.error(
      'A pre-started run process exited before it was given a run; no more are started until the scheduler restarts',
      { pid: spare.pid, exit_code: code, signal, log: spare.log, output: await tail(spare.log) },
    );
  }

  /** Spawns runs directly from now on (a closed pool stays closed). */
  private turnOff(): void {
    if (this.mode === 'on') this.mode = 'off';
  }
}

function running(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
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
