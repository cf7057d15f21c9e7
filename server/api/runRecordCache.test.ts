import { describe, expect, it } from 'vitest';
import type { ReadStatusResult } from '../store/types';
import { testRunStatus } from '../testing/testRunStatus';
import { MAX_REVALIDATIONS, REVALIDATE_MS, RunRecordCache } from './runRecordCache';

/** A run store whose records the test sets, counting reads; `hold` makes reads wait for a release. */
function fakeRuns() {
  const records = new Map<string, ReadStatusResult>();
  const reads: string[] = [];
  let gate: Promise<void> | null = null;
  let open = () => {};
  return {
    reads,
    set(runId: string, status: 'queued' | 'running' | 'aborted') {
      records.set(runId, { kind: 'ok', status: testRunStatus({ run_id: runId, status }) });
    },
    hold() {
      gate = new Promise((r) => (open = r));
    },
    release() {
      gate = null;
      open();
    },
    async readStatus(runId: string): Promise<ReadStatusResult> {
      reads.push(runId);
      const result = records.get(runId) ?? { kind: 'missing' };
      if (gate) await gate;
      return result;
    },
  };
}

const stateOf = (m: Map<string, ReadStatusResult>, id: string) => {
  const r = m.get(id)!;
  return r.kind === 'ok' ? r.status.status : r.kind;
};

describe('RunRecordCache', () => {
  it('reads each record once and answers later calls from memory', async () => {
    const runs = fakeRuns();
    runs.set('a', 'queued');
    runs.set('b', 'queued');
    const cache = new RunRecordCache();
    await cache.get(runs, ['a', 'b'], 0);
    runs.set('a', 'running'); // no event: the cache does not know yet
    const second = await cache.get(runs, ['a', 'b'], 1000);
    expect(runs.reads.sort()).toEqual(['a', 'b']);
    expect(stateOf(second, 'a')).toBe('queued');
  });

  it('reads a record again once an event said it changed', async () => {
    const runs = fakeRuns();
    runs.set('a', 'queued');
    const cache = new RunRecordCache();
    await cache.get(runs, ['a'], 0);
    runs.set('a', 'aborted');
    cache.invalidate('a');
    expect(stateOf(await cache.get(runs, ['a'], 1), 'a')).toBe('aborted');
    expect(runs.reads).toEqual(['a', 'a']);
  });

  it('re-reads old entries after REVALIDATE_MS, oldest first, a bounded number per call', async () => {
    const runs = fakeRuns();
    const ids = Array.from({ length: MAX_REVALIDATIONS + 10 }, (_, i) => `r${String(i).padStart(3, '0')}`);
    for (const id of ids) runs.set(id, 'queued');
    const cache = new RunRecordCache();
    await cache.get(runs, ids.slice(0, 10), 0);
    await cache.get(runs, ids, 1000);
    runs.reads.length = 0;

    await cache.get(runs, ids, REVALIDATE_MS + 500);
    expect(runs.reads.sort()).toEqual(ids.slice(0, 10)); // only those read at 0 are due
    runs.reads.length = 0;
    await cache.get(runs, ids, REVALIDATE_MS + 1000);
    expect(runs.reads).toHaveLength(MAX_REVALIDATIONS);
  });

  it('does not keep a missing record, and forgets runs no longer asked for', async () => {
    const runs = fakeRuns();
    runs.set('a', 'queued');
    const cache = new RunRecordCache();
    expect(stateOf(await cache.get(runs, ['a', 'ghost'], 0), 'ghost')).toBe('missing');
    runs.set('ghost', 'queued');
    expect(stateOf(await cache.get(runs, ['a', 'ghost'], 1), 'ghost')).toBe('queued');
    await cache.get(runs, ['ghost'], 2);
    expect(cache.size).toBe(1);
  });

  it('uses a read that an event overtook only once', async () => {
    const runs = fakeRuns();
    runs.set('a', 'queued');
    const cache = new RunRecordCache();
    runs.hold();
    const pending = cache.get(runs, ['a'], 0);
    await Promise.resolve();
    runs.set('a', 'aborted');
    cache.invalidate('a'); // the change's event arrives while the old record is being read
    runs.release();
    expect(stateOf(await pending, 'a')).toBe('queued');
    expect(stateOf(await cache.get(runs, ['a'], 1), 'a')).toBe('aborted');
  });

  it('shows a storage error on the run and tries again next time', async () => {
    const cache = new RunRecordCache();
    let fail = true;
    const runs = {
      async readStatus(): Promise<ReadStatusResult> {
        if (fail) throw new Error('EIO');
        return { kind: 'ok', status: testRunStatus({ run_id: 'a' }) };
      },
    };
    const first = (await cache.get(runs, ['a'], 0)).get('a')!;
    expect(first).toMatchObject({ kind: 'corrupt', error: 'EIO' });
    fail = false;
    expect((await cache.get(runs, ['a'], 1)).get('a')!.kind).toBe('ok');
  });
});
