import { describe, expect, it } from 'vitest';
import { MemoryRunStore } from '../store/memoryRunStore';
import { LogGapError, type RunLogRef, type RunLogStore } from '../store/runLogStore';
import { testRunStatus } from '../testing/testRunStatus';
import { LogChunks } from './logChunks';
import type { LogBatch } from './protocol';

/** Logs in memory; `calls` records each store call, to count the writes a batch costs. */
function memoryLogs(withCreateLogs: boolean) {
  const logs = new Map<string, Buffer>();
  const calls: string[] = [];
  const store: Pick<RunLogStore, 'append' | 'createLogs'> = {
    async append(ref: RunLogRef, offset: number, data: Uint8Array) {
      calls.push(`append ${ref.name}@${offset}`);
      const have = logs.get(ref.name) ?? Buffer.alloc(0);
      if (offset > have.length) throw new LogGapError(ref, offset, have.length);
      if (offset === have.length) logs.set(ref.name, Buffer.concat([have, data]));
      return Math.max(have.length, offset + data.length);
    },
  };
  if (withCreateLogs) {
    store.createLogs = async (made) => {
      calls.push(`createLogs ${made.map((l) => l.ref.name).join(',')}`);
      for (const l of made) if (!logs.has(l.ref.name)) logs.set(l.ref.name, Buffer.from(l.data ?? ''));
      return made.map((l) => logs.get(l.ref.name)!.length);
    };
  }
  return { store, logs, calls };
}

async function setup(withCreateLogs: boolean) {
  const runs = new MemoryRunStore();
  await runs.createRun(testRunStatus({ run_id: 'r1', dag_name: 'etl', status: 'running', worker_id: 'w1' }));
  const m = memoryLogs(withCreateLogs);
  return { ...m, chunks: new LogChunks({ runs, logs: m.store }) };
}

const batch = (chunks: Array<{ file: string; offset: number; data: string }>): LogBatch => ({
  worker_id: 'w1',
  attempt: 1,
  chunks: chunks.map((c) => ({ ...c, encoding: 'utf8' as const })),
});

describe('LogChunks.appendBatch', () => {
  it('makes the logs a batch starts in one store call, with their first bytes', async () => {
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
    expect(calls).toEqual(['createLogs _run.log,s.out,s.err']);
    expect(logs.get('s.out')).toEqual(Buffer.alloc(0));
    expect(logs.get('_run.log')?.toString()).toBe('started\n');
    expect(logs.get('s.err')?.toString()).toBe('old\n');
  });

  it('answers a start the store had as an append at 0 would, and appends to a log that was made empty', async () => {
    const { chunks, logs, calls } = await setup(true);
    logs.set('_run.log', Buffer.from('started\n'));
    logs.set('s.out', Buffer.from('hi'));
    logs.set('s.err', Buffer.alloc(0));
    const reply = await chunks.appendBatch(
      'r1',
      batch([
        { file: '_run.log', offset: 0, data: 'started\n' },
        { file: 's.out', offset: 0, data: 'hi there\n' },
        { file: 's.err', offset: 0, data: 'oops\n' },
        { file: 's.out', offset: 2, data: ' there\n' },
      ]),
    );
    expect(reply).toEqual({
      replies: [
        { accepted: true, next_offset: 8 },
        // Shorter than the piece: the worker's log is not the one the store has.
        { accepted: false, next_offset: 2 },
        { accepted: true, next_offset: 5 },
        { accepted: true, next_offset: 9 },
      ],
    });
    expect(calls).toEqual(['createLogs _run.log,s.out,s.err', 'append s.err@0', 'append s.out@2']);
    expect(logs.get('s.err')?.toString()).toBe('oops\n');
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
