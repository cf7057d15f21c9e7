import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Logger } from '../core/ports';
import { findRelayTools, INPUT_MAX, LaunchRelay } from './launchRelay';
import { minimalEnv, tempDir, waitFor } from './testSupport';

let dir: string;
let cleanup: () => void;
let relays: LaunchRelay[];
beforeEach(() => {
  ({ dir, cleanup } = tempDir('dagu-relay-'));
  relays = [];
});
afterEach(() => {
  for (const r of relays) r.close();
  cleanup();
});

function warnings(into: string[]): Logger {
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (msg) => void into.push(msg),
    error: () => undefined,
    child: () => logger,
  };
  return logger;
}

function relay(warned: string[] = [], env: NodeJS.ProcessEnv = minimalEnv()): LaunchRelay {
  const tools = findRelayTools();
  if (!tools) throw new Error('a POSIX shell and util-linux setsid are needed');
  const r = new LaunchRelay({ env, tools, logger: warnings(warned) });
  r.start();
  relays.push(r);
  return r;
}

/** A process that prints its pid, its session and its arguments as JSON, then waits a little. */
function reporter(): string {
  const script = join(dir, 'report.cjs');
  writeFileSync(
    script,
    `const stat = require('node:fs').readFileSync('/proc/self/stat', 'utf8');
const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
console.log(JSON.stringify({ pid: process.pid, sid: Number(fields[3]), args: process.argv.slice(2) }));
setTimeout(() => {}, 200);`,
  );
  return script;
}

/** The parent pid of a live process, from /proc. */
const parentOf = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
};
const reportIn = (log: string) => JSON.parse(readFileSync(log, 'utf8').trim().split('\n').pop()!);
const hasLine = (log: string) => {
  try {
    return readFileSync(log, 'utf8').includes('\n');
  } catch {
    return false;
  }
};

describe('LaunchRelay', () => {
  it('starts a process in its own session with its arguments intact and its output appended to the log', async () => {
    const r = relay();
    const log = join(dir, 'out log.txt');
    writeFileSync(log, 'earlier\n');
    const args = ['a b', '', "it's", '"quoted"', '$HOME', '`date`', '\\back', '  padded  ', '-n', '*'];
    const pid = await r.launch([process.execPath, reporter(), ...args], log);
    await waitFor(() => readFileSync(log, 'utf8').split('\n').length > 2);
    const report = reportIn(log);
    expect(readFileSync(log, 'utf8').startsWith('earlier\n')).toBe(true);
    expect(report).toEqual({ pid, sid: pid, args });
  });

  it('passes on the environment as it was given, names a shell would drop included', async () => {
    const warned: string[] = [];
    const env = { ...minimalEnv(), PLAIN: 'a b', 'my.var': 'x=y', 'with-dash': '', MULTI: 'one\ntwo' };
    const r = relay(warned, { ...env, 'BASH_FUNC_f%%': '() {  echo hi\n}' });
    const printer = join(dir, 'env.cjs');
    writeFileSync(printer, 'console.log(JSON.stringify(process.env));\n');
    const log = join(dir, 'env.log');
    await r.launch([process.execPath, printer], log);
    await waitFor(() => hasLine(log));
    // Exactly the variables given: none added (PWD), none lost but the one that cannot pass on a line.
    expect(JSON.parse(readFileSync(log, 'utf8'))).toEqual(env);
    expect(warned).toEqual(['Runs started through the launch relay do not get these environment variables']);
  });

  it('stays small: a shell, not a language runtime', async () => {
    const r = relay();
    const log = join(dir, 'small.log');
    const pid = await r.launch([process.execPath, reporter()], log);
    await waitFor(() => hasLine(log));
    // The relay is the parent of what it starts.
    const status = readFileSync(`/proc/${parentOf(pid)}/status`, 'utf8');
    const rssKb = Number(/^VmRSS:\s+(\d+)/m.exec(status)![1]);
    expect(rssKb).toBeLessThan(3 * 1024);
  });

  it('answers launches made at once in their order, each with its own pid', async () => {
    const r = relay();
    const logs = [0, 1, 2, 3, 4].map((i) => join(dir, `log-${i}`));
    const pids = await Promise.all(
      logs.map((l, i) => r.launch([process.execPath, reporter(), String(i)], l)),
    );
    expect(new Set(pids).size).toBe(5);
    await waitFor(() => logs.every(hasLine));
    logs.forEach((l, i) => expect(reportIn(l)).toMatchObject({ pid: pids[i], args: [String(i)] }));
  });

  it('refuses an argument holding a line break, which it cannot pass on', async () => {
    const r = relay();
    await expect(r.launch([process.execPath, reporter(), 'a\nb'], null)).rejects.toThrow(/line break/);
    // The relay is still in step: the next launch gets its own answer.
    const log = join(dir, 'after');
    const pid = await r.launch([process.execPath, reporter(), 'ok'], log);
    await waitFor(() => hasLine(log));
    expect(reportIn(log)).toMatchObject({ pid, args: ['ok'] });
  });

  it('starts another relay, with a warning, when the one it had was killed', async () => {
    const warned: string[] = [];
    const r = relay(warned);
    const first = join(dir, 'first');
    await r.launch([process.execPath, reporter()], first);
    const relayPid = (r as unknown as { child: { pid: number } }).child.pid;
    process.kill(relayPid, 'SIGKILL');
    await waitFor(() => (r as unknown as { child: unknown }).child === null);
    const log = join(dir, 'second');
    const pid = await r.launch([process.execPath, reporter(), 'again'], log);
    await waitFor(() => hasLine(log));
    expect(reportIn(log)).toMatchObject({ pid, args: ['again'] });
    expect(warned).toEqual(['Restarting the launch relay']);
  });

  it('keeps what it started as its children, and reaps them once they end', async () => {
    const r = relay();
    const relayPid = (r as unknown as { child: { pid: number } }).child.pid;
    const quick = join(dir, 'quick.cjs');
    writeFileSync(quick, 'setTimeout(() => {}, 300);\n');
    const pid = await r.launch([process.execPath, quick], null);
    expect(parentOf(pid)).toBe(relayPid);
    // Gone altogether, not left a zombie that a liveness check would take for a live process.
    await waitFor(() => !existsSync(`/proc/${pid}`), 5000);
  });

  it('gives a process its one line of input on its stdin, and refuses a longer one than a pipe holds', async () => {
    const r = relay();
    const echo = join(dir, 'echo.cjs');
    writeFileSync(
      echo,
      "let t = ''; process.stdin.on('data', (d) => (t += d)); process.stdin.on('end', () => console.log(JSON.stringify(t)));\n",
    );
    const log = join(dir, 'echoed');
    const input = JSON.stringify({ runs: ['a b', "it's", '$HOME'], long: 'x'.repeat(50_000) });
    await r.launch([process.execPath, echo], log, input);
    await waitFor(() => hasLine(log), 10_000);
    expect(JSON.parse(readFileSync(log, 'utf8'))).toBe(`${input}\n`);
    await expect(r.launch([process.execPath, echo], null, 'x'.repeat(INPUT_MAX + 1))).rejects.toThrow(
      /longer/,
    );
    await expect(r.launch([process.execPath, echo], null, 'a\nb')).rejects.toThrow(/line break/);
  });

  it('refuses launches once closed', async () => {
    const r = relay();
    r.close();
    await expect(r.launch([process.execPath, reporter()], null)).rejects.toThrow(/closed/);
  });
});
