// Run records on PostgreSQL, with the file store's validation, ordering and errors (the run store contract).
// Creating a run inserts its row: the primary key is the at-most-once rule, as the exclusive directory
// create is for files. Creation, a new attempt and its active mark are one transaction, so nothing is ever
// half created (completeRun and purgeDeleted have nothing to finish). The run list is a keyset range over
// the same keys as the file index (`<created ms13>~<run id>`, newest first), filtered by indexed columns.
// Step logs stay on local disk under `logRoot` (the run process writes them there).

import path from 'node:path';
import type { Pool, PoolClient } from 'pg';
import { assertDagName, assertRunId } from '../../core/names';
import { TERMINAL_RUN_STATES, type RunStatus } from '../../core/types';
import { AttemptConflictError, RunNotFoundError } from '../errors';
import { clampLimit, createdMsOf, parseCursor, runListKey, summarizeRun, upperKey } from '../runList';
import { assertStatusNames, isAttemptNumber } from '../runValidation';
import type {
  ClaimQueuedResult,
  CreateRunResult,
  DeleteRunResult,
  HistoryEntry,
  ReadStatusResult,
  RunListPage,
  RunListQuery,
  RunStore,
  WriteStatusOptions,
  RunSummary,
  UnwrittenFinalStatus,
} from '../types';
import { parseUnwrittenNoteName, unwrittenNoteName } from '../unwrittenFinalStatus';
import type { PgEventLog } from './pgEventLog';
import { quoteIdent } from './schemaVersion';
import { poolWriter, type PgWriter } from './writer';

type ActiveRun = { run_id: string; dag_name: string; queue: string };

export class PgRunStore implements RunStore {
  private readonly s: string;

  private readonly w: PgWriter;

  /** `writer`: how writes are made (behind the scheduler lock's fence for the active scheduler). */
  /** The event log of the same schema, when a status write may append to it (eventsInStatusWrites). */
  readonly eventsInStatusWrites?: PgEventLog;

  constructor(
    private readonly pool: Pool,
    schema: string,
    private readonly logRoot: string,
    writer: PgWriter = poolWriter(pool),
    events?: PgEventLog,
  ) {
    this.s = quoteIdent(schema);
    this.w = writer;
    this.eventsInStatusWrites = events;
  }

  async createRun(initial: RunStatus, opts?: Pick<WriteStatusOptions, 'event'>): Promise<CreateRunResult> {
    assertStatusNames(initial);
    if (initial.attempt !== 1) throw new AttemptConflictError(initial.run_id, initial.attempt, 0);
    const createdMs = createdMsOf(initial);
    const live = initial.status === 'queued' || initial.status === 'running';
    const params: unknown[] = [
      initial.run_id,
      initial.dag_name,
      runListKey(createdMs, initial.run_id),
      createdMs,
      initial.status,
      initial.trigger_type,
      JSON.stringify(summarizeRun(initial)),
      JSON.stringify(initial),
      initial.queue,
      live,
    ];
    // The run's event, appended by the same statement only if the run's row was new.
    const ev = this.inlineEvent(opts?.event, params.length + 1, 'exists (select from run)');
    if (ev) params.push(...ev.values);
    // One statement (one snapshot, all or nothing): the run's row, its first attempt and, for a live run, its
    // active mark, the last two only if the run's row was new. The attempt's foreign key is checked at the
    // statement's end, when the run's row is there.
    const r = await this.w.query<{ created: string }>(
      `with run as (
         insert into ${this.s}.runs (run_id, dag_name, list_key, created_ms, latest_attempt, status, trigger_type, summary)
         values ($1, $2, $3, $4, 1, $5, $6, $7::json) on conflict (run_id) do nothing
         returning run_id),
       attempt as (
         insert into ${this.s}.run_attempts (run_id, attempt, status) select run_id, 1, $8::json from run),
       active as (
         insert into ${this.s}.active_runs (run_id, dag_name, queue) select run_id, $2, $9 from run where $10
         on conflict (run_id) do update set dag_name = excluded.dag_name, queue = excluded.queue)
         ${ev ? `, ${ev.ctes}` : ''}
       select count(*) as created${ev ? `, ${ev.told} as events` : ''} from run`,
      params,
    );
    return Number(r.rows[0].created) === 0
      ? ({ created: false, reason: 'exists' } as const)
      : ({ created: true } as const);
  }

  /** Creation is one transaction here, so there is never a half-created run to complete. */
  async completeRun(initial: RunStatus): Promise<boolean> {
    assertStatusNames(initial);
    return false;
  }

  /** The run list is the runs table: every created run is listed. */
  async ensureIndexed(status: RunStatus): Promise<void> {
    assertStatusNames(status);
  }

  async createAttempt(status: RunStatus): Promise<void> {
    assertStatusNames(status);
    await this.w.tx(async (c) => {
      const run = await c.query<{ latest_attempt: number }>(
        `select latest_attempt from ${this.s}.runs where run_id = $1 for update`,
        [status.run_id],
      );
      if (run.rowCount === 0) throw new RunNotFoundError(status.run_id);
      const latest = run.rows[0].latest_attempt;
      if (status.attempt !== latest + 1)
        throw new AttemptConflictError(status.run_id, status.attempt, latest);
      await c.query(
        `insert into ${this.s}.run_attempts (run_id, attempt, status) values ($1, $2, $3::json)`,
        [status.run_id, status.attempt, JSON.stringify(status)],
      );
      await this.updateLatest(c, status);
      await this.markIfLive(c, status);
    });
  }

  /** writeStatus's one statement removes the active mark of an ended latest attempt (see below). */
  readonly unmarksEnded = true;
  readonly clearsCancelsOnEnd = true;

  async writeStatus(status: RunStatus, _replaces?: RunStatus, opts?: WriteStatusOptions): Promise<void> {
    assertStatusNames(status);
    if (!isAttemptNumber(status.attempt)) throw new RunNotFoundError(status.run_id, status.attempt);
    // One statement, so that outside the scheduler (a run process writes each of its changes) it is one
    // round trip instead of five (begin, lock, two updates, commit). It does what that transaction did: the
    // run's row is locked first, the attempt is written only if it exists, and the run's list columns follow
    // only for its latest attempt (a data-modifying CTE runs whether or not it is read). One statement is
    // one snapshot, all or nothing. An ended latest attempt also takes its run off the active list here:
    // every writer of an end unmarks the run afterwards too, but as a statement of its own, and one that
    // failed (a connection dropped by a database restart) left a finished run marked active, its DAG's next
    // slots skipped as overlapping it until the dead-run sweep removed the marker (found by the chaos soak).
    // A change of the run's state is announced (`dagu_runs`: the run ID, the attempt and its new state, sent
    // at commit): the scheduler watching a run it launched learns of its start then, rather than polling it. (A select CTE runs only when read:
    // `told` is read by the answer.) The end also removes the run's cancel request (clearsCancelsOnEnd),
    // and a heartbeat the caller gives is set in the same update: two round trips fewer per distributed run.
    const { latest, written } = await this.writeAttemptRow(
      status,
      null,
      opts?.heartbeatMs ?? null,
      opts?.event,
    );
    if (latest === null) throw new RunNotFoundError(status.run_id);
    if (written === 0) throw new RunNotFoundError(status.run_id, status.attempt);
  }

  /**
   * writeStatus's one statement; with `owner`, the attempt's row is written only while that claim holds.
   * Returns the run's latest attempt (null: no such run) and how many attempt rows were written (0 or 1).
   */
  private async writeAttemptRow(
    status: RunStatus,
    owner: string | null,
    heartbeatMs: number | null = null,
    event?: WriteStatusOptions['event'],
  ): Promise<{ latest: number | null; written: number }> {
    const params: unknown[] = [
      status.run_id,
      status.attempt,
      JSON.stringify(status),
      status.status,
      status.trigger_type,
      JSON.stringify(summarizeRun(status)),
    ];
    const ownerParam = owner === null ? null : params.push(owner);
    const beatParam = heartbeatMs === null ? null : params.push(heartbeatMs);
    // The run event, appended by the same statement only if the attempt's row was written.
    const ev = this.inlineEvent(event, params.length + 1, 'exists (select from attempt)');
    if (ev) params.push(...ev.values);
    const r = await this.w.query<{ latest: number | null; written: string }>(
      `with run as (select latest_attempt, status from ${this.s}.runs where run_id = $1 for update),
            attempt as (
              update ${this.s}.run_attempts set status = $3::json
                ${beatParam === null ? '' : `, heartbeat_ms = $${beatParam}`}
               where run_id = $1 and attempt = $2 and $2 <= (select latest_attempt from run)
                 ${ownerParam === null ? '' : `and claimed_by = $${ownerParam}`}
              returning attempt),
            latest as (
              update ${this.s}.runs set latest_attempt = $2, status = $4, trigger_type = $5, summary = $6::json
               where run_id = $1 and $2 = (select latest_attempt from run) and exists (select from attempt)
              returning run_id),
            ended as (
              delete from ${this.s}.active_runs
               where run_id = $1 and $4 not in ('queued', 'running') and exists (select from latest)),
            uncancelled as (
              delete from ${this.s}.cancel_requests
               where run_id = $1 and $4 not in ('queued', 'running') and exists (select from latest)),
            told as (
              select pg_notify('dagu_runs', $1 || ' ' || $2::text || ' ' || $4)
                from latest where (select status from run) is distinct from $4)
            ${ev ? `, ${ev.ctes}` : ''}
       select (select latest_attempt from run) as latest, (select count(*) from attempt) as written,
              (select count(*) from told) as told${ev ? `, ${ev.told} as events` : ''}`,
      params,
    );
    return { latest: r.rows[0].latest, written: Number(r.rows[0].written) };
  }

  /** The CTEs that append `event` in a statement of this store (see PgEventLog.inlineAppend); none without one. */
  private inlineEvent(event: WriteStatusOptions['event'], first: number, when: string) {
    if (event === undefined) return undefined;
    if (this.eventsInStatusWrites === undefined)
      throw new Error('this run store has no event log to append to');
    return this.eventsInStatusWrites.inlineAppend(event.type, event.data, first, when);
  }

  async recordUnwrittenFinalStatus(
    runId: string,
    attempt: number,
    note: UnwrittenFinalStatus,
  ): Promise<void> {
    assertRunId(runId);
    // Kept as the file store keeps it (in a file name): a code it cannot spell there reads back as UNKNOWN.
    const kept = parseUnwrittenNoteName(unwrittenNoteName(note))!;
    const r = await this.w.query(
      `update ${this.s}.run_attempts set unwritten = $3::json where run_id = $1 and attempt = $2`,
      [runId, attempt, JSON.stringify(kept)],
    );
    if (r.rowCount === 0) throw await this.notFound(runId, attempt);
  }

  async readUnwrittenFinalStatus(runId: string, attempt: number): Promise<UnwrittenFinalStatus | null> {
    assertRunId(runId);
    const r = await this.pool.query<{ unwritten: UnwrittenFinalStatus | null }>(
      `select unwritten from ${this.s}.run_attempts where run_id = $1 and attempt = $2`,
      [runId, attempt],
    );
    return r.rows[0]?.unwritten ?? null;
  }

  async readStatus(runId: string): Promise<ReadStatusResult> {
    // The same row read: its claim column costs nothing beside the status.
    return (await this.readStatusAndClaim(runId)).read;
  }

  async readStatusAndClaim(runId: string): Promise<{ read: ReadStatusResult; claim: string | null }> {
    assertRunId(runId);
    const r = await this.pool.query<{ status: RunStatus; claimed_by: string | null }>(
      `select a.status, a.claimed_by from ${this.s}.runs r join ${this.s}.run_attempts a
          on a.run_id = r.run_id and a.attempt = r.latest_attempt
        where r.run_id = $1`,
      [runId],
    );
    if (r.rowCount === 0) return { read: { kind: 'missing' }, claim: null };
    return { read: { kind: 'ok', status: r.rows[0].status }, claim: r.rows[0].claimed_by };
  }

  async readStatusAndCancel(runId: string): Promise<{ read: ReadStatusResult; cancelRequested: boolean }> {
    assertRunId(runId);
    const r = await this.pool.query<{ status: RunStatus; cancel_requested: boolean }>(
      `select a.status, exists (select from ${this.s}.cancel_requests c where c.run_id = r.run_id) as cancel_requested
         from ${this.s}.runs r join ${this.s}.run_attempts a
           on a.run_id = r.run_id and a.attempt = r.latest_attempt
        where r.run_id = $1`,
      [runId],
    );
    if (r.rowCount === 0) return { read: { kind: 'missing' }, cancelRequested: false };
    return { read: { kind: 'ok', status: r.rows[0].status }, cancelRequested: r.rows[0].cancel_requested };
  }

  async readStatusesAndClaims(
    runIds: readonly string[],
  ): Promise<Map<string, { read: ReadStatusResult; claim: string | null }>> {
    for (const id of runIds) assertRunId(id);
    const out = new Map<string, { read: ReadStatusResult; claim: string | null }>();
    if (runIds.length === 0) return out;
    const r = await this.pool.query<{ run_id: string; status: RunStatus; claimed_by: string | null }>(
      `select r.run_id, a.status, a.claimed_by from ${this.s}.runs r join ${this.s}.run_attempts a
          on a.run_id = r.run_id and a.attempt = r.latest_attempt
        where r.run_id = any($1::text[])`,
      [runIds],
    );
    for (const row of r.rows)
      out.set(row.run_id, { read: { kind: 'ok', status: row.status }, claim: row.claimed_by });
    for (const id of runIds) if (!out.has(id)) out.set(id, { read: { kind: 'missing' }, claim: null });
    return out;
  }

  async listRuns(query: RunListQuery): Promise<RunListPage> {
    if (query.dag !== undefined) assertDagName(query.dag);
    const limit = clampLimit(query.limit);
    const before = upperKey(parseCursor(query.cursor), query.createdToMs);
    const where: string[] = [];
    const values: unknown[] = [];
    const add = (sql: string, value: unknown) => {
      values.push(value);
      where.push(sql.replace('?', `$${values.length}`));
    };
    if (before !== null) add('list_key < ?', before);
    if (query.dag !== undefined) add('dag_name = ?', query.dag);
    if (query.status !== undefined) add('status = ?', query.status);
    if (query.trigger !== undefined) add('trigger_type = ?', query.trigger);
    if (query.createdFromMs !== undefined) add('created_ms >= ?', query.createdFromMs);
    values.push(limit + 1);
    const r = await this.pool.query<{ list_key: string; summary: RunSummary }>(
      `select list_key, summary from ${this.s}.runs
        ${where.length > 0 ? `where ${where.join(' and ')}` : ''}
        order by list_key desc limit $${values.length}`,
      values,
    );
    const page = r.rows.slice(0, limit);
    return {
      items: page.map((row) => row.summary),
      next_cursor: r.rows.length > limit ? page[page.length - 1].list_key : null,
    };
  }

  async listActive(): Promise<ActiveRun[]> {
    const r = await this.pool.query<ActiveRun>(
      `select run_id, dag_name, queue from ${this.s}.active_runs order by run_id`,
    );
    return r.rows.map((row) => ({ run_id: row.run_id, dag_name: row.dag_name, queue: row.queue }));
  }

  async markActive(run: ActiveRun): Promise<void> {
    assertRunId(run.run_id);
    assertDagName(run.dag_name);
    assertDagName(run.queue, 'queue name');
    // One statement: no transaction of its own (a fenced writer still wraps it in one behind the fence).
    await this.mark(this.w, run);
  }

  async unmarkActive(runId: string): Promise<void> {
    assertRunId(runId);
    await this.w.query(`delete from ${this.s}.active_runs where run_id = $1`, [runId]);
  }

  async claimAttempt(runId: string, attempt: number, owner: string): Promise<boolean> {
    assertRunId(runId);
    const r = await this.w.query(
      `update ${this.s}.run_attempts set claimed_by = $3
        where run_id = $1 and attempt = $2 and claimed_by is null`,
      [runId, attempt, owner],
    );
    if ((r.rowCount ?? 0) > 0) return true;
    const exists = await this.pool.query(
      `select 1 from ${this.s}.run_attempts where run_id = $1 and attempt = $2`,
      [runId, attempt],
    );
    if (exists.rowCount === 0) throw await this.notFound(runId, attempt);
    return false;
  }

  async claimQueued(runId: string, owner: string): Promise<ClaimQueuedResult> {
    assertRunId(runId);
    // One statement for a run process's first two (read the run, claim it): the claim is taken only on the
    // latest attempt, only while it is queued and unclaimed. Two claimants racing: the second waits on the
    // row lock, then finds the row claimed and changes nothing.
    const r = await this.w.query<{ status: RunStatus; claimed: number }>(
      `with cur as (
         select a.run_id, a.attempt, a.status from ${this.s}.runs r join ${this.s}.run_attempts a
             on a.run_id = r.run_id and a.attempt = r.latest_attempt
          where r.run_id = $1),
       claim as (
         update ${this.s}.run_attempts a set claimed_by = $2 from cur
          where a.run_id = cur.run_id and a.attempt = cur.attempt and a.claimed_by is null
            and a.status->>'status' = 'queued'
         returning a.attempt)
       select cur.status, (select count(*) from claim)::int as claimed from cur`,
      [runId, owner],
    );
    if (r.rowCount === 0) return { kind: 'missing' };
    return { kind: 'ok', status: r.rows[0].status, claimed: r.rows[0].claimed > 0 };
  }

  async isClaimed(runId: string, attempt: number): Promise<boolean> {
    assertRunId(runId);
    const r = await this.pool.query(
      `select 1 from ${this.s}.run_attempts where run_id = $1 and attempt = $2 and claimed_by is not null`,
      [runId, attempt],
    );
    return (r.rowCount ?? 0) > 0;
  }

  /** The claim and the start are one row: updates of it are serialized by its row lock. */
  readonly releasesClaims = true;

  async beginClaimedAttempt(status: RunStatus, owner: string, opts?: WriteStatusOptions): Promise<boolean> {
    assertStatusNames(status);
    if (!isAttemptNumber(status.attempt)) throw new RunNotFoundError(status.run_id, status.attempt);
    // writeStatus's one statement, with the claim as one more condition on the attempt's row: a release
    // (below) committed first leaves claimed_by null or another's, and nothing is written. The attempt's row
    // lock orders the two.
    const { latest, written } = await this.writeAttemptRow(status, owner, null, opts?.event);
    if (latest === null) throw new RunNotFoundError(status.run_id);
    return written > 0;
  }

  async releaseClaim(runId: string, attempt: number, owner: string): Promise<boolean> {
    assertRunId(runId);
    // Only while the attempt is still queued: a claimant that began it has written `running` in the same row.
    const r = await this.w.query(
      `update ${this.s}.run_attempts set claimed_by = null
        where run_id = $1 and attempt = $2 and claimed_by = $3 and status->>'status' = 'queued'`,
      [runId, attempt, owner],
    );
    return (r.rowCount ?? 0) > 0;
  }

  async readClaim(runId: string, attempt: number): Promise<string | null> {
    assertRunId(runId);
    const r = await this.pool.query<{ claimed_by: string | null }>(
      `select claimed_by from ${this.s}.run_attempts where run_id = $1 and attempt = $2`,
      [runId, attempt],
    );
    return r.rows[0]?.claimed_by ?? null;
  }

  async writeHeartbeat(runId: string, attempt: number, nowMs: number): Promise<void> {
    assertRunId(runId);
    const r = await this.w.query(
      `update ${this.s}.run_attempts set heartbeat_ms = $3 where run_id = $1 and attempt = $2`,
      [runId, attempt, nowMs],
    );
    if (r.rowCount === 0) throw await this.notFound(runId, attempt);
  }

  async writeHeartbeats(
    attempts: ReadonlyArray<{ run_id: string; attempt: number }>,
    nowMs: number,
  ): Promise<void> {
    for (const a of attempts) assertRunId(a.run_id);
    if (attempts.length === 0) return;
    await this.w.query(
      `update ${this.s}.run_attempts a set heartbeat_ms = $3
         from unnest($1::text[], $2::int[]) as b(run_id, attempt)
        where a.run_id = b.run_id and a.attempt = b.attempt`,
      [attempts.map((a) => a.run_id), attempts.map((a) => a.attempt), nowMs],
    );
  }

  async readHeartbeat(runId: string, attempt: number): Promise<number | null> {
    assertRunId(runId);
    const r = await this.pool.query<{ heartbeat_ms: string | null }>(
      `select heartbeat_ms from ${this.s}.run_attempts where run_id = $1 and attempt = $2`,
      [runId, attempt],
    );
    const ms = r.rows[0]?.heartbeat_ms;
    return ms === null || ms === undefined ? null : Number(ms);
  }

  logDir(dagName: string, runId: string, attempt: number): string {
    assertDagName(dagName);
    assertRunId(runId);
    if (!isAttemptNumber(attempt)) throw new RunNotFoundError(runId, attempt);
    return path.join(this.logRoot, dagName, runId, String(attempt));
  }

  async history(dagName: string): Promise<HistoryEntry[]> {
    assertDagName(dagName);
    const r = await this.pool.query<{ run_id: string; created_ms: string }>(
      `select run_id, created_ms from ${this.s}.runs where dag_name = $1 order by list_key desc`,
      [dagName],
    );
    return r.rows.map((row) => ({ run_id: row.run_id, created_ms: Number(row.created_ms) }));
  }

  async deleteRun(runId: string): Promise<DeleteRunResult> {
    assertRunId(runId);
    return this.w.tx(async (c) => {
      const r = await c.query<{ status: string }>(
        `select status from ${this.s}.runs where run_id = $1 for update`,
        [runId],
      );
      if (r.rowCount === 0) return { deleted: false, reason: 'missing' } as const;
      const active = await c.query(`select 1 from ${this.s}.active_runs where run_id = $1`, [runId]);
      if (
        !(TERMINAL_RUN_STATES as readonly string[]).includes(r.rows[0].status) ||
        (active.rowCount ?? 0) > 0
      ) {
        return { deleted: false, reason: 'live' } as const;
      }
      await c.query(`delete from ${this.s}.runs where run_id = $1`, [runId]);
      return { deleted: true } as const;
    });
  }

  /** Deletion is one transaction here: nothing is ever left half done. */
  async purgeDeleted(): Promise<number> {
    return 0;
  }

  private async updateLatest(c: PoolClient, status: RunStatus): Promise<void> {
    await c.query(
      `update ${this.s}.runs set latest_attempt = $2, status = $3, trigger_type = $4, summary = $5::json
        where run_id = $1`,
      [
        status.run_id,
        status.attempt,
        status.status,
        status.trigger_type,
        JSON.stringify(summarizeRun(status)),
      ],
    );
  }

  /** As the file store does: a new queued or running run (or attempt) is marked active as it is created. */
  private async markIfLive(c: PoolClient, s: RunStatus): Promise<void> {
    if (s.status === 'queued' || s.status === 'running') {
      await this.mark(c, { run_id: s.run_id, dag_name: s.dag_name, queue: s.queue });
    }
  }

  private async mark(c: Pick<PgWriter, 'query'>, run: ActiveRun): Promise<void> {
    await c.query(
      `insert into ${this.s}.active_runs (run_id, dag_name, queue) values ($1, $2, $3)
       on conflict (run_id) do update set dag_name = excluded.dag_name, queue = excluded.queue`,
      [run.run_id, run.dag_name, run.queue],
    );
  }

  private async notFound(runId: string, attempt: number): Promise<RunNotFoundError> {
    const run = await this.pool.query(`select 1 from ${this.s}.runs where run_id = $1`, [runId]);
    return run.rowCount === 0 ? new RunNotFoundError(runId) : new RunNotFoundError(runId, attempt);
  }
}
