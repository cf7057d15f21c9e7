import { describe, expect, it } from 'vitest';
import { MemoryRunStore } from '../store/memoryRunStore';
import { LogGapError, type RunLogRef, type RunLogStore } from '../store/runLogStore';
import { testRunStatus } from '../testing/testRunStatus';
import { LogChunks } from './logChunks';
import type { LogBatch } from './protocol';

/** Logs in memory; `calls` records each store call, to count the writes a batch costs. */
function memoryLogs(withCreateEmpty: boolean) {
  const logs = new Map<string, Buffer>();
  const calls: string[] = [];
  const store: Pick<RunLogStore, 'append' | 'createEmpty'> = {
    async append(ref: RunLogRef, offset: number, data: Uint8Array) {
      calls.push(`append ${ref.name}@${offset}`);
      const have = logs.get(ref.name) ?? Buffer.alloc(0);
      if (offset > have.length) throw new LogGapError(ref, offset, have.length);
      if (offset === have.length) logs.set(ref.name, Buffer.concat([have, data]));
      return Math.max(have.length, offset + data.length);
    },
  };
  if (withCreateEmpty) {
    store.createEmpty = async (refs) => {
      calls.push(`createEmpty ${refs.map((r) => r.name).join(',')}`);
      for (const r of refs) if (!logs.has(r.name)) logs.set(r.name, Buffer.alloc(0));
      return refs.map((r) => logs.get(r.name)!.length);
    };
  }
  return { store, logs, calls };
}

async function setup(withCreateEmpty: boolean) {
  const runs = new MemoryRunStore();
  await runs.createRun(testRunStatus({ run_id: 'r1', dag_name: 'etl', status: 'running', worker_id: 'w1' }));
  const m = memoryLogs(withCreateEmpty);
  return { ...m, chunks: new LogChunks({ runs, logs: m.store }) };
}

const batch = (chunks: Array<{ file: string; offset: number; data: string }>): LogBatch => ({
  worker_id: 'w1',
  attempt: 1,
  chunks: chunks.map((c) => ({ ...c, encoding: 'utf8' as const })),
});

describe('LogChunks.appendBatch', () => {
  it('makes the empty logs of a batch exist in one store call and appends the others', async () => {
    const { chunks, logs, calls } = await setup(true);
    logs.set('s.err', Buffer.from('old\n'));
    const reply = await chunks.appendBatch(
      'r1',
      batch([
        { file: '_run.log', offset: 0, data: 'started\n' },
        { file: 's.out', offset: 0, data: '' },
        { file: 's.err', offset: 0, data: '' },
      ]),
    );
    expect(reply).toEqual({
      replies: [
        { accepted: true, next_offset: 8 },
        { accepted: true, next_offset: 0 },
        { accepted: true, next_offset: 4 },
      ],
    });
    expect(calls).toEqual(['createEmpty s.out,s.err', 'append _run.log@0']);
    expect(logs.get('s.out')).toEqual(Buffer.alloc(0));
  });

  it('appends an empty log one by one where the store cannot make several at once, or there is one', async () => {
    const without = await setup(false);
    const two = batch([
      { file: 's.out', offset: 0, data: '' },
      { file: 's.err', offset: 0, data: '' },
    ]);
    expect(await without.chunks.appendBatch('r1', two)).toEqual({
      replies: [
        { accepted: true, next_offset: 0 },
        { accepted: true, next_offset: 0 },
      ],
    });
    expect(without.calls).toEqual(['append s.out@0', 'append s.err@0']);

    const one = await setup(true);
    await one.chunks.appendBatch('r1', batch([{ file: 's.out', offset: 0, data: '' }]));
    expect(one.calls).toEqual(['append s.out@0']);
  });

  it('refuses a batch of a worker that does not hold the run, writing nothing', async () => {
    const { chunks, calls } = await setup(true);
    const reply = await chunks.appendBatch('r1', {
      ...batch([
        { file: 's.out', offset: 0, data: '' },
        { file: 's.err', offset: 0, data: '' },
      ]),
      worker_id: 'w2',
    });
    expect(reply).toMatchObject({ refused: true, status: 409, code: 'not_your_run' });
    expect(calls).toEqual([]);
  });
});
