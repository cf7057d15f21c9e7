import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyPushBack } from '../core/approval';
import { newRunStatus } from '../core/runStatus';
import type { DagSpec } from '../core/types';
import { dagOf, runDag, stepOf, tempDir } from './testSupport';

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(() => cleanup());

function approvalDag(out: string): DagSpec {
  return dagOf([
    stepOf('build', `echo "build $DAG_PUSHBACK_ITERATION $FEEDBACK" >> ${out}`),
    stepOf('review', `echo review >> ${out}`, {
      depends: ['build'],
      approval: { prompt: 'Ship ${DAG_RUN_ID}?', input: ['FEEDBACK'], required: [], rewind_to: 'build' },
    }),
    stepOf('other', 'true'),
    stepOf('deploy', `echo "deploy $TICKET" >> ${out}`, { depends: ['review'] }),
  ]);
}

describe('a step approval in a run', () => {
  it('runs the command, then waits; the rest that does not depend on it goes on', async () => {
    const out = join(dir, 'out.txt');
    const { final } = await runDag(approvalDag(out), dir);
    expect(final.status).toBe('waiting');
    expect(final.error).toBeNull();
    expect(final.steps.map((s) => s.status)).toEqual(['succeeded', 'waiting', 'succeeded', 'not_started']);
    expect(final.steps[1].approval).toEqual({
      prompt: 'Ship ${DAG_RUN_ID}?',
      input: ['FEEDBACK'],
      required: [],
      rewind_to: 'build',
    });
    expect(readFileSync(out, 'utf8')).toBe('build  \nreview\n');
  });

  it('a failed command fails the step without waiting', async () => {
    const dag = dagOf([
      stepOf('review', 'exit 2', { approval: { prompt: '', input: [], required: [], rewind_to: null } }),
    ]);
    const { final } = await runDag(dag, dir);
    expect(final.status).toBe('failed');
    expect(final.steps[0].approval).toBeUndefined();
  });

  it('resumes an approved step with its inputs visible downstream', async () => {
    const out = join(dir, 'out.txt');
    const dag = approvalDag(out);
    const first = await runDag(dag, dir);
    const review = first.final.steps[1];
    Object.assign(review, { status: 'succeeded', output: { TICKET: 'T-1' } });
    const { final } = await runDag(dag, dir, { resumeFrom: first.final.steps });
    expect(final.status).toBe('succeeded');
    expect(readFileSync(out, 'utf8')).toBe('build  \nreview\ndeploy T-1\n');
  });

  it('reruns from rewind_to after a push-back, with the push-back variables', async () => {
    const out = join(dir, 'out.txt');
    const dag = dagOf([
      stepOf(
        'build',
        `echo "build $DAG_PUSHBACK_ITERATION $FEEDBACK $OTHER" >> ${out}; echo "$DAG_PUSHBACK" > ${join(dir, 'payload')}; cat "$DAG_PUSHBACK_PREVIOUS_STDOUT_FILE" > ${join(dir, 'prev')} 2>/dev/null || true; echo "built $DAG_PUSHBACK_ITERATION"`,
      ),
      stepOf('review', 'echo reviewed', {
        depends: ['build'],
        approval: { prompt: '', input: ['FEEDBACK'], required: [], rewind_to: 'build' },
      }),
    ]);
    const first = await runDag(dag, dir, { logDir: join(dir, 'logs/test-dag/run-1/1') });
    expect([first.final.status, first.final.error]).toEqual(['waiting', null]);
    const pushed = applyPushBack(
      first.final,
      'review',
      { FEEDBACK: 'more tests', OTHER: 'x' },
      '2026-01-01T00:00:00Z',
    )!;
    expect(pushed.steps.map((s) => [s.status, s.push_back?.iteration])).toEqual([
      ['not_started', 1],
      ['not_started', 1],
    ]);
    const status = newRunStatus({
      dag,
      runId: 'run-1',
      status: 'running',
      triggerType: 'retry',
      scheduleTime: null,
      params: [],
      nowIso: new Date().toISOString(),
      logDir: 'test-dag/run-1/2',
    });
    const { final } = await runDag(dag, dir, {
      status,
      resumeFrom: pushed.steps,
      logDir: join(dir, 'logs/test-dag/run-1/2'),
    });
    expect(final.status).toBe('waiting');
    expect(readFileSync(out, 'utf8')).toBe('build   \nbuild 1 more tests \n');
    expect(JSON.parse(readFileSync(join(dir, 'payload'), 'utf8'))).toEqual({
      iteration: 1,
      at: '2026-01-01T00:00:00Z',
      inputs: { FEEDBACK: 'more tests' },
      history: [{ iteration: 1, at: '2026-01-01T00:00:00Z', inputs: { FEEDBACK: 'more tests' } }],
    });
    expect(final.steps[0].push_back?.iteration).toBe(1);
    expect(readFileSync(join(dir, 'prev'), 'utf8')).toBe('built \n');
  });

  it('fails a run on a worker, and a child run, before any step starts', async () => {
    const dag = approvalDag(join(dir, 'out.txt'));
    const status = newRunStatus({
      dag,
      runId: 'run-1',
      status: 'running',
      triggerType: 'manual',
      scheduleTime: null,
      params: [],
      nowIso: new Date().toISOString(),
      logDir: 'test-dag/run-1/1',
    });
    status.worker_id = 'w-1';
    const { final } = await runDag(dag, dir, { status: structuredClone(status) });
    expect(final.status).toBe('failed');
    expect(final.error).toMatch(/step approvals are not supported in runs on workers/);
    status.worker_id = null;
    status.parent = { dag_name: 'p', run_id: 'p1', step: 'call' };
    const child = await runDag(dag, dir, { status });
    expect(child.final.error).toMatch(/step approvals are not permitted in child DAGs/);
  });
});
