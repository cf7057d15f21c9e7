// Starts detached processes for a long-running service through a small co-process, so that the service
// itself never forks once its storage is in use.
//
// Why: when a process forks and the child execs, the kernel closes the child's copies of every descriptor
// opened close-on-exec (all of Node's), and closing a file of a FUSE or NFS volume asks that volume to flush
// it. libuv's spawn waits for the exec, synchronously. So a scheduler that starts a run while one of its own
// writes to a stalled volume is in flight freezes its event loop until the volume answers: its fencing
// timer cannot fire, it logs nothing and its health endpoint does not answer. The relay is started before the
// service opens anything on its data volume and holds no file of it; it forks, and its child opens the
// process's log, so a stalled volume holds up that one launch and never the service.
//
// The relay is a POSIX shell script run by dash where it is installed (else /bin/sh), and each process is put
// in a session of its own by util-linux's `setsid`, which execs it in place (a child of a shell without job
// control is no process group leader, so `setsid` need not fork). A shell is the smallest co-process at hand:
// dash holds under 2 MB where Perl held 5.6, and the relay counts in the service's memory. The processes it
// starts stay its children, in the service's process tree, where memory and CPU are counted. dash reaps ended
// children only when it runs a command, so the service sends an empty line twice a second and the relay
// answers it with `jobs`: an ended process does not linger as a zombie that a liveness check would take for
// a live one.
//
// Protocol on the relay's stdin, one line each: the number of arguments, the arguments, the log file (output
// appended; empty for none), and one line the process reads on its stdin (empty: stdin is /dev/null). The
// relay answers with the new process's pid on a line of its own. A line that is not a number is a tick: it
// only reaps. A shell that cannot fork exits; the service then starts another relay at the next launch.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Logger } from '../core/ports';

// $1: the path of setsid; $2: 1 to drop PWD, which a shell adds to the environment of what it starts when the
// service's own environment had none. `read -r` with an empty IFS keeps each line as it is.
const SCRIPT = `
setsid_path=$1
[ "$2" = 1 ] && unset PWD
while IFS= read -r n; do
  jobs >/dev/null
  case $n in ''|*[!0-9]*) continue ;; esac
  set --
  while [ $# -lt "$n" ]; do IFS= read -r a || exit 0; set -- "$@" "$a"; done
  IFS= read -r log || exit 0
  IFS= read -r input || exit 0
  if [ -n "$input" ]; then
    "$setsid_path" "$@" >>"\${log:-/dev/null}" 2>&1 <<INPUT &
$input
INPUT
  else
    "$setsid_path" "$@" >>"\${log:-/dev/null}" 2>&1 </dev/null &
  fi
  echo $!
done
`;

/** How often the service asks the relay to reap the processes that ended. */
const REAP_INTERVAL_MS = 500;

/** What the relay needs: a POSIX shell and util-linux's setsid. */
export interface RelayTools {
  shell: string;
  setsid: string;
}

/** The relay's tools on this host; null when one is missing (then no relay is used). */
export function findRelayTools(): RelayTools | null {
  // Looked up once at start-up, on the system's own disk.
  const shell = ['/bin/dash', '/usr/bin/dash', '/bin/sh'].find((p) => existsSync(p));
  const setsid = ['/usr/bin/setsid', '/bin/setsid'].find((p) => existsSync(p));
  return shell && setsid ? { shell, setsid } : null;
}

/** Sets the variables a shell would drop; coreutils', on every Linux that has util-linux. */
const ENV_PROGRAM = ['/usr/bin/env', '/bin/env'].find((p) => existsSync(p)) ?? null;

/** A name a POSIX shell keeps in the environment it passes on; it drops any other. */
const SHELL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The longest line a process can be given on its stdin (less than a pipe holds, so the relay never waits). */
export const INPUT_MAX = 60_000;

interface Pending {
  resolve: (pid: number) => void;
  reject: (err: Error) => void;
}

export class LaunchRelay {
  private child: ChildProcess | null = null;
  private pending: Pending[] = [];
  private buffered = '';
  private closed = false;
  /** How the last relay ended, when it ended on its own. */
  private lost: string | null = null;
  private reaper: NodeJS.Timeout | null = null;
  /** The environment the shell passes on by itself: the variables with shell names. */
  private readonly shellEnv: NodeJS.ProcessEnv = {} as NodeJS.ProcessEnv;
  /**
   * `NAME=value` of the variables a shell would drop (names such as `my.var`), set again by `env` in front
   * of each process; empty when there are none, as usual.
   */
  private readonly otherEnv: string[] = [];

  constructor(
    private readonly o: {
      /** The environment of every process it starts. */
      env: NodeJS.ProcessEnv;
      tools: RelayTools;
      logger: Logger;
    },
  ) {
    const dropped: string[] = [];
    for (const [name, value] of Object.entries(o.env)) {
      if (value === undefined) continue;
      if (SHELL_NAME.test(name)) this.shellEnv[name] = value;
      // A value on several lines cannot be passed on a line: a shell function bash exported, in practice.
      else if (/[\n\r\0]/.test(value) || name.includes('=') || !ENV_PROGRAM) dropped.push(name);
      else this.otherEnv.push(`${name}=${value}`);
    }
    if (dropped.length > 0) {
      o.logger.warn('Runs started through the launch relay do not get these environment variables', {
        names: dropped.join(', '),
      });
    }
  }

  /** Starts the relay now (call before the service touches its storage). */
  start(): void {
    if (this.child || this.closed) return;
    const dropPwd = this.o.env.PWD === undefined ? '1' : '0';
    const child = spawn(
      this.o.tools.shell,
      ['-c', SCRIPT, 'dagu-launch-relay', this.o.tools.setsid, dropPwd],
      {
        env: this.shellEnv,
        stdio: ['pipe', 'pipe', 'ignore'],
      },
    );
    child.once('error', () => undefined); // reported through 'exit' or a missing pid
    child.stdin!.on('error', () => undefined); // a relay that died: its 'exit' fails what waits on it
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (d: string) => this.onData(d));
    child.once('exit', (code, signal) => this.onExit(child, code, signal));
    // Neither the relay nor its pipes keep the service's event loop alive.
    child.unref();
    (child.stdin as unknown as { unref?: () => void }).unref?.();
    (child.stdout as unknown as { unref?: () => void }).unref?.();
    this.child = child;
    if (!this.reaper) {
      this.reaper = setInterval(() => this.child?.stdin?.write('\n'), REAP_INTERVAL_MS);
      this.reaper.unref();
    }
  }

  /**
   * Starts `argv` (argv[0] an absolute path) detached, its output appended to `logFile`, `input` (one line)
   * on its stdin. Resolves to its pid. Rejects when an argument cannot be passed on a line (it holds a line
   * break), the input is longer than INPUT_MAX bytes, or the relay is gone.
   */
  launch(argv: string[], logFile: string | null, input = ''): Promise<number> {
    if (this.closed) return Promise.reject(new Error('the launch relay is closed'));
    const full = this.otherEnv.length > 0 ? [ENV_PROGRAM!, ...this.otherEnv, ...argv] : argv;
    const lines = [String(full.length), ...full, logFile ?? '', input];
    if (lines.some((l) => /[\n\r\0]/.test(l))) {
      return Promise.reject(new Error('an argument, the log path or the input holds a line break'));
    }
    if (Buffer.byteLength(input) > INPUT_MAX) {
      return Promise.reject(new Error(`the input is longer than ${INPUT_MAX} bytes`));
    }
    if (!this.child || this.child.exitCode !== null || this.child.signalCode !== null) {
      // Forked from here: if the data volume stalls right now, this one start waits for it.
      if (this.child || this.lost)
        this.o.logger.warn('Restarting the launch relay', { reason: this.lost ?? '' });
      this.child = null;
      this.lost = null;
      this.start();
    }
    const child = this.child!;
    return new Promise<number>((resolve, reject) => {
      this.pending.push({ resolve, reject });
      child.stdin!.write(`${lines.join('\n')}\n`);
    });
  }

  /** Lets the relay go (its stdin closes and it exits); processes it started keep running. */
  close(): void {
    this.closed = true;
    if (this.reaper) clearInterval(this.reaper);
    this.reaper = null;
    this.child?.stdin?.end();
    this.failPending(new Error('the launch relay was closed'));
  }

  private onData(d: string): void {
    this.buffered += d;
    let nl: number;
    while ((nl = this.buffered.indexOf('\n')) >= 0) {
      const line = this.buffered.slice(0, nl).trim();
      this.buffered = this.buffered.slice(nl + 1);
      const waiting = this.pending.shift();
      if (!waiting) continue;
      const pid = Number(line);
      if (Number.isInteger(pid) && pid > 0) waiting.resolve(pid);
      else waiting.reject(new Error(`the launch relay answered "${line}" instead of a pid`));
    }
  }

  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child !== child) return;
    this.child = null;
    this.buffered = '';
    this.lost = `the launch relay exited (${signal ? `signal ${signal}` : `exit code ${String(code)}`})`;
    this.failPending(new Error(this.lost));
  }

  private failPending(err: Error): void {
    const waiting = this.pending;
    this.pending = [];
    for (const w of waiting) w.reject(err);
  }
}
