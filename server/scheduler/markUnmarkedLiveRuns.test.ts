import { describe, expect, it } from 'vitest';
import { MemoryRunStore } from '../store/memoryRunStore';
import { testRunStatus } from '../testing/testRunStatus';
import { markUnmarkedLiveRuns } from './markUnmarkedLiveRuns';

describe('markUnmarkedLiveRuns', () => {
  it('marks the queued and running runs that have no marker, and no other', async () => {
    const runs = new MemoryRunStore();
    await runs.createRun(testRunStatus({ run_id: 'lost-running', status: 'running' }));
    await runs.createRun(testRunStatus({ run_id: 'lost-queued', status: 'queued', queue: 'q' }));
    await runs.createRun(testRunStatus({ run_id: 'marked', status: 'running' }));
    await runs.createRun(testRunStatus({ run_id: 'ended', status: 'succeeded' }));
    await runs.unmarkActive('lost-running');
    await runs.unmarkActive('lost-queued');

    expect(await markUnmarkedLiveRuns(runs)).toEqual([
      { run_id: 'lost-running', dag_name: 'etl', status: 'running' },
      { run_id: 'lost-queued', dag_name: 'etl', status: 'queued' },
    ]);
    expect((await runs.listActive()).map((a) => [a.run_id, a.queue])).toEqual([
      ['lost-queued', 'q'],
      ['lost-running', 'etl'],
      ['marked', 'etl'],
    ]);
    expect(await markUnmarkedLiveRuns(runs)).toEqual([]);
  });

  it('leaves a run that ended (and was unmarked by its process) while the list was read', async () => {
    const runs = new MemoryRunStore();
    await runs.createRun(testRunStatus({ run_id: 'ending', status: 'running' }));
    const listActive = runs.listActive.bind(runs);
    runs.listActive = async () => {
      await runs.writeStatus(testRunStatus({ run_id: 'ending', status: 'succeeded' }));
      await runs.unmarkActive('ending');
      return listActive();
    };
    expect(await markUnmarkedLiveRuns(runs)).toEqual([]);
    expect(await listActive()).toEqual([]);
  });
});
