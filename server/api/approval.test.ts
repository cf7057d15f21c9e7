import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunStatus, StepStatus } from '../core/types';
import { testRunStatus } from '../testing/testRunStatus';
import { API_ROUTES } from './apiRoutes';
import { approveStep, pushBackStep, rejectStep } from './approval';
import { getRun } from './runs';
import { testServices, type TestServices } from './testServices';

let svc: TestServices;
let started: string[][];
beforeEach(() => {
  svc = testServices();
  svc.writeDag(
    'release',
    'steps:\n  - name: build\n    run: make\n  - name: review\n    run: "true"\n    depends: [build]\n    approval: { input: [TICKET, NOTE], required: [TICKET], rewind_to: build }\n  - name: deploy\n    run: "true"\n    depends: [review]\n',
  );
  started = [];
  svc.startProcess = async (args) => {
    started.push(args);
    return 4242;
  };
});
afterEach(() => svc.cleanup());

function step(name: string, status: StepStatus['status'], extra: Partial<StepStatus> = {}): StepStatus {
  return {
    name,
    status,
    started_at: null,
    finished_at: null,
    exit_code: null,
    error: null,
    retry_count: 0,
    stdout: `release/r-1/1/${name}.out`,
    stderr: null,
    output: null,
    ...extra,
  };
}

const GATE = { prompt: 'Ship?', input: ['TICKET', 'NOTE'], required: ['TICKET'], rewind_to: 'build' };

async function waitingRun(): Promise<RunStatus> {
  const run = testRunStatus({
    run_id: 'r-1',
    dag_name: 'release',
    status: 'waiting',
    steps: [
      step('build', 'succeeded'),
      step('review', 'waiting', { depends: ['build'], approval: GATE }),
      step('deploy', 'not_started', { depends: ['review'] }),
    ],
  });
  await svc.runs.createRun(run);
  return run;
}

async function post(action: string, path: string, body: unknown) {
  const route = API_ROUTES.find((r) => r.path === `/api/v1/runs/:id/approvals/:step/${action}`)!;
  const [, , , id, , step] = path.split('/').slice(1);
  const res = await route.handlers.POST!(
    svc,
    new Request(`http://127.0.0.1:8080${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    }),
    { id, step },
  );
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('step approvals', () => {
  it('approve checks the required inputs, stores them as outputs and resumes the run', async () => {
    await waitingRun();
    await expect(approveStep(svc, { runId: 'r-1', step: 'review', inputs: { NOTE: 'x' } })).rejects.toThrow(
      'missing required inputs: [TICKET]',
    );
    await expect(
      approveStep(svc, { runId: 'r-1', step: 'build', inputs: { TICKET: 'T-1' } }),
    ).rejects.toThrow(/step build is not waiting for approval \(status: succeeded\)/);
    const r = await approveStep(svc, { runId: 'r-1', step: 'review', inputs: { TICKET: 'T-1' } });
    expect(r.message).toBe('Approved step review; DAG-run queued for resume.');
    expect(started).toEqual([['resume', '--quiet', 'r-1']]);
    const after = await getRun(svc, 'r-1');
    expect(after.steps[1]).toMatchObject({
      status: 'succeeded',
      output: { TICKET: 'T-1' },
      approval: { inputs: { TICKET: 'T-1' } },
    });
    await expect(approveStep(svc, { runId: 'r-1', step: 'review', inputs: { TICKET: 'T' } })).rejects.toThrow(
      /step review is not waiting for approval \(status: succeeded\)/,
    );
  });

  it('reject ends the step and the run rejected, without a resume', async () => {
    await waitingRun();
    const r = await rejectStep(svc, { runId: 'r-1', step: 'review', reason: 'not now' });
    expect(r.outcome).toBe('rejected');
    expect(started).toEqual([]);
    const after = await getRun(svc, 'r-1');
    expect(after.status).toBe('rejected');
    expect(after.finished_at).not.toBeNull();
    expect(after.steps[1]).toMatchObject({ status: 'rejected', approval: { reason: 'not now' } });
    await expect(rejectStep(svc, { runId: 'r-1', step: 'review' })).rejects.toThrow(
      /run r-1 is not waiting for approval \(status: rejected\)/,
    );
  });

  it('push-back resets rewind_to and its downstream steps and resumes', async () => {
    await waitingRun();
    const r = await pushBackStep(svc, {
      runId: 'r-1',
      step: 'review',
      inputs: { TICKET: 'T-1', NOTE: 'more tests', EXTRA: 'dropped' },
    });
    expect(r.message).toBe('Pushed back step review (iteration 1); DAG-run queued for resume.');
    expect(started).toEqual([['resume', '--quiet', 'r-1']]);
    const after = await getRun(svc, 'r-1');
    expect(after.steps.map((s) => [s.name, s.status, s.push_back?.iteration])).toEqual([
      ['build', 'not_started', 1],
      ['review', 'not_started', 1],
      ['deploy', 'not_started', 1],
    ]);
    expect(after.steps[0].push_back).toMatchObject({
      inputs: { NOTE: 'more tests', TICKET: 'T-1' },
      previous_stdout: 'release/r-1/1/build.out',
    });
    expect(after.steps[0].push_back?.history[0].at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('answers the three routes with JSON bodies', async () => {
    await waitingRun();
    const bad = await post('approve', '/api/v1/runs/r-1/approvals/review/approve', { inputs: { TICKET: 3 } });
    expect(bad.status).toBe(400);
    const missing = await post('approve', '/api/v1/runs/r-1/approvals/nope/approve', {});
    expect(missing.status).toBe(404);
    const ok = await post('reject', '/api/v1/runs/r-1/approvals/review/reject', { reason: 'no' });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ outcome: 'rejected', status: { status: 'rejected' } });
    const late = await post('push-back', '/api/v1/runs/r-1/approvals/review/push-back', {});
    expect(late.status).toBe(409);
  });
});
