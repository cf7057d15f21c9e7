import { describe, expect, it } from 'vitest';
import { silentLogger } from '../core/ports';
import type { DagSpec } from '../core/types';
import { DAY } from '../core/units';
import { MemoryRunStore } from '../store/memoryRunStore';
import { testRunStatus } from '../testing/testRunStatus';
import { HistoryRetention } from './historyRetention';
import { FakeTime } from '../testing/fakeTime';

const now = Date.UTC(2026, 11, 1);
const iso = (ms: number) => new Date(ms).toISOString();

function dag(name: string, keys: Partial<DagSpec> = {}): DagSpec {
  return { name, ...keys } as DagSpec;
}

async function seeded() {
  const runs = new MemoryRunStore();
  const add = (
    run_id: string,
    dag_name: string,
    ageMs: number,
    status: 'succeeded' | 'running' = 'succeeded',
  ) => runs.createRun(testRunStatus({ run_id, dag_name, status, created_at: iso(now - ageMs) }));
  await add('a-new', 'a', 1000);
  await add('a-40d', 'a', 40 * DAY);
  await add('a-50d-live', 'a', 50 * DAY, 'running');
  await add('b-1', 'b', 1000);
  await add('b-2', 'b', 2000);
  await add('b-3', 'b', 3000);
  await add('gone-old', 'gone', 400 * DAY);
  return runs;
}

describe('HistoryRetention', () => {
  it("removes each DAG's ended runs past its retention, 30 days by default, and keeps live ones", async () => {
    const runs = await seeded();
    const retention = new HistoryRetention({
      runs,
      catalog: { load: async () => [dag('a'), dag('b', { hist_retention_runs: 2 })] },
      clock: new FakeTime(now),
      logger: silentLogger,
      canDispatch: () => true,
    });
    expect(await retention.sweep()).toEqual({ a: ['a-40d'], b: ['b-3'] });
    const left = (await runs.listRuns({ limit: 50 })).items.map((r) => r.run_id).sort();
    // A DAG no longer in the catalogue keeps its history: nothing says how long.
    expect(left).toEqual(['a-50d-live', 'a-new', 'b-1', 'b-2', 'gone-old']);
    expect(await retention.sweep()).toEqual({});
  });

  it('deletes nothing without the lock', async () => {
    const runs = await seeded();
    const retention = new HistoryRetention({
      runs,
      catalog: { load: async () => [dag('a', { hist_retention_days: 1 })] },
      clock: new FakeTime(now),
      logger: silentLogger,
      canDispatch: () => false,
    });
    expect(await retention.sweep()).toEqual({});
    expect((await runs.listRuns({ limit: 50 })).items).toHaveLength(7);
  });
});
