import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StepStatus } from '../core/types';
import { testRunStatus } from '../testing/testRunStatus';
import { getDagHistory, parseHistoryLimit } from './dagHistory';
import { BadRequestError, NotFoundError } from './errors';
import { testServices, type TestServices } from './testServices';

const DAG = 'steps:\n  - name: extract\n    command: "true"\n  - name: load\n    command: "true"\n';

let svc: TestServices;
beforeEach(() => {
  svc = testServices();
});
afterEach(() => svc.cleanup());

function step(name: string, status: StepStatus['status']): StepStatus {
  return {
    name,
    status,
    started_at: '2026-03-01T10:00:01.000Z',
    finished_at: '2026-03-01T10:00:02.000Z',
    exit_code: 0,
    error: null,
    retry_count: 0,
    stdout: null,
    stderr: null,
    output: null,
  };
}

async function addRun(id: string, minute: number, status: 'succeeded' | 'failed', steps: StepStatus[]) {
  const at = (s: number) =>
    `2026-03-01T10:${String(minute).padStart(2, '0')}:${String(s).padStart(2, '0')}.000Z`;
  await svc.runs.createRun(
    testRunStatus({
      run_id: id,
      dag_name: 'etl',
      status,
      created_at: at(0),
      started_at: at(1),
      finished_at: at(31),
      steps,
    }),
  );
}

describe('getDagHistory', () => {
  it('answers the newest runs first with each step state, and the step columns of file and history', async () => {
    svc.writeDag('etl', DAG);
    await addRun('r1', 1, 'succeeded', [step('extract', 'succeeded'), step('load', 'succeeded')]);
    await addRun('r2', 2, 'failed', [
      step('extract', 'failed'),
      step('load', 'skipped'),
      step('old', 'succeeded'),
    ]);

    const history = await getDagHistory(svc, 'etl', 30);

    expect(history.steps).toEqual(['extract', 'load', 'old']);
    expect(history.runs.map((r) => r.run_id)).toEqual(['r2', 'r1']);
    expect(history.runs[0]).toMatchObject({ status: 'failed', duration_ms: 30_000, trigger_type: 'manual' });
    expect(history.runs[0].steps?.load.status).toBe('skipped');
    expect(history.runs[1].steps?.extract).toEqual({
      status: 'succeeded',
      started_at: '2026-03-01T10:00:01.000Z',
      finished_at: '2026-03-01T10:00:02.000Z',
      retry_count: 0,
    });
  });

  it('reads only as many runs as asked for', async () => {
    svc.writeDag('etl', DAG);
    for (let i = 1; i <= 5; i++) await addRun(`r${i}`, i, 'succeeded', [step('extract', 'succeeded')]);

    const history = await getDagHistory(svc, 'etl', 2);

    expect(history.runs.map((r) => r.run_id)).toEqual(['r5', 'r4']);
  });

  it('serves the history of a DAG whose file is gone, and 404 for a DAG with neither file nor runs', async () => {
    await addRun('r1', 1, 'succeeded', [step('extract', 'succeeded')]);
    expect((await getDagHistory(svc, 'etl')).steps).toEqual(['extract']);
    await expect(getDagHistory(svc, 'nothing')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('refuses a limit out of range, naming the field', () => {
    expect(parseHistoryLimit(null)).toBe(30);
    expect(parseHistoryLimit('7')).toBe(7);
    expect(() => parseHistoryLimit('0')).toThrow(BadRequestError);
    expect(() => parseHistoryLimit('abc')).toThrow(/limit: "abc"/);
  });
});
