// Runs with every attempt, between the file run store and the `runs` / `run_attempts` tables. A run is
// copied whole in one transaction (its run-list row and all its attempts with their status, claim,
// heartbeat and unwritten-status note), so the database never holds half a run. A run with an attempt
// whose status cannot be read is reported and not copied: without it the run would read differently there.

import type { Pool, PoolClient, QueryResult } from 'pg';
import type { RunStatus } from '../../core/types';
import { listRunIds } from '../listRunIds';
import { quoteIdent } from '../postgres/schemaVersion';
import { inTransaction } from '../postgres/transaction';
import { createdMsOf, runListKey, summarizeRun } from '../runList';
import type { RunSummary, UnwrittenFinalStatus } from '../types';
import { describeFields, differingFields, sameJson } from './canonicalJson';
import type { FileSource } from './fileSource';
import type { KindAdapter, SourceItem } from './syncKind';

/** The run-list row of a run, as PgRunStore keeps it. */
interface RunRow {
  dag_name: string;
  list_key: string;
  created_ms: number;
  latest_attempt: number;
  status: string;
  trigger_type: string | null;
  summary: RunSummary;
}

interface AttemptRecord {
  attempt: number;
  status: RunStatus;
  claimed_by: string | null;
  heartbeat_ms: number | null;
  unwritten: UnwrittenFinalStatus | null;
}

export interface RunRecord {
  run_id: string;
  row: RunRow;
  /** Ascending by attempt number. */
  attempts: AttemptRecord[];
}

type DbRunRow = Omit<RunRow, 'created_ms'> & { run_id: string; created_ms: string };

/** Runs read back per page of the target walk: each page is two queries. */
const PAGE = 200;

export function runRecords(files: FileSource, pool: Pool, schema: string): KindAdapter<RunRecord> {
  const s = quoteIdent(schema);
  return {
    kind: 'runs',
    batch: 1,
    source: () => runsInFiles(files),
    target: () => runsInDatabase(pool, s),
    differences: runDifferences,
    write: (runs) => inTransaction(pool, (c) => insertRuns(c, s, runs)),
  };
}

async function* runsInFiles(files: FileSource): AsyncGenerator<SourceItem<RunRecord>> {
  for (const runId of (await listRunIds(files.paths.dataDir)).sort()) {
    const read = await readRun(files, runId);
    if (read === null) continue; // deleted since the listing
    if ('unreadable' in read) yield { key: runId, skipped: read.unreadable };
    else yield { key: runId, value: read };
  }
}

/**
 * A run of the files as the copy takes it: every attempt readable, or the reason it is not copied; null
 * when the run does not exist (any more). The run logs' copy goes by the same rule.
 */
export async function readRun(
  files: FileSource,
  runId: string,
): Promise<RunRecord | { unreadable: string } | null> {
  const stored = await files.runs.readStoredAttempts(runId);
  if (stored === null) return null;
  if (stored.length === 0) return { unreadable: 'the run directory has no attempt' };
  const attempts: AttemptRecord[] = [];
  for (const a of stored) {
    if (a.status.kind === 'corrupt') return { unreadable: `${a.status.path}: ${a.status.error}` };
    if (a.status.kind === 'missing') return { unreadable: `attempt ${a.attempt} has no status file` };
    attempts.push({
      attempt: a.attempt,
      status: a.status.value,
      claimed_by: a.claimedBy,
      heartbeat_ms: a.heartbeatMs,
      unwritten: a.unwritten,
    });
  }
  return { run_id: runId, row: rowOf(attempts), attempts };
}

/**
 * Why the records of run `runId` that live apart from it (its active mark, queue items, cancel request,
 * dispatch tasks) are not copied, or null to copy them: a run the copy skips as unreadable takes them with
 * it, since in the database they would point at no run. One per copy: each run is read once however many
 * records point at it.
 */
export type SkippedRunVerdict = (runId: string) => Promise<string | null>;

export function skippedRunVerdicts(files: FileSource): SkippedRunVerdict {
  const verdicts = new Map<string, Promise<string | null>>();
  return (runId) => {
    let v = verdicts.get(runId);
    if (v === undefined) {
      v = readRun(files, runId).then((run) =>
        run !== null && 'unreadable' in run
          ? `run ${runId} is not copied, as its status is unreadable (${run.unreadable})`
          : null,
      );
      verdicts.set(runId, v);
    }
    return v;
  };
}

/** The run-list row PgRunStore would hold after creating the first attempt and writing the latest. */
function rowOf(attempts: AttemptRecord[]): RunRow {
  const first = attempts[0].status;
  const latest = attempts[attempts.length - 1].status;
  const createdMs = createdMsOf(first);
  return {
    dag_name: first.dag_name,
    list_key: runListKey(createdMs, first.run_id),
    created_ms: createdMs,
    latest_attempt: latest.attempt,
    status: latest.status,
    trigger_type: latest.trigger_type,
    summary: summarizeRun(latest),
  };
}

async function* runsInDatabase(pool: Pool, s: string): AsyncGenerator<{ key: string; value: RunRecord }> {
  let after: string | null = null;
  for (;;) {
    const runs: QueryResult<DbRunRow> = await pool.query<DbRunRow>(
      `select run_id, dag_name, list_key, created_ms, latest_attempt, status, trigger_type, summary
         from ${s}.runs where ($1::text is null or run_id > $1) order by run_id limit ${PAGE}`,
      [after],
    );
    if (runs.rows.length === 0) return;
    const attempts = await pool.query<AttemptRecord & { run_id: string; heartbeat_ms: string | null }>(
      `select run_id, attempt, status, claimed_by, heartbeat_ms, unwritten from ${s}.run_attempts
        where run_id = any($1::text[]) order by run_id, attempt`,
      [runs.rows.map((r) => r.run_id)],
    );
    const byRun = new Map<string, AttemptRecord[]>();
    for (const a of attempts.rows) {
      const list = byRun.get(a.run_id) ?? [];
      list.push({
        attempt: a.attempt,
        status: a.status,
        claimed_by: a.claimed_by,
        heartbeat_ms: a.heartbeat_ms === null ? null : Number(a.heartbeat_ms),
        unwritten: a.unwritten,
      });
      byRun.set(a.run_id, list);
    }
    for (const r of runs.rows) {
      const row: RunRow = {
        dag_name: r.dag_name,
        list_key: r.list_key,
        created_ms: Number(r.created_ms),
        latest_attempt: r.latest_attempt,
        status: r.status,
        trigger_type: r.trigger_type,
        summary: r.summary,
      };
      yield { key: r.run_id, value: { run_id: r.run_id, row, attempts: byRun.get(r.run_id) ?? [] } };
    }
    after = runs.rows[runs.rows.length - 1].run_id;
  }
}

/** Per attempt: its presence, its status (the state named when that is what differs), claim, heartbeat. */
export function runDifferences(inFiles: RunRecord, inDatabase: RunRecord): string[] {
  const out: string[] = [];
  const there = new Map(inDatabase.attempts.map((a) => [a.attempt, a]));
  const here = new Set(inFiles.attempts.map((a) => a.attempt));
  for (const a of inFiles.attempts) {
    const b = there.get(a.attempt);
    if (b === undefined) {
      out.push(`attempt ${a.attempt} (${a.status.status}) is not in the database`);
      continue;
    }
    if (a.status.status !== b.status.status) {
      out.push(`attempt ${a.attempt} is ${a.status.status} in the files, ${b.status.status} in the database`);
    } else if (!sameJson(a.status, b.status)) {
      out.push(`attempt ${a.attempt}: status ${describeFields(differingFields(a.status, b.status))}`);
    }
    if (a.claimed_by !== b.claimed_by) out.push(`attempt ${a.attempt}: claim differs`);
    if (a.heartbeat_ms !== b.heartbeat_ms) out.push(`attempt ${a.attempt}: heartbeat differs`);
    if (!sameJson(a.unwritten, b.unwritten)) out.push(`attempt ${a.attempt}: unwritten-status note differs`);
  }
  for (const b of inDatabase.attempts) {
    if (!here.has(b.attempt)) out.push(`attempt ${b.attempt} (${b.status.status}) is only in the database`);
  }
  const rowFields = differingFields(inFiles.row, inDatabase.row);
  if (rowFields.length > 0) out.push(`run list entry: ${describeFields(rowFields)}`);
  return out;
}

async function insertRuns(c: PoolClient, s: string, runs: RunRecord[]): Promise<number> {
  let inserted = 0;
  for (const run of runs) {
    const r = run.row;
    const created = await c.query(
      `insert into ${s}.runs (run_id, dag_name, list_key, created_ms, latest_attempt, status, trigger_type, summary)
       values ($1, $2, $3, $4, $5, $6, $7, $8::json) on conflict (run_id) do nothing`,
      [
        run.run_id,
        r.dag_name,
        r.list_key,
        r.created_ms,
        r.latest_attempt,
        r.status,
        r.trigger_type,
        JSON.stringify(r.summary),
      ],
    );
    if (created.rowCount === 0) continue;
    for (const a of run.attempts) {
      await c.query(
        `insert into ${s}.run_attempts (run_id, attempt, status, claimed_by, heartbeat_ms, unwritten)
         values ($1, $2, $3::json, $4, $5, $6::json)`,
        [
          run.run_id,
          a.attempt,
          JSON.stringify(a.status),
          a.claimed_by,
          a.heartbeat_ms,
          a.unwritten === null ? null : JSON.stringify(a.unwritten),
        ],
      );
    }
    inserted++;
  }
  return inserted;
}
