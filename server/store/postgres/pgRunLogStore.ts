// Run logs on PostgreSQL (migration 6): a row per log file with its size and newline count, and the bytes
// in chunks keyed by the offset they start at. An append locks the file's row, so appends to one log are
// serialised and each lands exactly at the end; a retried append (its answer lost) finds its offset below
// the size and writes nothing. Reads never hold a connection between pieces: a slow download or a reader
// that stops early costs the pool nothing. A log goes when its run does (foreign keys, on delete cascade).

import type { Pool } from 'pg';
import { assertDagName, assertRunId } from '../../core/names';
import { RunNotFoundError } from '../errors';
import {
  assertRunLogRef,
  countNewlines,
  LogGapError,
  type LinePosition,
  type NewRunLog,
  type RunLogEntry,
  type RunLogRef,
  type RunLogStat,
  type RunLogStore,
} from '../runLogStore';
import { quoteIdent } from './schemaVersion';
import { inTransaction } from './transaction';

const EMPTY = Buffer.alloc(0);

/** Chunks fetched by one query of a read: a few MiB at most. */
const READ_BATCH = 8;

type FileRow = { size: string; newlines: string; ends_newline: boolean };

export class PgRunLogStore implements RunLogStore {
  private readonly s: string;

  constructor(
    private readonly pool: Pool,
    schema: string,
  ) {
    this.s = quoteIdent(schema);
  }

  async append(ref: RunLogRef, offset: number, data: Uint8Array): Promise<number> {
    assertRunLogRef(ref);
    if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(`invalid log offset ${offset}`);
    const key = [ref.run_id, ref.attempt, ref.name];
    // At offset 0 the log is made if it is new and its row is locked and read in the same statement (an
    // update of nothing, on a retry, locks the row as `for update` does): a run ships several logs at its
    // end, each on a fresh transaction, and every round trip saved is one its end waits for.
    const makeAtStart = `insert into ${this.s}.run_log_files (run_id, attempt, name, size, newlines, ends_newline)
               values ($1, $2, $3, 0, 0, true)
               on conflict (run_id, attempt, name) do update set size = run_log_files.size
               returning size`;
    try {
      // An empty log made to exist (a step that printed nothing) is that one statement, with no transaction.
      if (offset === 0 && data.length === 0)
        return Number((await this.pool.query<Pick<FileRow, 'size'>>(makeAtStart, key)).rows[0].size);
      // A new log's first bytes (the whole log of most steps): the file's row, already holding them, and
      // their chunk are inserted by one statement. A log that exists is left alone, and appended to below.
      if (offset === 0) {
        const made = await this.pool.query(
          `with file as (
             insert into ${this.s}.run_log_files (run_id, attempt, name, size, newlines, ends_newline)
             values ($1, $2, $3, $4, $5, $6) on conflict (run_id, attempt, name) do nothing
             returning run_id)
           insert into ${this.s}.run_log_chunks (run_id, attempt, name, byte_offset, line_offset, length, data)
           select $1, $2, $3, 0, 0, $4, $7 from file`,
          [
            ...key,
            data.length,
            countNewlines(data),
            data[data.length - 1] === 0x0a,
            Buffer.from(data.buffer, data.byteOffset, data.byteLength),
          ],
        );
        if ((made.rowCount ?? 0) > 0) return data.length;
      }
      return await inTransaction(this.pool, async (c) => {
        const r = await c.query<FileRow>(
          offset === 0
            ? `${makeAtStart}, newlines, ends_newline`
            : `select size, newlines, ends_newline from ${this.s}.run_log_files
                where run_id = $1 and attempt = $2 and name = $3 for update`,
          key,
        );
        const size = r.rowCount === 0 ? 0 : Number(r.rows[0].size);
        if (offset > size || r.rowCount === 0) throw new LogGapError(ref, offset, size);
        if (offset < size || data.length === 0) return size;
        const newlines = Number(r.rows[0].newlines);
        await c.query(
          `insert into ${this.s}.run_log_chunks (run_id, attempt, name, byte_offset, line_offset, length, data)
           values ($1, $2, $3, $4, $5, $6, $7)`,
          [...key, offset, newlines, data.length, Buffer.from(data.buffer, data.byteOffset, data.byteLength)],
        );
        await c.query(
          `update ${this.s}.run_log_files set size = $4, newlines = $5, ends_newline = $6
            where run_id = $1 and attempt = $2 and name = $3`,
          [...key, size + data.length, newlines + countNewlines(data), data[data.length - 1] === 0x0a],
        );
        return size + data.length;
      });
    } catch (err) {
      // 23503: the attempt is not in the database (never created, or deleted with its run).
      if ((err as { code?: string }).code === '23503') throw new RunNotFoundError(ref.run_id, ref.attempt);
      throw err;
    }
  }

  async createLogs(logs: readonly NewRunLog[]): Promise<number[]> {
    for (const l of logs) assertRunLogRef(l.ref);
    if (logs.length === 0) return [];
    const keyOf = (r: Pick<RunLogRef, 'run_id' | 'attempt' | 'name'>) =>
      `${r.run_id}\n${r.attempt}\n${r.name}`;
    if (new Set(logs.map((l) => keyOf(l.ref))).size !== logs.length)
      throw new RangeError('createLogs: a log is named twice');
    const bytes = logs.map((l) =>
      l.data === undefined ? EMPTY : Buffer.from(l.data.buffer, l.data.byteOffset, l.data.byteLength),
    );
    try {
      // One statement: the files' rows, each already holding its bytes, and a chunk for each new file that
      // has some. A file that exists keeps its row (an update of nothing, as in append's makeAtStart, returns
      // it) and gets no chunk: `xmax = 0` tells a row this statement inserted from one it only updated.
      const r = await this.pool.query<{ run_id: string; attempt: number; name: string; size: string }>(
        `with f as (
           select * from unnest($1::text[], $2::int[], $3::text[], $4::bigint[], $5::bigint[], $6::bool[], $7::bytea[])
             as f(run_id, attempt, name, size, newlines, ends_newline, data)),
         made as (
           insert into ${this.s}.run_log_files (run_id, attempt, name, size, newlines, ends_newline)
           select run_id, attempt, name, size, newlines, ends_newline from f
           on conflict (run_id, attempt, name) do update set size = run_log_files.size
           returning run_id, attempt, name, size, xmax = 0 as created),
         chunks as (
           insert into ${this.s}.run_log_chunks (run_id, attempt, name, byte_offset, line_offset, length, data)
           select f.run_id, f.attempt, f.name, 0, 0, f.size, f.data
             from f join made m on m.run_id = f.run_id and m.attempt = f.attempt and m.name = f.name
            where m.created and f.size > 0)
         select run_id, attempt, name, size from made`,
        [
          logs.map((l) => l.ref.run_id),
          logs.map((l) => l.ref.attempt),
          logs.map((l) => l.ref.name),
          bytes.map((b) => b.length),
          bytes.map((b) => countNewlines(b)),
          bytes.map((b) => b.length === 0 || b[b.length - 1] === 0x0a),
          bytes,
        ],
      );
      const sizes = new Map(r.rows.map((row) => [keyOf(row), Number(row.size)]));
      return logs.map((l) => sizes.get(keyOf(l.ref)) ?? 0);
    } catch (err) {
      // 23503: an attempt is not in the database (never created, or deleted with its run).
      if ((err as { code?: string }).code === '23503')
        throw new RunNotFoundError(logs[0].ref.run_id, logs[0].ref.attempt);
      throw err;
    }
  }

  async stat(ref: RunLogRef): Promise<RunLogStat | null> {
    assertRunLogRef(ref);
    const r = await this.pool.query<FileRow>(
      `select size, newlines, ends_newline from ${this.s}.run_log_files
        where run_id = $1 and attempt = $2 and name = $3`,
      [ref.run_id, ref.attempt, ref.name],
    );
    return r.rowCount === 0 ? null : statOf(r.rows[0]);
  }

  async *read(ref: RunLogRef, start: number, end: number): AsyncIterable<Uint8Array> {
    const stat = await this.stat(ref);
    if (stat === null) return;
    const from = Math.max(0, start);
    const stop = Math.min(end, stat.size);
    if (from >= stop) return;
    const key = [ref.run_id, ref.attempt, ref.name];
    // The chunk that holds byte `from`: the last one starting at or before it.
    const first = await this.pool.query<{ byte_offset: string }>(
      `select byte_offset from ${this.s}.run_log_chunks
        where run_id = $1 and attempt = $2 and name = $3 and byte_offset <= $4
        order by byte_offset desc limit 1`,
      [...key, from],
    );
    let next = first.rowCount === 0 ? 0 : Number(first.rows[0].byte_offset);
    while (next < stop) {
      const r = await this.pool.query<{ byte_offset: string; data: Buffer }>(
        `select byte_offset, data from ${this.s}.run_log_chunks
          where run_id = $1 and attempt = $2 and name = $3 and byte_offset >= $4 and byte_offset < $5
          order by byte_offset limit ${READ_BATCH}`,
        [...key, next, stop],
      );
      if (r.rowCount === 0) return;
      for (const row of r.rows) {
        const at = Number(row.byte_offset);
        const piece = row.data.subarray(Math.max(0, from - at), Math.min(row.data.length, stop - at));
        if (piece.length > 0) yield piece;
        next = at + row.data.length;
      }
    }
  }

  async seekLine(ref: RunLogRef, line: number): Promise<LinePosition> {
    assertRunLogRef(ref);
    if (!(line > 0)) return { offset: 0, line: 0 };
    // The last chunk that starts before newline number `line`: that newline, and the line after it, lie in
    // it or after it.
    const r = await this.pool.query<{ byte_offset: string; line_offset: string }>(
      `select byte_offset, line_offset from ${this.s}.run_log_chunks
        where run_id = $1 and attempt = $2 and name = $3 and line_offset < $4
        order by byte_offset desc limit 1`,
      [ref.run_id, ref.attempt, ref.name, line],
    );
    return r.rowCount === 0
      ? { offset: 0, line: 0 }
      : { offset: Number(r.rows[0].byte_offset), line: Number(r.rows[0].line_offset) };
  }

  async list(run: { dag_name: string; run_id: string }): Promise<RunLogEntry[]> {
    assertDagName(run.dag_name);
    assertRunId(run.run_id);
    const r = await this.pool.query<FileRow & { attempt: number; name: string }>(
      `select attempt, name, size, newlines, ends_newline from ${this.s}.run_log_files
        where run_id = $1 order by attempt, name`,
      [run.run_id],
    );
    return r.rows.map((row) => ({ attempt: row.attempt, name: row.name, ...statOf(row) }));
  }
}

function statOf(row: FileRow): RunLogStat {
  const size = Number(row.size);
  const newlines = Number(row.newlines);
  return { size, lines: newlines + (size > 0 && !row.ends_newline ? 1 : 0) };
}
