import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/loadConfig';
import { systemClock, systemTimers } from '../core/clock';
import { silentLogger } from '../core/ports';
import type { DagSpec } from '../core/types';
import { RunNotFoundError } from '../store/errors';
import { MemoryRunStore } from '../store/memoryRunStore';
import { RunConflictError } from './errors';
import type { AttemptContext } from './runAttempt';
import { resumeRun } from './resumeRun';
import { retryRun, StepNotInRunError } from './retryRun';
import { startRun } from './startRun';
import type { SubDagRunner } from './subDag';
import { chain, dagOf, minimalEnv, stepOf, tempDir } from './testSupport';

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  mkdirSync(join(dir, 'dags'));
});
afterEach(() => cleanup());

/** The in-memory store with its logs in the test's temp directory. */
class TempLogRunStore extends MemoryRunStore {
  constructor(private readonly logRoot: string) {
    super();
  }
  logDir(dagName: string, runId: string, attempt: number): string {
    return join(this.logRoot, super.logDir(dagName, runId, attempt).replace(/^\/logs\//, ''));
  }
}

function context(runStore: MemoryRunStore, dag: DagSpec): AttemptContext {
  return {
    dag,
    runStore,
    config: loadConfig({ home: dir, env: { NODE_ENV: 'test' } }),
    clock: systemClock,
    timers: systemTimers,
    logger: silentLogger,
    signal: new AbortController().signal,
    env: minimalEnv(),
  };
}

async function firstAttempt(store: MemoryRunStore, dag: DagSpec) {
  return startRun({
    ...context(store, dag),
    triggerType: 'manual',
    scheduleTime: null,
    params: [{ name: 'P', value: '1' }],
    newRunId: () => 'run-1',
  });
}

describe('resumeRun', () => {
  it('keeps the steps that succeeded, with their outputs, and runs only the others in a new attempt', async () => {
    const store = new TempLogRunStore(join(dir, 'logs'));
    const ran = join(dir, 'ran');
    const gate = join(dir, 'gate');
    const dag = dagOf(
      chain([
        stepOf('extract', `echo extract >> "${ran}"; echo rows-42`, { output: 'ROWS' }),
        stepOf('load', `echo "load $ROWS $P" >> "${ran}"; test -f "${gate}"`),
        stepOf('report', `echo report >> "${ran}"`),
      ]),
    );
    const first = await firstAttempt(store, dag);
    expect(first.status).toBe('failed');

    writeFileSync(gate, '');
    const resumed = await resumeRun({ ...context(store, dag), runId: 'run-1' });

    expect(resumed).toMatchObject({
      attempt: 2,
      status: 'succeeded',
      trigger_type: 'retry',
      params: ['P=1'],
    });
    expect(readFileSync(ran, 'utf8')).toBe('extract\nload rows-42 1\nload rows-42 1\nreport\n');
    expect(resumed.steps[0]).toEqual(first.steps[0]);
    expect(resumed.steps.slice(1).map((s) => s.status)).toEqual(['succeeded', 'succeeded']);
    expect(await store.listActive()).toEqual([]);
    const stored = await store.readStatus('run-1');
    expect(stored.kind === 'ok' && stored.status.attempt).toBe(2);
  });

  it('hands its sub-DAG runner to the call steps it runs again', async () => {
    const store = new TempLogRunStore(join(dir, 'logs'));
    const dag = dagOf([stepOf('child', null, { call: 'child-dag' })]);
    const first = await firstAttempt(store, dag);
    expect(first.steps[0].error).toBe('call steps need a sub-DAG runner');

    const subDag: SubDagRunner = async (r) => ({ run_id: r.runId, status: 'succeeded', error: null });
    const resumed = await resumeRun({ ...context(store, dag), runId: 'run-1', subDag });

    expect(resumed.status).toBe('succeeded');
  });

  it('refuses a run that succeeded, one still running and one that does not exist', async () => {
    const store = new TempLogRunStore(join(dir, 'logs'));
    const dag = dagOf([stepOf('fine', 'true')]);
    await firstAttempt(store, dag);

    await expect(resumeRun({ ...context(store, dag), runId: 'run-1' })).rejects.toThrow(
      new RunConflictError('run-1', 'succeeded'),
    );
    await expect(resumeRun({ ...context(store, dag), runId: 'nope' })).rejects.toBeInstanceOf(
      RunNotFoundError,
    );
    const s = await store.readStatus('run-1');
    if (s.kind !== 'ok') throw new Error('no run');
    await store.writeStatus({ ...s.status, status: 'running' });
    await expect(resumeRun({ ...context(store, dag), runId: 'run-1' })).rejects.toThrow(
      'run run-1 is already running',
    );
  });
});

describe('retryRun with a step (Dagu retry --step)', () => {
  it('runs only that step; every other step keeps its status and output, its dependents too', async () => {
    const store = new TempLogRunStore(join(dir, 'logs'));
    const ran = join(dir, 'ran');
    const gate = join(dir, 'gate');
    const dag = dagOf(
      chain([
        stepOf('extract', `echo extract >> "${ran}"; echo rows-42`, { output: 'ROWS' }),
        stepOf('load', `echo "load $ROWS" >> "${ran}"; test -f "${gate}"`),
        stepOf('report', `echo report >> "${ran}"`),
      ]),
    );
    expect((await firstAttempt(store, dag)).status).toBe('failed');
    writeFileSync(gate, '');
    const retried = await retryRun({ ...context(store, dag), runId: 'run-1', step: 'load' });
    expect(retried).toMatchObject({ attempt: 2, status: 'succeeded', trigger_type: 'retry' });
    expect(retried.steps.map((s) => [s.name, s.status])).toEqual([
      ['extract', 'succeeded'],
      ['load', 'succeeded'],
      ['report', 'aborted'],
    ]);
    // extract did not run again, its output reached load, and report stayed as it was.
    expect(readFileSync(ran, 'utf8')).toBe('extract\nload rows-42\nload rows-42\n');
  });

  it('refuses a step the run does not have, before any attempt is made', async () => {
    const store = new TempLogRunStore(join(dir, 'logs'));
    const dag = dagOf([stepOf('only', 'true')]);
    await firstAttempt(store, dag);
    await expect(retryRun({ ...context(store, dag), runId: 'run-1', step: 'nope' })).rejects.toBeInstanceOf(
      StepNotInRunError,
    );
    const now = await store.readStatus('run-1');
    expect(now.kind === 'ok' && now.status.attempt).toBe(1);
  });
});
