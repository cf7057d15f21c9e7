// Build DAGs (`type: build`) across processes: two runs of one producer at once never both make its output
// (the output's lock holds the second until the first committed, and then it reuses), and a run killed while
// it held the lock leaves neither a lock that blocks the next run nor its staging file.

import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { DAGU, dagu, eventually, killProcessesWithHome, tempHome, type TempHome } from './harness';

let h: TempHome;
let work: string;
beforeEach(() => {
  h = tempHome();
  work = path.join(h.home, 'work');
  mkdirSync(work);
  writeFileSync(path.join(work, 'source.txt'), 'abc\n');
});
afterEach(() => h.cleanup());

/** A producer that takes `seconds` and counts its executions in runs.txt. */
function writeProducer(seconds: number): void {
  h.writeDag(
    'slow',
    [
      'type: build',
      `working_dir: ${work}`,
      'steps:',
      '  - id: make',
      '    inputs: [{name: src, path: source.txt}]',
      '    outputs: [{name: out, path: out.txt}]',
      '    run: |',
      '      echo x >> runs.txt',
      '      touch started.txt',
      `      sleep ${seconds}`,
      '      tr a-z A-Z < "${inputs.src}" > "${outputs.out}"',
      '',
    ].join('\n'),
  );
}

it('runs of one producer at once make its output once: the second waits for the lock, then reuses', async () => {
  writeProducer(1.5);
  const [a, b] = await Promise.all([dagu(['start', 'slow'], h.env), dagu(['start', 'slow'], h.env)]);
  expect(a.code, a.stderr).toBe(0);
  expect(b.code, b.stderr).toBe(0);
  expect(readFileSync(path.join(work, 'runs.txt'), 'utf8')).toBe('x\n');
  expect(readFileSync(path.join(work, 'out.txt'), 'utf8')).toBe('ABC\n');
  const lines = [a.stdout, b.stdout].map((o) =>
    o
      .match(/build: (\w+) \((\w+)\)/)
      ?.slice(1)
      .join(' '),
  );
  expect(lines.sort()).toEqual(['execute manifest_missing', 'reuse matched']);
});

it('a run killed while it held the output lock blocks nothing, and its staging file is removed', async () => {
  writeProducer(30);
  const child = spawn(process.execPath, [DAGU, 'start', 'slow'], { env: h.env, stdio: 'ignore' });
  await eventually(() => existsSync(path.join(work, 'started.txt')), 20_000);
  const staged = () => readdirSync(work).filter((n) => n.startsWith('.out.txt.dagu-'));
  // The step writes its staging file only at its end; make one as a killed attempt could leave it.
  writeFileSync(path.join(work, '.out.txt.dagu-1-0-0123456789abcdef.tmp'), 'partial');
  // The run process and its step: a kill that leaves no time to release anything.
  const exited = new Promise((r) => child.once('exit', r));
  killProcessesWithHome(h.home);
  await exited;

  writeProducer(0);
  const next = await dagu(['start', 'slow'], h.env, 20_000);
  expect(next.code, next.stderr).toBe(0);
  expect(next.stdout).toContain('build: execute (manifest_missing)');
  expect(readFileSync(path.join(work, 'out.txt'), 'utf8')).toBe('ABC\n');
  expect(staged()).toEqual([]);
});
