import { hashKey, QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { isStepLogOf, queryKeys } from './queryKeys';

/** A client holding one entry per kind of console query (data is irrelevant here). */
function clientWithEveryQuery() {
  const client = new QueryClient();
  const keys = {
    session: queryKeys.session(),
    overview: queryKeys.overview(),
    workers: queryKeys.workers(),
    dagList: queryKeys.dags(),
    dag: queryKeys.dag('etl'),
    dagSpec: queryKeys.dagSpec('etl'),
    runList: queryKeys.runList({ dag: 'etl' }),
    runListPage2: queryKeys.runList({ cursor: 'c2' }),
    run: queryKeys.run('r1'),
    otherRun: queryKeys.run('r2'),
    stepLog: queryKeys.stepLog('r1', 'extract', 'stdout', '1:running::0'),
    queue: queryKeys.queue({}),
    queueFiltered: queryKeys.queue({ reason: 'held' }),
  };
  for (const key of Object.values(keys)) client.setQueryData(key, 'data');
  return { client, keys };
}

/** The names of the entries a filter by `key` reaches, the way invalidations after a mutation match them. */
function reached(key: readonly unknown[]) {
  const { client, keys } = clientWithEveryQuery();
  const hashes = new Set(
    client
      .getQueryCache()
      .findAll({ queryKey: key })
      .map((q) => q.queryHash),
  );
  return Object.entries(keys)
    .filter(([, k]) => hashes.has(hashKey(k)))
    .map(([name]) => name);
}

describe('queryKeys', () => {
  it('gives equal views one key: an unset filter field and an empty one are the same', () => {
    expect(queryKeys.runList({})).toEqual(queryKeys.runList({ dag: '', status: '', cursor: '' }));
    expect(queryKeys.queue({ dag: undefined })).toEqual(queryKeys.queue({ dag: '' }));
    expect(queryKeys.queue({ dag: 'a' })).not.toEqual(queryKeys.queue({ queue: 'a' }));
  });

  it('lets a family key reach every member of the family and nothing else', () => {
    expect(reached(queryKeys.runLists())).toEqual(['runList', 'runListPage2']);
    expect(reached(queryKeys.queues())).toEqual(['queue', 'queueFiltered']);
    expect(reached(queryKeys.dags())).toEqual(['dagList', 'dag']);
    expect(reached(queryKeys.overview())).toEqual(['overview']);
  });

  it("lets a run's key reach the run and its step logs, not another run", () => {
    expect(reached(queryKeys.run('r1'))).toEqual(['run', 'stepLog']);
  });

  it('keeps the run list and a single run apart (a run id is never taken for a filter)', () => {
    expect(reached(queryKeys.runLists())).not.toContain('run');
    expect(reached(queryKeys.run('r1'))).not.toContain('runList');
  });
});

describe('isStepLogOf', () => {
  it("tells a step log's key by step and stream, whatever the run and version", () => {
    const key = queryKeys.stepLog('r1', 'extract', 'stderr', '2:failed:t:1');
    expect(isStepLogOf(key, 'extract', 'stderr')).toBe(true);
    expect(isStepLogOf(key, 'extract', 'stdout')).toBe(false);
    expect(isStepLogOf(key, 'load', 'stderr')).toBe(false);
  });

  it('is false for no key and for keys of other queries', () => {
    expect(isStepLogOf(undefined, 'extract', 'stdout')).toBe(false);
    expect(isStepLogOf(queryKeys.run('extract'), 'extract', 'stdout')).toBe(false);
  });
});
