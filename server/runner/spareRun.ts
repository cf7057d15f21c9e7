// Pre-started run processes: a spare `dagu` process loads the CLI bundle ahead of time and waits on its
// stdin for the arguments of one `dagu start`, so a scheduled slot starts its first step without paying for
// Node's and the bundle's start-up. A spare whose parent goes away before assigning it exits untouched.

import { spawn, type ChildProcess } from 'node:child_process';
import { SPARE_COMMAND, type SpareAssignment } from './spareCommand';

export class SparePool {
  private spare: ChildProcess | null = null;
  private closed = false;

  constructor(private readonly opts: { executable: string; env: NodeJS.ProcessEnv }) {}

  /** Starts one spare in the background (detached: its own session, like any run process). */
  fill(): void {
    if (this.closed || (this.spare && this.spare.exitCode === null && this.spare.signalCode === null)) return;
    const child = spawn(process.execPath, [this.opts.executable, SPARE_COMMAND], {
      env: this.opts.env,
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    if (child.pid === undefined) {
      child.once('error', () => {});
      return;
    }
    child.once('error', () => {});
    child.stdin!.on('error', () => {}); // a spare that died: the write fails, the next launch spawns fresh
    child.unref();
    (child.stdin as unknown as { unref?: () => void }).unref?.();
    this.spare = child;
  }

  /** Hands the run to the waiting spare; null when there is none alive (the caller spawns one itself). */
  assign(a: SpareAssignment): { pid: number } | null {
    const child = this.spare;
    this.spare = null;
    if (!child || child.exitCode !== null || child.signalCode !== null || !child.stdin?.writable) return null;
    child.stdin.end(`${JSON.stringify(a)}\n`);
    return { pid: child.pid! };
  }

  /** Lets the waiting spare exit (its stdin closes without an assignment). */
  close(): void {
    this.closed = true;
    this.spare?.stdin?.end();
    this.spare = null;
  }
}
