// `dagu migrate --history` on run history Dagu 1.30.2 wrote (fixtures/dagu-history-1.30.2, recorded with the
// npm binary in a home at another path: a failed run retried once, and a run whose step called a sub-DAG; plus
// fixtures/dagu-home-1.30.2, whose second run is still queued). The runs become ours, with their attempts,
// steps, handlers, params, outputs and step logs, sub-runs under their parent; Dagu's files stay as they were.

import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dagu, filesUnder } from './harness';

const HISTORY = path.join(import.meta.dirname, 'fixtures', 'dagu-history-1.30.2');
const HOME_WITH_QUEUE = path.join(import.meta.dirname, 'fixtures', 'dagu-home-1.30.2');
const ETL = '01a235ab-013f-7145-825f-73a4504c3ca8';
const PARENT = '01a235ab-0228-7960-b99f-9dfc1674892c';
const CHILD = 'BLsSt8WD21S5WzPeVMi1ZFX5boBGdMzE4qDV6f2q3xj9';

let home: string;
let env: NodeJS.ProcessEnv;

function useHome(fixture: string): void {
  home = mkdtempSync(path.join(tmpdir(), 'dagu-history-'));
  cpSync(fixture, home, { recursive: true });
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('DAGU_')));
  env = { ...clean, DAGU_HOME: home, DAGU_LOG_FORMAT: 'json' } as unknown as NodeJS.ProcessEnv;
}
beforeEach(() => useHome(HISTORY));
afterEach(() => rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 }));

interface Step {
  name: string;
  status: string;
  exit_code: number | null;
  stdout: string | null;
  output: Record<string, string> | null;
  sub_runs?: Array<{ dag_name: string; run_id: string; status: string | null }>;
}
interface Run {
  dag_name: string;
  run_id: string;
  attempt: number;
  status: string;
  trigger_type: string;
  params: string[];
  steps: Step[];
  handlers: Record<string, Step>;
  parent?: { dag_name: string; run_id: string; step: string } | null;
}

async function status(...args: string[]): Promise<Run> {
  const r = await dagu(['status', '--json', ...args], env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Run;
}

const log = (rel: string | null) => readFileSync(path.join(home, 'logs', rel!), 'utf8');

describe('dagu migrate --history', () => {
  it('lists what it would import, and writes nothing without --write', async () => {
    const dry = await dagu(['migrate', '--history'], env);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout.trimEnd().split('\n')).toEqual([
      `import  etl ${ETL}  succeeded, 2 attempts`,
      `import  parent ${PARENT}  succeeded`,
      `import  child ${CHILD}  succeeded, sub-run of parent ${PARENT}`,
      `3 Dagu run(s) to import (run again with --write), 0 already here, 0 not imported, from ${path.join(home, 'data', 'dag-runs')}`,
    ]);
    const none = await dagu(['status', 'etl'], env);
    expect([none.code, none.stderr]).toEqual([1, 'dagu: DAG etl has no runs yet\n']);
  });

  it("imports Dagu's finished runs with their attempts, steps, logs and sub-runs, and leaves Dagu's files", async () => {
    const before = filesUnder(HISTORY, ['data', 'logs']);
    const w = await dagu(['migrate', '--history', '--write'], env);
    expect(w.code, w.stderr).toBe(0);
    expect(w.stdout).toContain(`imported  etl ${ETL}  succeeded, 2 attempts\n`);

    // The failed first attempt and its retry, as Dagu recorded them.
    const etl = await status('--run-id', ETL, 'etl');
    expect(etl).toMatchObject({
      attempt: 2,
      status: 'succeeded',
      trigger_type: 'retry',
      params: ['DAY=tuesday'],
    });
    expect(etl.steps.map((s) => [s.name, s.status, s.exit_code])).toEqual([
      ['extract', 'succeeded', 0],
      ['load', 'succeeded', 0],
    ]);
    expect(etl.steps[0].output).toEqual({ ROWS: 'extract tuesday' });
    // The home was recorded at another path: the logs are found under this one's logs directory.
    expect(log(etl.steps[0].stdout)).toBe('extract tuesday\n');
    expect(log(etl.steps[1].stdout)).toBe('loaded\n');
    const hist = await dagu(['history', '--format', 'json', 'etl'], env);
    expect(
      (JSON.parse(hist.stdout) as Array<{ dagRunId: string; attempt: number }>).map((r) => [
        r.dagRunId,
        r.attempt,
      ]),
    ).toEqual([[ETL, 2]]);

    // The sub-run is a run of its own under its parent's step, as dagu status --sub-run-id finds it.
    const parent = await status(PARENT);
    expect(parent.steps[1].sub_runs).toEqual([{ dag_name: 'child', run_id: CHILD, status: 'succeeded' }]);
    const child = await status('--run-id', PARENT, '--sub-run-id', CHILD, 'parent');
    expect(child).toMatchObject({
      dag_name: 'child',
      trigger_type: 'subdag',
      params: ['N=7'],
      parent: { dag_name: 'parent', run_id: PARENT, step: 'run-child' },
    });
    expect(log(child.steps[0].stdout)).toBe('child 7\n');

    for (const [rel, text] of before) expect(readFileSync(path.join(home, rel), 'utf8'), rel).toBe(text);

    // Again: nothing new.
    const again = await dagu(['migrate', '--history', '--write'], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^0 Dagu run\(s\) imported, 3 already here, 0 not imported/);
  });

  it('leaves out a run Dagu has not finished, says why and exits 1; a home without history exits 2', async () => {
    rmSync(home, { recursive: true, force: true });
    useHome(HOME_WITH_QUEUE);
    const w = await dagu(['migrate', '--history', '--write'], env);
    expect(w.code).toBe(1);
    expect(w.stdout).toContain('1 Dagu run(s) imported, 0 already here, 1 not imported');
    expect(w.stderr).toContain(
      'hello 01a233ab-7d4d-7a37-8c44-b77e2264e96a: not imported: it is queued in Dagu; only finished runs are imported',
    );
    const missing = await dagu(['migrate', '--history', path.join(home, 'nope')], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no Dagu run history in .*nope: no such directory/);
    expect((await dagu(['migrate', '--help'], env)).stdout).toContain('--history');
  });
});
