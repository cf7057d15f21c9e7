import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../core/clock';
import { RUN_ID_PATTERN } from '../core/names';
import type { ParallelSpec, StepSpec, StepStatus } from '../core/types';
import {
  childResult,
  runCallStep,
  SubDagStartError,
  subRunId,
  type CallStepRun,
  type SubDagRequest,
  type SubDagResult,
} from './subDag';
import { newRunStatus } from '../core/runStatus';
import { dagOf, stepOf, tempDir } from './testSupport';

describe('subRunId', () => {
  it('is the same for the same parent run, step, attempt and child', () => {
    expect(subRunId('20260101T000000Z-ab12', 'load', 1, 'etl')).toBe(
      subRunId('20260101T000000Z-ab12', 'load', 1, 'etl'),
    );
  });

  it('differs between steps, parents, attempts, children and salts', () => {
    const ids = new Set([
      subRunId('run-a', 'load', 1),
      subRunId('run-a', 'store', 1),
      subRunId('run-b', 'load', 1),
      subRunId('run-a', 'load', 2),
      subRunId('run-a', 'load', 1, 'etl A=1'),
      subRunId('run-a', 'load', 1, 'etl A=2'),
      subRunId('run-a', 'load', 1, '', 'r4nd'),
    ]);
    expect(ids.size).toBe(7);
  });

  it('starts with the parent run ID so the family shows in run lists', () => {
    expect(subRunId('nightly-etl-1', 'load')).toMatch(/^nightly-etl-1-[0-9a-f]{12}$/);
  });

  it('always fits the run ID pattern, even for a 64-character parent and an odd step name', () => {
    const longParent = 'x'.repeat(64);
    for (const id of [
      subRunId(longParent, 'step with spaces / and ünïcode', 7),
      subRunId('a', ''),
      subRunId(longParent, 'y'.repeat(500), 1000),
    ]) {
      expect(id).toMatch(RUN_ID_PATTERN);
      expect(id.length).toBeLessThanOrEqual(64);
    }
  });
});

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('dagu-callstep-')));
afterEach(() => cleanup());

function fresh(name: string): StepStatus {
  return {
    name,
    status: 'not_started',
    started_at: null,
    finished_at: null,
    exit_code: null,
    error: null,
    retry_count: 0,
    stdout: null,
    stderr: null,
    output: null,
  };
}

/** Runs a call step against a runner that answers each request with `answer`. */
async function callStep(
  step: StepSpec,
  answer: (r: SubDagRequest) => Promise<SubDagResult>,
  extra: Partial<CallStepRun> = {},
) {
  const files = { stdout: join(dir, 'call.out'), stderr: join(dir, 'call.err') };
  writeFileSync(files.stdout, '');
  const status = fresh(step.name);
  const requests: SubDagRequest[] = [];
  const state = await runCallStep({
    step,
    status,
    parent: { run_id: 'run-1', dag_name: 'parent', step: step.name },
    attempt: 1,
    runner: (r) => {
      requests.push(r);
      return answer(r);
    },
    files,
    clock: systemClock,
    stop: new AbortController().signal,
    onChange: () => {},
    ...extra,
  });
  return { state, status, requests, stdout: readFileSync(files.stdout, 'utf8') };
}

const ended =
  (status: SubDagResult['status'], outputs: Record<string, string> = {}) =>
  async (r: SubDagRequest): Promise<SubDagResult> => ({
    run_id: r.runId,
    dag_name: r.dagName,
    status,
    error: status === 'failed' ? 'step "x" failed' : null,
    params: r.params,
    outputs,
  });

const parallel = (p: Partial<ParallelSpec>): ParallelSpec => ({
  variable: null,
  items: [],
  max_concurrent: 10,
  ...p,
});

describe('childResult', () => {
  it("keeps the child's output variables and its published values apart, handlers last", () => {
    const s = newRunStatus({
      dag: dagOf([stepOf('a', 'true'), stepOf('b', 'true')], { name: 'child' }),
      runId: 'r1',
      status: 'succeeded',
      triggerType: 'subdag',
      scheduleTime: null,
      params: ['X=1'],
      nowIso: '2026-01-01T00:00:00Z',
    });
    s.steps[0].output = { SCRATCH: 'scratch' };
    s.steps[0].published_outputs = { verdict: 'draft', n: 1 };
    s.steps[1].published_outputs = { verdict: 'clean' };
    s.handlers.exit = { ...s.steps[1], name: 'onExit', published_outputs: { from_handler: { ok: true } } };
    expect(childResult(s)).toEqual({
      run_id: 'r1',
      dag_name: 'child',
      status: 'succeeded',
      error: null,
      params: ['X=1'],
      outputs: { SCRATCH: 'scratch' },
      output_values: { verdict: 'clean', n: 1, from_handler: { ok: true } },
    });
    // Nothing published: no output_values at all (Dagu omits outputValues).
    s.steps.forEach((st) => (st.published_outputs = null));
    delete s.handlers.exit;
    expect(childResult(s)).not.toHaveProperty('output_values');
  });
});

describe('runCallStep', () => {
  it("writes the child's result as Dagu's indented JSON and captures it in the step's output", async () => {
    const step = stepOf('call', null, {
      call: 'child',
      params: [{ name: 'A', value: '1' }],
      output: 'CHILD',
    });
    const r = await callStep(step, ended('succeeded', { Z: 'last', GREETING: 'a<b' }));
    expect(r.state).toBe('succeeded');
    const id = r.requests[0].runId;
    expect(r.stdout).toBe(
      [
        '{',
        '  "name": "child",',
        `  "dagRunId": "${id}",`,
        '  "params": "A=1",',
        '  "outputs": {',
        '    "GREETING": "a\\u003cb",',
        '    "Z": "last"',
        '  },',
        '  "status": "succeeded"',
        '}',
        '',
      ].join('\n'),
    );
    expect(JSON.parse(r.status.output!.CHILD).outputs.GREETING).toBe('a<b');
    expect(r.status.sub_runs).toEqual([{ dag_name: 'child', run_id: id, status: 'succeeded' }]);
  });

  it('ends partially succeeded when the child did, and failed with the run and status when it failed', async () => {
    const step = stepOf('call', null, { call: 'child' });
    expect((await callStep(step, ended('partially_succeeded'))).state).toBe('partially_succeeded');
    const failed = await callStep(step, ended('failed'));
    expect(failed.state).toBe('failed');
    expect(failed.status.error).toBe(
      `sub-DAG run ${failed.requests[0].runId} ended with status failed: step "x" failed`,
    );
    expect(failed.status.sub_runs![0].status).toBe('failed');
  });

  it('fails with the start error when the child could not start, and writes no JSON', async () => {
    const step = stepOf('call', null, { call: 'nope' });
    const r = await callStep(step, async () => {
      throw new SubDagStartError('nope', 'failed to find DAG "nope"');
    });
    expect(r).toMatchObject({ state: 'failed', stdout: '' });
    expect(r.status.error).toBe('failed to find DAG "nope"');
  });

  it('queues the child for dag.enqueue and succeeds at once', async () => {
    const step = stepOf('q', null, {
      call: 'child',
      action: { kind: 'dag', mode: 'enqueue', queue: 'batch' },
    });
    const r = await callStep(step, ended('queued'));
    expect(r.state).toBe('succeeded');
    expect(r.requests[0]).toMatchObject({ mode: 'enqueue', queue: 'batch' });
  });

  it('runs every item with at most max_concurrent children at once and sums them up', async () => {
    let running = 0;
    let started = 0;
    let peak = 0;
    // Each child waits until the cap is reached (or every item has started), so the peak is the cap however
    // the children happen to be scheduled; if the cap were not kept, the peak would exceed it.
    let waiters: Array<() => void> = [];
    const step = stepOf('fan', null, {
      call: 'child',
      parallel: parallel({ items: ['a', 'b', 'c', 'd', 'e', 'f', 'g'], max_concurrent: 3 }),
    });
    const r = await callStep(step, async (req) => {
      running++;
      started++;
      peak = Math.max(peak, running);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        if (running >= 3 || started === 7) {
          for (const w of waiters) w();
          waiters = [];
        }
      });
      running--;
      const item = req.params[0];
      return ended(item === 'c' ? 'failed' : 'succeeded', { ITEM_SEEN: item })(req);
    });
    expect(peak).toBe(3);
    expect(r.requests).toHaveLength(7);
    expect(r.state).toBe('failed');
    expect(r.status.error).toMatch(/^parallel execution failed: 1 of 7 sub-DAG runs did not succeed/);
    const out = JSON.parse(r.stdout);
    expect(out.summary).toEqual({ total: 7, succeeded: 6, failed: 1 });
    expect(out.results).toHaveLength(7);
    expect(out.outputs).toHaveLength(6);
    expect(r.status.sub_runs!.map((s) => s.item)).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
  });

  it('is partially succeeded when every child succeeded and some only partially', async () => {
    const step = stepOf('fan', null, { call: 'child', parallel: parallel({ items: ['a', 'b'] }) });
    const r = await callStep(step, async (req) =>
      ended(req.params[0] === 'a' ? 'partially_succeeded' : 'succeeded')(req),
    );
    expect(r.state).toBe('partially_succeeded');
  });

  it('gives each child of a step that runs again a new run ID', async () => {
    const step = stepOf('call', null, { call: 'child' });
    const first = await callStep(step, ended('succeeded'));
    const again = await callStep(step, ended('succeeded'), { repeated: true });
    expect(again.requests[0].runId).not.toBe(first.requests[0].runId);
    expect(again.requests[0].runId).toMatch(RUN_ID_PATTERN);
  });

  it('aborts the children and ends aborted when the parent stops', async () => {
    const stop = new AbortController();
    const step = stepOf('call', null, { call: 'child' });
    const r = await callStep(
      step,
      (req) =>
        new Promise((resolve) => {
          req.signal.addEventListener('abort', () =>
            resolve({ run_id: req.runId, status: 'aborted', error: 'stopped' }),
          );
          stop.abort({ kind: 'aborted', signal: 'SIGTERM', message: 'run aborted (SIGTERM)' });
        }),
      { stop: stop.signal },
    );
    expect(r.state).toBe('aborted');
    expect(r.status.error).toBe('run aborted (SIGTERM)');
  });
});
