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
// The relay is a few lines of Perl (perl-base is part of every Debian system; where there is no
// /usr/bin/perl, processes are spawned directly as before). Perl rather than /bin/sh: it forks and calls
// setsid() itself, and it reaps the processes it started (within half a second of their end), so they stay
// in the service's process tree, where memory and CPU are counted, without lingering as zombies that would
// look alive to a liveness check.
//
// Protocol on the relay's stdin, one line each: the number of arguments, the arguments, the log file (output
// appended; empty for none), and one line the process reads on its stdin (empty: stdin is /dev/null). The
// relay answers with the new process's pid on a line of its own, or 0 when it could not fork.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Logger } from '../core/ports';

// It loads no Perl module: POSIX alone would add about 2 MB to the service's process tree, strict and
// warnings nearly 1 MB more. setsid() is made as a system call whose number the service passes as the first
// argument (0 where it is not known here); where that fails, the child loads POSIX for it. WNOHANG is 1 on
// Linux. A child that cannot exec leaves with exit(): it has no buffered output, nothing else to flush.
const SCRIPT = `
my $setsid_nr = $ARGV[0];
$| = 1;
$SIG{PIPE} = 'IGNORE';
my ($buf, @fields, $rin) = ('');
vec($rin = '', fileno(STDIN), 1) = 1;
sub start {
  my ($log, $input, @argv) = @_;
  my ($r, $w);
  if ($input ne '') { pipe($r, $w) or return 0; }
  my $pid = fork();
  if (!defined $pid) { close($r), close($w) if $r; return 0; }
  if ($pid) {
    # A new pipe holds 64 KiB: the line (at most INPUT_MAX bytes) is written without waiting on the child.
    if ($r) { close($r); print $w $input, "\n"; close($w); }
    return $pid;
  }
  if (!$setsid_nr || syscall($setsid_nr + 0) < 0) { require POSIX; POSIX::setsid(); }
  if ($r) { close($w); open(STDIN, '<&', $r); } else { open(STDIN, '<', '/dev/null'); }
  if (!open(STDOUT, '>>', $log eq '' ? '/dev/null' : $log)) { exit(126); }
  open(STDERR, '>&STDOUT');
  exec { $argv[0] } @argv;
  print STDERR "dagu: could not start $argv[0]: $!\n";
  exit(127);
}
while (1) {
  1 while waitpid(-1, 1) > 0;
  next if select(my $rout = $rin, undef, undef, 0.5) <= 0;
  my $got = sysread(STDIN, $buf, 65536, length $buf);
  next if !defined $got && $!{EINTR};
  last if !$got;
  while ((my $i = index($buf, "\n")) >= 0) { push @fields, substr($buf, 0, $i); $buf = substr($buf, $i + 1); }
  while (@fields && @fields >= $fields[0] + 3) {
    my $n = shift @fields;
    my @argv = splice(@fields, 0, $n);
    my $log = shift @fields;
    my $input = shift @fields;
    print start($log, $input, @argv), "\n";
  }
}
`;

/** setsid's system call number on Linux for this CPU; 0 where it is not listed here (POSIX is used then). */
export function setsidSyscall(): number {
  if (process.platform !== 'linux') return 0;
  const numbers: Record<string, number> = {
    x64: 112,
    arm64: 157,
    riscv64: 157,
    loong64: 157,
    ia32: 66,
    arm: 66,
  };
  return numbers[process.arch] ?? 0;
}

/** The longest line a process can be given on its stdin (less than a pipe holds, so the relay never waits). */
export const INPUT_MAX = 60_000;

/** Where Perl is; null when it is not installed (then no relay is used). */
export function findPerl(): string | null {
  // Looked up once at start-up, on the system's own disk.
  return ['/usr/bin/perl', '/bin/perl'].find((p) => existsSync(p)) ?? null;
}

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

  constructor(
    private readonly o: {
      /** The environment of every process it starts. */
      env: NodeJS.ProcessEnv;
      perl: string;
      logger: Logger;
      /** setsid's system call number (default: this machine's); 0 makes each child load POSIX for it. */
      setsidSyscall?: number;
    },
  ) {}

  /** Starts the relay now (call before the service touches its storage). */
  start(): void {
    if (this.child || this.closed) return;
    const child = spawn(this.o.perl, ['-e', SCRIPT, String(this.o.setsidSyscall ?? setsidSyscall())], {
      env: this.o.env,
      stdio: ['pipe', 'pipe', 'ignore'],
    });
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
  }

  /**
   * Starts `argv` (argv[0] an absolute path) detached, its output appended to `logFile`, `input` (one line)
   * on its stdin. Resolves to its pid. Rejects when an argument cannot be passed on a line (it holds a line
   * break), the input is longer than INPUT_MAX bytes, or the relay is gone.
   */
  launch(argv: string[], logFile: string | null, input = ''): Promise<number> {
    if (this.closed) return Promise.reject(new Error('the launch relay is closed'));
    const lines = [String(argv.length), ...argv, logFile ?? '', input];
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
      else if (line === '0') waiting.reject(new Error('the launch relay could not fork'));
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
