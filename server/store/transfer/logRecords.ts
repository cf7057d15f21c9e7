// The logs of each run (every attempt's step logs and its own), from the logs directory into the run log
// tables, a run's logs in one transaction: the database never holds part of a log, so a copy stopped midway
// leaves nothing to repair. The rows are those PgRunLogStore writes as a run ships its logs: the file's
// size and newline count, and the bytes in chunks keyed by their offset, each with the newlines before it.
// Only runs the copy takes (every attempt readable) are read, since a log belongs to an attempt; logs are
// compared by size and lines.

import path from 'node:path';
import type { Pool, PoolClient, QueryResult } from 'pg';
import type { RunStatus } from '../../core/types';
import { listRunIds } from '../listRunIds';
import { quoteIdent } from '../postgres/schemaVersion';
import { inTransaction } from '../postgres/transaction';
import { countNewlines, LogOutsideError, type RunLogEntry } from '../runLogStore';
import type { FileSource } from './fileSource';
import { readRun } from './runRecords';
import type { KindAdapter, SourceItem } from './syncKind';

export interface RunLogs {
  run_id: string;
  dag_name: string;
  /** The DAG's own log directory, when the run wrote its logs there. */
  log_root?: string;
  /** By attempt, then name. */
  logs: RunLogEntry[];
}

type LogRow = {
  run_id: string;
  attempt: number;
  name: string;
  size: string;
  newlines: string;
  ends_newline: boolean;
};

/** Runs whose logs are read per page of the database walk. */
const PAGE = 100;

export function logRecords(files: FileSource, pool: Pool, schema: string): KindAdapter<RunLogs> {
  const s = quoteIdent(schema);
  return {
    kind: 'run logs',
    batch: 1,
    source: async function* (): AsyncGenerator<SourceItem<RunLogs>> {
      for (const runId of (await listRunIds(files.paths.dataDir)).sort()) {
        const run = await readRun(files, runId);
        // A run the copy does not take (reported with the runs) has no attempts for its logs to go with.
        if (run === null || 'unreadable' in run) continue;
        const latest = run.attempts[run.attempts.length - 1].status;
        const where = { dag_name: latest.dag_name, run_id: runId, log_root: ownLogRoot(latest) };
        let logs: RunLogEntry[];
        try {
          logs = await files.logs.list(where);
        } catch (err) {
          // A log that is a link to a file outside the run's directory is never read (nor copied).
          if (!(err instanceof LogOutsideError)) throw err;
          yield { key: runId, skipped: err.message };
          continue;
        }
        if (logs.length > 0) yield { key: runId, value: { ...where, logs } };
      }
    },
    target: () => logsInDatabase(pool, s),
    differences: logDifferences,
    write: async (runs, refuse) => {
      let n = 0;
      for (const run of runs) {
        const outcome = await inTransaction(pool, (c) => copyRunLogs(c, s, files, run));
        if (outcome === 'copied') n++;
        else if (outcome !== 'there') refuse(run.run_id, outcome);
      }
      return n;
    },
  };
}

/**
 * The root a run of a DAG with its own `log_dir` wrote under: its status records the attempt's absolute
 * directory, `<root>/<dag>/<run id>/<attempt>`. Undefined for the logs directory's own runs (a relative path).
 */
function ownLogRoot(status: RunStatus): string | undefined {
  if (!path.isAbsolute(status.log_dir)) return undefined;
  const runDir = path.dirname(path.normalize(status.log_dir));
  if (path.basename(runDir) !== status.run_id || path.basename(path.dirname(runDir)) !== status.dag_name) {
    return undefined;
  }
  return path.dirname(path.dirname(runDir));
}

async function* logsInDatabase(pool: Pool, s: string): AsyncGenerator<{ key: string; value: RunLogs }> {
  let after: string | null = null;
  for (;;) {
    const r: QueryResult<LogRow> = await pool.query<LogRow>(
      `select run_id, attempt, name, size, newlines, ends_newline from ${s}.run_log_files
          where run_id in (select distinct run_id from ${s}.run_log_files
                            where ($1::text is null or run_id > $1) order by run_id limit ${PAGE})
          order by run_id, attempt, name`,
      [after],
    );
    if (r.rows.length === 0) return;
    let current: RunLogs | null = null;
    for (const row of r.rows) {
      if (current !== null && current.run_id !== row.run_id) yield { key: current.run_id, value: current };
      if (current === null || current.run_id !== row.run_id)
        current = { run_id: row.run_id, dag_name: '', logs: [] };
      const size = Number(row.size);
      // As PgRunLogStore counts them: a last line without its newline is a line too.
      const lines = Number(row.newlines) + (size > 0 && !row.ends_newline ? 1 : 0);
      current.logs.push({ attempt: row.attempt, name: row.name, size, lines });
    }
    yield { key: current!.run_id, value: current! };
    after = current!.run_id;
  }
}

/** Per log: on one side only, or another size or line count. */
export function logDifferences(inFiles: RunLogs, inDatabase: RunLogs): string[] {
  const key = (l: RunLogEntry) => `attempt ${l.attempt} ${l.name}`;
  const there = new Map(inDatabase.logs.map((l) => [key(l), l]));
  const here = new Set(inFiles.logs.map(key));
  const out: string[] = [];
  for (const l of inFiles.logs) {
    const d = there.get(key(l));
    if (d === undefined) out.push(`${key(l)} is not in the database`);
    else if (d.size !== l.size || d.lines !== l.lines) {
      out.push(`${key(l)} has ${l.size} bytes in the files, ${d.size} in the database`);
    }
  }
  for (const l of inDatabase.logs) if (!here.has(key(l))) out.push(`${key(l)} is only in the database`);
  return out;
}

/**
 * Writes every log of the run, unless the database has logs of it already (`there`); the reason when it
 * cannot, because the run or one of its attempts is not in the database.
 */
async function copyRunLogs(c: PoolClient, s: string, files: FileSource, run: RunLogs): Promise<string> {
  const have = await c.query<{ attempt: number }>(`select attempt from ${s}.run_attempts where run_id = $1`, [
    run.run_id,
  ]);
  if (have.rowCount === 0) return 'the run is not in the database, so its logs cannot be';
  const attempts = new Set(have.rows.map((r) => r.attempt));
  const missing = [...new Set(run.logs.map((l) => l.attempt))].filter((a) => !attempts.has(a));
  if (missing.length > 0)
    return `attempt ${missing.join(', ')} of the run is not in the database, so its logs cannot be`;
  const exists = await c.query(`select 1 from ${s}.run_log_files where run_id = $1 limit 1`, [run.run_id]);
  if ((exists.rowCount ?? 0) > 0) return 'there';
  for (const log of run.logs) {
    const key = [run.run_id, log.attempt, log.name];
    await c.query(
      `insert into ${s}.run_log_files (run_id, attempt, name, size, newlines, ends_newline)
       values ($1, $2, $3, 0, 0, true)`,
      key,
    );
    let size = 0;
    let newlines = 0;
    let last = 0x0a;
    const ref = {
      dag_name: run.dag_name,
      run_id: run.run_id,
      attempt: log.attempt,
      name: log.name,
      log_root: run.log_root,
    };
    // Up to the size listed: a log that grew since is taken as it was then, like every other record.
    for await (const piece of files.logs.read(ref, 0, log.size)) {
      await c.query(
        `insert into ${s}.run_log_chunks (run_id, attempt, name, byte_offset, line_offset, length, data)
         values ($1, $2, $3, $4, $5, $6, $7)`,
        [...key, size, newlines, piece.length, Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength)],
      );
      size += piece.length;
      newlines += countNewlines(piece);
      last = piece[piece.length - 1];
    }
    await c.query(
      `update ${s}.run_log_files set size = $4, newlines = $5, ends_newline = $6
        where run_id = $1 and attempt = $2 and name = $3`,
      [...key, size, newlines, last === 0x0a],
    );
  }
  return 'copied';
}
