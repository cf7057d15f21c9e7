import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidNameError } from '../core/names';
import { BadRequestError, CorruptRecordError, NotFoundError } from './errors';
import { enqueueDag } from './queue';
import { waitingConditions } from '../core/distributed';
import { testTask } from '../store/dispatchStore.contract';
import { testRunStatus } from '../testing/testRunStatus';
import { compileRunListQuery, getRun, listRuns, viewRun } from './runs';
import { T0, testServices, type TestServices } from './testServices';

let svc: TestServices;
beforeEach(() => {
  svc = testServices();
  svc.writeDag('a', 'steps:\n  - name: s\n    command: "true"\n');
  svc.writeDag('b', 'steps:\n  - name: s\n    command: "true"\n');
});
afterEach(() => svc.cleanup());

describe('listRuns', () => {
  it('lists runs newest first, filtered by DAG and status, one page at a time', async () => {
    const ids: string[] = [];
    for (const dag of ['a', 'b', 'a', 'a']) {
      ids.push((await enqueueDag(svc, dag, [])).run_id);
      svc.clock.advance(1000);
    }
    const first = await listRuns(svc, { dag: 'a', limit: '2' });
    expect(first.items.map((r) => r.run_id)).toEqual([ids[3], ids[2]]);
    const second = await listRuns(svc, { dag: 'a', limit: '2', cursor: first.next_cursor });
    expect(second.items.map((r) => r.run_id)).toEqual([ids[0]]);
    expect((await listRuns(svc, { status: 'failed' })).items).toEqual([]);
    expect((await listRuns(svc, { status: 'queued' })).items).toHaveLength(4);
  });

  it('names the field of an invalid query', () => {
    expect(() => compileRunListQuery({ status: 'done' })).toThrow(
      /^status: "done" is not one of queued, running/,
    );
    expect(() => compileRunListQuery({ limit: '0' })).toThrow(/^limit: "0" must be an integer from 1 to 500/);
    expect(() => compileRunListQuery({ limit: 'ten' })).toThrow(BadRequestError);
    expect(() => compileRunListQuery({ dag: '../x' })).toThrow(InvalidNameError);
    expect(() => compileRunListQuery({ trigger: 'cron' })).toThrow(
      /^trigger: "cron" is not one of scheduler/,
    );
    expect(() => compileRunListQuery({ from: 'yesterday' })).toThrow(/^from: "yesterday" is not an RFC 3339/);
    expect(() => compileRunListQuery({ to: '2026-03-01' })).toThrow(/^to: /);
    expect(() => compileRunListQuery({ from: '2026-03-02T00:00:00Z', to: '2026-03-01T00:00:00Z' })).toThrow(
      /^from: .* is after to/,
    );
  });

  it('compiles a trigger and a time range into the store query', () => {
    expect(
      compileRunListQuery({
        trigger: 'scheduler',
        from: '2026-03-01T00:00:00Z',
        to: '2026-03-01T01:00:00+01:00',
      }),
    ).toEqual({
      trigger: 'scheduler',
      createdFromMs: Date.UTC(2026, 2, 1),
      createdToMs: Date.UTC(2026, 2, 1),
      limit: 50,
    });
  });

  it('treats empty query values as absent and pages 50 runs by default', () => {
    expect(compileRunListQuery({ dag: '', status: '', limit: '', cursor: '' })).toEqual({ limit: 50 });
  });
});

describe('getRun', () => {
  it('fails with NotFoundError for an unknown run and InvalidNameError for a malformed ID', async () => {
    await expect(getRun(svc, 'unknown')).rejects.toBeInstanceOf(NotFoundError);
    await expect(getRun(svc, 'a/b')).rejects.toBeInstanceOf(InvalidNameError);
  });

  it('reports a corrupt status file as such, naming the file', async () => {
    svc.runs.readStatus = async () => ({
      kind: 'corrupt',
      error: 'Unexpected end of JSON input',
      path: '/data/x/status.json',
    });
    const err = await getRun(svc, 'x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CorruptRecordError);
    expect((err as Error).message).toBe(
      'run x has a corrupt status file (/data/x/status.json): Unexpected end of JSON input',
    );
  });
});

describe('viewRun', () => {
  it('shows a held run as waiting for a coordinator while none is alive; the record keeps what it said', async () => {
    // As the coordinator's dispatcher holds it: queued with why, and a held task.
    await svc.runs.createRun(
      testRunStatus({
        run_id: 'held-1',
        status: 'queued',
        worker_selector: { zone: 'b' },
        conditions: waitingConditions('NoAvailableWorker', { zone: 'b' }, '2026-11-30T01:14:30Z'),
      }),
    );
    await svc.tasks.enqueue(
      testTask({ run_id: 'held-1', enqueued_at_ms: T0, hold_until_ms: T0 + 120_000, wait_ms: 120_000 }),
    );
    expect((await viewRun(svc, 'held-1')).conditions[0].reason).toBe('NoAvailableWorker');

    const [record] = await svc.coordinators.list();
    await svc.coordinators.put({ ...record, last_seen_ms: T0 + 5000, stopped_at_ms: T0 + 5000 });
    svc.clock.advance(10_000);

    const shown = await viewRun(svc, 'held-1');
    expect(shown.conditions.map((c) => `${c.type}=${c.status} ${c.reason}: ${c.message}`)).toEqual([
      'Runnable=False NoAvailableCoordinator: no coordinators available',
      'WorkerReady=False NoAvailableCoordinator: no coordinators available',
    ]);
    expect(shown.conditions[0].checked_at).toBe('2026-11-30T01:14:35Z');
    expect((await getRun(svc, 'held-1')).conditions[0].reason).toBe('NoAvailableWorker');
    // A run that does not wait for a worker is shown as it is.
    const local = await enqueueDag(svc, 'a', []);
    expect(await viewRun(svc, local.run_id)).toEqual(local);
  });
});
