import { describe, expect, it } from 'vitest';
import { queryKeys } from '../queryKeys';
import {
  keysToRefresh,
  mergeKeys,
  parseLiveMessage,
  pollInterval,
  reconnectDelayMs,
  STREAM_HEALTHY_POLL_MS,
} from './liveMessages';

describe('messages of the event stream', () => {
  it('parses the data of a message and ignores anything else', () => {
    expect(parseLiveMessage('{"id":"1","type":"dag.run.running","run_id":"r1"}')).toEqual({
      id: '1',
      type: 'dag.run.running',
      run_id: 'r1',
    });
    expect(parseLiveMessage('not json')).toBeNull();
    expect(parseLiveMessage('{"no":"type"}')).toBeNull();
    expect(parseLiveMessage('null')).toBeNull();
    expect(parseLiveMessage(42)).toBeNull();
  });

  it('a run event refreshes the run lists, queues, overview, DAG views and that run', () => {
    expect(keysToRefresh({ type: 'dag.run.succeeded', run_id: 'r1', dag_name: 'etl' })).toEqual([
      queryKeys.runLists(),
      queryKeys.queues(),
      queryKeys.overview(),
      queryKeys.dags(),
      queryKeys.run('r1'),
    ]);
  });

  it('a takeover refreshes the overview, a worker change the workers', () => {
    expect(keysToRefresh({ type: 'scheduler' })).toEqual([queryKeys.overview()]);
    expect(keysToRefresh({ type: 'scheduler.lock.acquired' })).toEqual([queryKeys.overview()]);
    expect(keysToRefresh({ type: 'workers' })).toEqual([queryKeys.workers(), queryKeys.overview()]);
  });

  it('a heartbeat refreshes nothing, a reset everything', () => {
    expect(keysToRefresh({ type: 'heartbeat' })).toEqual([]);
    expect(keysToRefresh({ type: 'reset' })).toBe('all');
    expect(mergeKeys([{ type: 'heartbeat' }, { type: 'reset' }])).toBe('all');
  });

  it('a burst of events refreshes each view once', () => {
    const keys = mergeKeys([
      { type: 'dag.run.queued', run_id: 'a' },
      { type: 'dag.run.running', run_id: 'a' },
      { type: 'dag.run.queued', run_id: 'b' },
    ]);
    expect(keys).toHaveLength(6);
  });
});

describe('polling beside the stream', () => {
  it('stretches intervals while the stream is healthy and keeps them otherwise', () => {
    expect(pollInterval(2000, false)).toBe(2000);
    expect(pollInterval(2000, true)).toBe(STREAM_HEALTHY_POLL_MS);
    expect(pollInterval(1000, true, 5000)).toBe(5000);
    expect(pollInterval(60_000, true)).toBe(60_000);
  });

  it('waits longer after each failed reconnect, up to 30 s', () => {
    expect([1, 2, 3, 4, 5, 6, 10].map(reconnectDelayMs)).toEqual([
      1000, 2000, 4000, 8000, 16000, 30000, 30000,
    ]);
    expect(reconnectDelayMs(0)).toBe(1000);
  });
});
