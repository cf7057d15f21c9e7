import { describe, expect, it } from 'vitest';
import { fromDaguAttempt, type ConvertOptions } from './daguRunRecord';

const opts = (over: Partial<ConvertOptions> = {}): ConvertOptions => ({
  attempt: 1,
  logDir: 'etl/r1/1',
  logNames: (name) => ({ stdoutRelative: `etl/r1/1/${name}.out`, stderrRelative: `etl/r1/1/${name}.err` }),
  subRuns: () => null,
  parent: null,
  ...over,
});

/** The shape Dagu 1.30.2 writes (one line of status.jsonl). */
const record = (over: Record<string, unknown> = {}) => ({
  name: 'etl',
  dagRunId: 'r1',
  status: 2,
  createdAt: Date.parse('2026-12-02T07:00:00Z'),
  startedAt: '2026-12-02T07:00:01Z',
  finishedAt: '2026-12-02T07:00:03Z',
  paramsList: ['DAY=tuesday'],
  workerId: 'local',
  nodes: [
    {
      step: { name: 'extract' },
      stdout: '/home/ops/.dagu/logs/etl/x/extract.out',
      stderr: '/home/ops/.dagu/logs/etl/x/extract.err',
      startedAt: '2026-12-02T07:00:01Z',
      finishedAt: '2026-12-02T07:00:02Z',
      status: 4,
      outputVariables: { ROWS: 'ROWS=42', 'DAGU_CONTINUE_ON.extract': 'x' },
    },
    {
      step: { name: 'load', depends: ['extract'] },
      stdout: '',
      stderr: '',
      startedAt: '2026-12-02T07:00:02Z',
      finishedAt: '2026-12-02T07:00:03Z',
      status: 2,
      retryCount: 1,
      error: 'failed to execute step "load": exit status 3',
    },
    {
      step: { name: 'report' },
      stdout: '',
      stderr: '',
      startedAt: '',
      finishedAt: '',
      status: 3,
      error: 'upstream failed',
    },
  ],
  onFailure: {
    step: { name: 'onFailure' },
    stdout: '/l/f.out',
    stderr: '',
    startedAt: '2026-12-02T07:00:03Z',
    status: 4,
  },
  onSuccess: {
    step: { name: 'onSuccess' },
    stdout: '',
    stderr: '',
    startedAt: '',
    finishedAt: '',
    status: 0,
  },
  ...over,
});

describe('fromDaguAttempt', () => {
  it("turns Dagu's record into a run status of ours, with the logs to copy", () => {
    const c = fromDaguAttempt(record(), opts());
    if (!c.ok) throw new Error(c.reason);
    expect(c.status).toMatchObject({
      dag_name: 'etl',
      run_id: 'r1',
      attempt: 1,
      status: 'failed',
      trigger_type: 'manual',
      params: ['DAY=tuesday'],
      created_at: '2026-12-02T07:00:00.000Z',
      started_at: '2026-12-02T07:00:01Z',
      worker_id: 'local',
      log_dir: 'etl/r1/1',
      queue: 'etl',
    });
    const [extract, load, report] = c.status.steps;
    expect(extract).toMatchObject({
      status: 'succeeded',
      exit_code: 0,
      output: { ROWS: '42' },
      stdout: 'etl/r1/1/extract.out',
    });
    expect(load).toMatchObject({
      status: 'failed',
      exit_code: 3,
      retry_count: 1,
      stdout: null,
      depends: ['extract'],
    });
    expect(report).toMatchObject({ status: 'aborted', started_at: null, skip_reason: 'upstream failed' });
    // A handler Dagu never ran (status 0) is not recorded.
    expect(Object.keys(c.status.handlers)).toEqual(['failure']);
    expect(c.logs.map((l) => [l.from, l.field, l.step.name])).toEqual([
      ['/home/ops/.dagu/logs/etl/x/extract.out', 'stdout', 'extract'],
      ['/home/ops/.dagu/logs/etl/x/extract.err', 'stderr', 'extract'],
      ['/l/f.out', 'stdout', 'onFailure'],
    ]);
  });

  it('marks later attempts as retries and sub-runs as subdag, and names sub-runs by what is known of them', () => {
    const parentRec = record({
      status: 4,
      nodes: [{ step: { name: 'call' }, status: 4, children: [{ dagRunId: 'c1' }] }],
    });
    const c = fromDaguAttempt(
      parentRec,
      opts({ attempt: 2, subRuns: () => ({ dag_name: 'child', status: 'succeeded' }) }),
    );
    expect(c.ok && c.status.trigger_type).toBe('retry');
    expect(c.ok && c.status.steps[0].sub_runs).toEqual([
      { dag_name: 'child', run_id: 'c1', status: 'succeeded' },
    ]);
    const sub = fromDaguAttempt(
      record({ status: 6 }),
      opts({ parent: { dag_name: 'p', run_id: 'p1', step: 'call' } }),
    );
    expect(sub.ok && [sub.status.trigger_type, sub.status.status]).toEqual(['subdag', 'partially_succeeded']);
  });

  it('leaves out a run Dagu has not finished, and reads a rejected one as rejected', () => {
    expect(fromDaguAttempt(record({ status: 5 }), opts())).toEqual({
      ok: false,
      reason: 'it is queued in Dagu; only finished runs are imported',
    });
    expect(fromDaguAttempt(record({ status: 1 }), opts())).toMatchObject({ ok: false });
    expect(fromDaguAttempt(record({ status: 8 }), opts())).toMatchObject({
      ok: true,
      status: { status: 'rejected' },
    });
    expect(fromDaguAttempt({ name: 'x' }, opts())).toMatchObject({ ok: false });
    expect(fromDaguAttempt(record({ status: 42 }), opts())).toEqual({
      ok: false,
      reason: 'unknown status 42',
    });
  });
});
