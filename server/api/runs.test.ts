import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidNameError } from '../core/names';
import { BadRequestError, CorruptRecordError, NotFoundError } from './errors';
import { enqueueDag } from './queue';
import { waitingConditions } from '../core/distributed';
import { testTask } from '../store/dispatchStore.contract';
import { testRunStatus } from '../testing/testRunStatus';
import {
  MAX_LABEL_SCAN,
  MAX_LABEL_SCAN_PAGES,
  compileLabelFilters,
  compileRunListQuery,
  getRun,
  listRuns,
  viewRun,
} from './runs';
import type { RunSummary } from '../store/types';
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

describe('listRuns with labels', () => {
  const summaryOf = (n: number): RunSummary => ({
    dag_name: 'a',
    run_id: `r${n}`,
    attempt: 1,
    status: 'succeeded',
    trigger_type: 'manual',
    schedule_time: null,
    queue: 'a',
    created_at: new Date(T0).toISOString(),
    queued_at: null,
    started_at: null,
    finished_at: null,
    error: null,
  });

  /** Enqueues runs of DAG `a` with these labels, oldest first, one second apart; their IDs. */
  async function enqueueLabelled(labels: string[][]): Promise<string[]> {
    const ids: string[] = [];
    for (const l of labels) {
      ids.push((await enqueueDag(svc, 'a', [], { labels: l })).run_id);
      svc.clock.advance(1000);
    }
    return ids;
  }

  it('keeps the runs whose labels pass every filter, as dagu history --labels: key, key=value, !key, globs', async () => {
    const ids = await enqueueLabelled([['team=data', 'nightly'], ['team=web'], [], ['team=data']]);
    const runIds = async (labels: string) => (await listRuns(svc, { labels })).items.map((r) => r.run_id);
    expect(await runIds('team=data')).toEqual([ids[3], ids[0]]);
    expect(await runIds('TEAM=Data, nightly')).toEqual([ids[0]]);
    expect(await runIds('team')).toEqual([ids[3], ids[1], ids[0]]);
    expect(await runIds('!team')).toEqual([ids[2]]);
    expect(await runIds('team=w*')).toEqual([ids[1]]);
    expect(await runIds('team=ops')).toEqual([]);
    // A blank filter is no filter; other filters still apply.
    expect(await runIds(' , ')).toEqual([ids[3], ids[2], ids[1], ids[0]]);
    expect((await listRuns(svc, { labels: 'team=data', status: 'failed' })).items).toEqual([]);
    expect((await listRuns(svc, { labels: 'team=data', dag: 'b' })).items).toEqual([]);
  });

  it('pages the matching runs: a full page ends at its last run, and the cursor skips none', async () => {
    const labels = Array.from({ length: 9 }, (_, i) => (i % 3 === 0 ? ['x'] : ['team=data']));
    const ids = await enqueueLabelled(labels);
    const want = ids.filter((_, i) => i % 3 !== 0).reverse();
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const page = await listRuns(svc, { labels: 'team=data', limit: '2', cursor });
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((r) => r.run_id));
      cursor = page.next_cursor;
      if (cursor === null) break;
    }
    expect(seen).toEqual(want);
  });

  it("examines a bounded number of runs per request; the empty page's cursor continues the search", async () => {
    const limits: number[] = [];
    let served = 0;
    // A history without end, none of whose runs matches.
    svc.runs.listRuns = async (query) => {
      limits.push(query.limit ?? 0);
      const items = Array.from({ length: query.limit ?? 0 }, () => {
        served += 1;
        return { ...summaryOf(served), labels: ['team=web'] };
      });
      return { items, next_cursor: `c${served}` };
    };
    const page = await listRuns(svc, { labels: 'team=data' });
    expect(page).toEqual({ items: [], next_cursor: `c${served}` });
    expect(limits).toEqual([100, 200, 400, 500, 500, 500, 500, 500, 500, 500, 500, 500]);
    expect(limits).toHaveLength(MAX_LABEL_SCAN_PAGES);
    expect(served).toBeGreaterThanOrEqual(MAX_LABEL_SCAN);
  });

  it('refuses a filter text longer than 1024 characters', async () => {
    await expect(listRuns(svc, { labels: 'a'.repeat(1025) })).rejects.toThrow(/^labels: longer than 1024/);
    expect(compileLabelFilters(undefined)).toEqual([]);
    expect(compileLabelFilters('a,!b')).toEqual([
      { kind: 'key', key: 'a' },
      { kind: 'not', key: 'b' },
    ]);
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
