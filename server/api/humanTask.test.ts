import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunStatus, StepStatus } from '../core/types';
import { testRunStatus } from '../testing/testRunStatus';
import { API_ROUTES } from './apiRoutes';
import { completeHumanTask } from './humanTask';
import { getRun } from './runs';
import { requestStop } from './stopRun';
import { testServices, type TestServices } from './testServices';

let svc: TestServices;
let started: string[][];
beforeEach(() => {
  svc = testServices();
  svc.writeDag('release', 'steps:\n  - id: review\n    action: human.task\n    with: { prompt: Go? }\n');
  started = [];
  svc.startProcess = async (args) => {
    started.push(args);
    return 4242;
  };
});
afterEach(() => svc.cleanup());

function humanStep(id: string, form: NonNullable<StepStatus['human_task']>['form']): StepStatus {
  return {
    name: id,
    status: 'waiting',
    started_at: null,
    finished_at: null,
    exit_code: null,
    error: null,
    retry_count: 0,
    stdout: null,
    stderr: null,
    output: null,
    human_task: { id, prompt: `Review ${id}`, form, max_size: 64 },
  };
}

const FORM = {
  type: 'object' as const,
  properties: {
    environment: { type: 'string' as const, enum: ['staging', 'production'] },
    replicas: { type: 'integer' as const, minimum: 1, default: 2 },
  },
  required: ['environment'],
  additionalProperties: false,
};

async function waitingRun(steps: StepStatus[]): Promise<RunStatus> {
  const run = testRunStatus({ run_id: 'r-1', dag_name: 'release', status: 'waiting', steps });
  await svc.runs.createRun(run);
  return run;
}

async function post(path: string, body: unknown) {
  const route = API_ROUTES.find((r) => r.path === '/api/v1/runs/:id/human-tasks/:step/complete')!;
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

describe('completeHumanTask', () => {
  it('stores the canonical input and outputs, then starts dagu resume once no task is open', async () => {
    await waitingRun([humanStep('review', FORM), humanStep('ack', null)]);
    const first = await completeHumanTask(svc, {
      runId: 'r-1',
      step: ' review ',
      input: { kind: 'words', words: ['environment=production'] },
    });
    expect(first.message).toBe('Completed human task review; DAG-run remains waiting.');
    expect(started).toEqual([]);
    const after = await getRun(svc, 'r-1');
    expect(after.status).toBe('waiting');
    expect(after.steps[0]).toMatchObject({
      status: 'succeeded',
      outputs: { environment: 'production', replicas: '2' },
      human_task: { input: { environment: 'production', replicas: 2 } },
    });
    const second = await completeHumanTask(svc, {
      runId: 'r-1',
      step: 'ack',
      input: { kind: 'words', words: [] },
    });
    expect(second.message).toBe('Completed human task ack; DAG-run queued for resume.');
    expect(started).toEqual([['resume', '--quiet', 'r-1']]);
    // The same input again (members reordered) changes nothing; the run still waits for its resume: retried.
    const again = await completeHumanTask(svc, {
      runId: 'r-1',
      step: 'review',
      input: { kind: 'json', text: '{"replicas":2,"environment":"production"}' },
    });
    expect(again.message).toBe('Human task review was already completed; DAG-run queued for resume.');
    await expect(
      completeHumanTask(svc, {
        runId: 'r-1',
        step: 'review',
        input: { kind: 'words', words: ['environment=staging'] },
      }),
    ).rejects.toThrow(/review was already completed with different input/);
  });

  it('refuses input over max_output_size and a run that does not wait, changing nothing', async () => {
    await waitingRun([humanStep('review', { ...FORM, additionalProperties: true })]);
    await expect(
      completeHumanTask(svc, {
        runId: 'r-1',
        step: 'review',
        input: { kind: 'words', words: ['environment=staging', `note=${'x'.repeat(80)}`] },
      }),
    ).rejects.toThrow(/review.*maximum size of 64 bytes/);
    expect((await getRun(svc, 'r-1')).steps[0].status).toBe('waiting');
    const stop = await requestStop(svc, 'r-1');
    expect(stop.outcome).toBe('aborted_waiting');
    expect(stop.status.steps[0].status).toBe('aborted');
    await expect(
      completeHumanTask(svc, {
        runId: 'r-1',
        step: 'review',
        input: { kind: 'words', words: ['environment=staging'] },
      }),
    ).rejects.toThrow(/run r-1 is not waiting/);
  });

  it('answers POST /api/v1/runs/:id/human-tasks/:step/complete', async () => {
    await waitingRun([humanStep('review', FORM)]);
    const bad = await post('/api/v1/runs/r-1/human-tasks/review/complete', {
      inputs: { environment: 'mars' },
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toMatch(/environment.*enum/);
    const typed = await post('/api/v1/runs/r-1/human-tasks/review/complete', {
      inputs: { environment: 'staging', replicas: '3' },
    });
    expect(typed.status).toBe(400);
    expect(JSON.stringify(typed.body)).toMatch(/replicas.*expected integer/);
    const ok = await post('/api/v1/runs/r-1/human-tasks/review/complete', {
      inputs: { environment: 'staging', replicas: 3 },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ outcome: 'completed_resumed' });
    expect(started).toEqual([['resume', '--quiet', 'r-1']]);
    const missing = await post('/api/v1/runs/r-1/human-tasks/other/complete', {});
    expect(missing.status).toBe(404);
  });
});
