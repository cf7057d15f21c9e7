// The run log store's contract on a real PostgreSQL, and what the database form adds: appends to one log
// from several connections at once land once each, in order; a log of 100 MB is served by its tail, a
// page in its middle and a line late in it without reading it from the start.

import type { Pool } from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { PgRunLogStore } from '../../../server/store/postgres/pgRunLogStore';
import { PgRunStore } from '../../../server/store/postgres/pgRunStore';
import { RunNotFoundError } from '../../../server/store/errors';
import { describeRunLogStoreContract } from '../../../server/store/runLogStore.contract';
import type { RunLogRef } from '../../../server/store/runLogStore';
import { testRunStatus } from '../../../server/testing/testRunStatus';
import { usePostgres } from './pgTestCluster';

const SCHEMA = 'dagu_logs_test';
const pg = usePostgres({ schema: SCHEMA, poolSize: 16 });
let pool: Pool;
beforeAll(() => {
  pool = pg().pool;
});

async function fresh() {
  await pool.query(`truncate ${SCHEMA}.runs, ${SCHEMA}.run_attempts, ${SCHEMA}.active_runs cascade`);
  return { logs: new PgRunLogStore(pool, SCHEMA), runs: new PgRunStore(pool, SCHEMA, '/logs') };
}

describeRunLogStoreContract('PgRunLogStore', fresh);

const ref = (over: Partial<RunLogRef> = {}): RunLogRef => ({
  dag_name: 'etl',
  run_id: 'r1',
  attempt: 1,
  name: 'greet.out',
  ...over,
});

describe('PgRunLogStore across connections', () => {
  it('stores each append once when many connections send the same log’s appends at once', async () => {
    const { logs, runs } = await fresh();
    await runs.createRun(testRunStatus({ run_id: 'r1', status: 'running' }));
    const pieces = Array.from({ length: 40 }, (_, i) => Buffer.from(`piece ${String(i).padStart(2, '0')}\n`));
    // Every piece is sent by three shippers at once (retries racing the original), in order.
    let offset = 0;
    for (const piece of pieces) {
      const answers = await Promise.all([0, 1, 2].map(() => logs.append(ref(), offset, piece)));
      expect(new Set(answers)).toEqual(new Set([offset + piece.length]));
      offset += piece.length;
    }
    const parts: Uint8Array[] = [];
    for await (const p of logs.read(ref(), 0, Infinity)) parts.push(p);
    expect(Buffer.concat(parts).toString()).toBe(pieces.map(String).join(''));
    const chunks = await pool.query(`select count(*)::int as n from ${SCHEMA}.run_log_chunks`);
    expect(chunks.rows[0].n).toBe(40);
  });

  it('makes several logs exist in one statement, keeping a log that has bytes, and answers their sizes', async () => {
    const { logs, runs } = await fresh();
    await runs.createRun(testRunStatus({ run_id: 'r1', status: 'running' }));
    await logs.append(ref(), 0, Buffer.from('hi\n'));
    const empty = (...refs: RunLogRef[]) => logs.createLogs(refs.map((r) => ({ ref: r })));
    expect(await empty(ref({ name: 'run.log' }), ref(), ref({ name: 'greet.err' }))).toEqual([0, 3, 0]);
    expect(await logs.list({ dag_name: 'etl', run_id: 'r1' })).toEqual([
      { attempt: 1, name: 'greet.err', size: 0, lines: 0 },
      { attempt: 1, name: 'greet.out', size: 3, lines: 1 },
      { attempt: 1, name: 'run.log', size: 0, lines: 0 },
    ]);
    expect(await logs.append(ref({ name: 'greet.err' }), 0, Buffer.from('oops\n'))).toBe(5);
    await expect(
      empty(ref({ run_id: 'ghost', name: 'run.log' }), ref({ run_id: 'ghost' })),
    ).rejects.toBeInstanceOf(RunNotFoundError);
    expect(await logs.list({ dag_name: 'etl', run_id: 'ghost' })).toEqual([]);
    await expect(empty(ref({ name: '../escape' }))).rejects.toThrow();
    await expect(empty(ref({ name: 'run.log' }), ref({ name: 'run.log' }))).rejects.toThrow(
      'a log is named twice',
    );
  });

  it('makes new logs with their first bytes in one statement, and leaves a log that exists as it is', async () => {
    const { logs, runs } = await fresh();
    await runs.createRun(testRunStatus({ run_id: 'r1', status: 'running' }));
    await logs.append(ref({ name: 'greet.err' }), 0, Buffer.alloc(0));
    const start = [
      { ref: ref({ name: 'run.log' }), data: Buffer.from('started\nstep greet\n') },
      { ref: ref(), data: Buffer.from('hi') },
      { ref: ref({ name: 'greet.err' }), data: Buffer.from('oops\n') },
    ];
    expect(await logs.createLogs(start)).toEqual([19, 2, 0]);
    // Sent again (its answer lost): nothing is written twice.
    expect(await logs.createLogs(start)).toEqual([19, 2, 0]);
    expect(await logs.list({ dag_name: 'etl', run_id: 'r1' })).toEqual([
      { attempt: 1, name: 'greet.err', size: 0, lines: 0 },
      { attempt: 1, name: 'greet.out', size: 2, lines: 1 },
      { attempt: 1, name: 'run.log', size: 19, lines: 2 },
    ]);
    const text = async (name: string) => {
      const parts: Uint8Array[] = [];
      for await (const p of logs.read(ref({ name }), 0, Infinity)) parts.push(p);
      return Buffer.concat(parts).toString();
    };
    expect(await text('run.log')).toBe('started\nstep greet\n');
    // The next bytes land after the first ones, on the line count and newline the row was made with.
    expect(await logs.append(ref(), 2, Buffer.from(' there\n'))).toBe(9);
    expect(await text('greet.out')).toBe('hi there\n');
    expect(await logs.stat(ref())).toMatchObject({ size: 9, lines: 1 });
  });

  it('refuses a log of an attempt the database does not have', async () => {
    const { logs } = await fresh();
    await expect(logs.append(ref({ run_id: 'ghost' }), 0, Buffer.from('x'))).rejects.toBeInstanceOf(
      RunNotFoundError,
    );
  });

  it('serves a 100 MB log by its tail, a middle page and a late line, quickly', async () => {
    const { logs, runs } = await fresh();
    await runs.createRun(testRunStatus({ run_id: 'r1', status: 'running' }));
    const chunk = 256 * 1024;
    // Lines of 64 bytes: line n starts at n * 64.
    const line = (n: number) => `${String(n).padStart(12, '0')} ${'x'.repeat(50)}\n`;
    const perChunk = chunk / 64;
    const chunks = 400;
    for (let c = 0; c < chunks; c++) {
      const text = Array.from({ length: perChunk }, (_, i) => line(c * perChunk + i)).join('');
      expect(await logs.append(ref(), c * chunk, Buffer.from(text))).toBe((c + 1) * chunk);
    }
    const size = chunks * chunk;
    const lines = chunks * perChunk;
    const timed = async <T>(work: () => Promise<T>) => {
      const t0 = performance.now();
      const value = await work();
      return { value, ms: performance.now() - t0 };
    };
    const read = async (start: number, end: number) => {
      const parts: Uint8Array[] = [];
      for await (const p of logs.read(ref(), start, end)) parts.push(p);
      return Buffer.concat(parts).toString();
    };
    const stat = await timed(() => logs.stat(ref()));
    expect(stat.value).toEqual({ size, lines });
    const tail = await timed(() => read(size - 64 * 3, size));
    expect(tail.value).toBe(line(lines - 3) + line(lines - 2) + line(lines - 1));
    const middle = await timed(() => read(50 * 1024 * 1024, 50 * 1024 * 1024 + 64));
    expect(middle.value).toBe(line((50 * 1024 * 1024) / 64));
    const seek = await timed(() => logs.seekLine(ref(), lines - 10));
    expect(seek.value.line).toBeLessThanOrEqual(lines - 10);
    expect(size - seek.value.offset).toBeLessThanOrEqual(chunk);
    // Generous bounds for a loaded 2-core machine: each is one or two index lookups and a chunk or two.
    for (const t of [stat, tail, middle, seek]) expect(t.ms).toBeLessThan(1000);
    // Retention of such a run is one transaction that leaves no chunk behind.
    await runs.writeStatus(testRunStatus({ run_id: 'r1', status: 'succeeded' }));
    await runs.unmarkActive('r1');
    expect(await runs.deleteRun('r1')).toEqual({ deleted: true });
    const left = await pool.query(`select count(*)::int as n from ${SCHEMA}.run_log_chunks`);
    expect(left.rows[0].n).toBe(0);
  }, 120_000);
});
