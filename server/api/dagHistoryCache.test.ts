import { describe, expect, it } from 'vitest';
import { MemoryEventLog } from '../store/memoryEventLog';
import type { RunSummary } from '../store/types';
import { DagHistoryCache, REVALIDATE_MS } from './dagHistoryCache';
import { LogEventFeed } from './eventFeed';
import { manualClock } from './testServices';

const summary = (run_id: string) => ({ run_id }) as RunSummary;

function setup() {
  const log = new MemoryEventLog({ clock: manualClock(0) });
  const cache = new DagHistoryCache<string>(new LogEventFeed(log));
  let reads = 0;
  const read = (ids: string[]) => async () => {
    reads++;
    return ids.map(summary);
  };
  return { log, cache, read, reads: () => reads };
}

describe('DagHistoryCache', () => {
  it('serves a listing again until an event of its DAG arrives', async () => {
    const { log, cache, read, reads } = setup();
    await cache.sync();
    expect(await cache.listing('etl', 30, 0, read(['r1']))).toHaveLength(1);
    expect(await cache.listing('etl', 30, 1, read(['r1', 'r2']))).toHaveLength(1);
    await log.append('dag.run.queued', { dag_name: 'other', run_id: 'x' });
    await cache.sync();
    expect(await cache.listing('etl', 30, 2, read(['r1', 'r2']))).toHaveLength(1);
    await log.append('dag.run.queued', { dag_name: 'etl', run_id: 'r2' });
    await cache.sync();
    expect(await cache.listing('etl', 30, 3, read(['r1', 'r2']))).toHaveLength(2);
    expect(reads()).toBe(2);
  });

  it('reads a listing again after REVALIDATE_MS even without events (a deleted run emits none)', async () => {
    const { cache, read } = setup();
    await cache.sync();
    await cache.listing('etl', 30, 0, read(['r1', 'r2']));
    expect(await cache.listing('etl', 30, REVALIDATE_MS, read(['r2']))).toEqual([summary('r2')]);
  });

  it('does not keep a listing read while an event of its DAG came in', async () => {
    const { log, cache, read } = setup();
    await cache.sync();
    await cache.listing('etl', 30, 0, async () => {
      await log.append('dag.run.queued', { dag_name: 'etl', run_id: 'r2' });
      await cache.sync();
      return [summary('r1')];
    });
    expect(await cache.listing('etl', 30, 1, read(['r1', 'r2']))).toHaveLength(2);
  });

  it('ignores the run events already in the log when it starts', async () => {
    const { log, cache, read, reads } = setup();
    await log.append('dag.run.succeeded', { dag_name: 'etl', run_id: 'r0' });
    await cache.listing('etl', 30, 0, read(['r0']));
    await cache.sync();
    await cache.listing('etl', 30, 1, read(['r0']));
    expect(reads()).toBe(1);
  });

  it('reuses a DAG parse only for the same text', async () => {
    const { cache } = setup();
    const parsed = { dag: {} as never, warnings: [] };
    await cache.specs.put('/d/etl.yaml', 'a', parsed);
    expect(await cache.specs.get('/d/etl.yaml', 'a')).toBe(parsed);
    expect(await cache.specs.get('/d/etl.yaml', 'b')).toBeNull();
  });
});
