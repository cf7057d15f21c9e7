// The soak's supervisor loop: keeps every member (schedulers, coordinator, workers) running by restarting
// whatever exits, as systemd's Restart=always would, and writes each incarnation's output to its own file.

import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import path from 'node:path';

/** How a member is started: an argv and an environment, computed anew at every (re)start. */
export interface MemberSpec {
  name: string;
  kind: 'scheduler' | 'coordinator' | 'worker';
  argv: () => string[];
  env: NodeJS.ProcessEnv;
}

/** One process a member ran: its PID, the file its output went to, and how it ended. */
export interface Incarnation {
  member: string;
  kind: MemberSpec['kind'];
  pid: number;
  logFile: string;
  startedAtMs: number;
  exitedAtMs: number | null;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
}

/** Wait before a restart, like a service manager's RestartSec: a crash loop does not spin the CPU. */
const RESTART_DELAY_MS = 300;

interface Member {
  spec: MemberSpec;
  child: ChildProcess | null;
  current: Incarnation | null;
  exited: Promise<void>;
}

export class Supervisor {
  private readonly members = new Map<string, Member>();
  readonly incarnations: Incarnation[] = [];
  private stopping = false;

  constructor(private readonly logDir: string) {}

  add(spec: MemberSpec): void {
    const member: Member = { spec, child: null, current: null, exited: Promise.resolve() };
    this.members.set(spec.name, member);
    this.launch(member);
  }

  private launch(member: Member): void {
    if (this.stopping) return;
    const [file, ...args] = member.spec.argv();
    const logFile = path.join(this.logDir, `${member.spec.name}-${this.incarnations.length}.log`);
    const fd = openSync(logFile, 'a');
    // Output goes straight to a file: a busy or paused bench never back-pressures the processes it watches.
    const child = spawn(file, args, { env: member.spec.env, stdio: ['ignore', fd, fd] });
    closeSync(fd);
    const inc: Incarnation = {
      member: member.spec.name,
      kind: member.spec.kind,
      pid: child.pid ?? -1,
      logFile,
      startedAtMs: Date.now(),
      exitedAtMs: null,
      exitCode: null,
      signal: null,
    };
    this.incarnations.push(inc);
    member.child = child;
    member.current = inc;
    member.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        inc.exitedAtMs = Date.now();
        inc.exitCode = code;
        inc.signal = signal;
        if (member.child === child) member.child = null;
        resolve();
        setTimeout(() => this.launch(member), RESTART_DELAY_MS);
      });
      child.once('error', () => undefined);
    });
  }

  /** The running incarnation of a member, or null while it is down (between an exit and its restart). */
  current(name: string): Incarnation | null {
    const m = this.members.get(name);
    return m?.child ? m.current : null;
  }

  names(kind?: MemberSpec['kind']): string[] {
    return [...this.members.values()].filter((m) => !kind || m.spec.kind === kind).map((m) => m.spec.name);
  }

  /** Sends a signal to the member's running process; false when it is down. */
  signal(name: string, sig: NodeJS.Signals): boolean {
    const inc = this.current(name);
    if (!inc) return false;
    try {
      process.kill(inc.pid, sig);
      return true;
    } catch {
      return false;
    }
  }

  /** Resolves once the member's current process has exited (at once when it is down). */
  exited(name: string): Promise<void> {
    return this.members.get(name)?.exited ?? Promise.resolve();
  }

  /** Whether every member has a running process. */
  allUp(): boolean {
    return [...this.members.values()].every((m) => m.child !== null);
  }

  /** Stops restarting and SIGKILLs every member; resolves when they have all exited. */
  async stopAll(): Promise<void> {
    this.stopping = true;
    for (const m of this.members.values()) {
      try {
        m.child?.kill('SIGCONT');
        m.child?.kill('SIGKILL');
      } catch {
        /* already gone */
      }
    }
    await Promise.all([...this.members.values()].map((m) => m.exited));
  }
}
