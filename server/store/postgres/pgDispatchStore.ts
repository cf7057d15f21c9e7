// Tasks for workers on PostgreSQL (the coordinator's dispatch store), with the order, claim and recycle rules
// of the file store. A claim is one statement: the oldest pending task whose selector the worker's labels
// contain (jsonb containment: every selector label equal) and that is claimable now, locked FOR UPDATE SKIP
// LOCKED and turned into a claim with a new token. Every later step on a claim checks its worker and token.

import type { Pool } from 'pg';
import type { Labels } from '../../core/distributed';
import { assertRunId } from '../../core/names';
import { assertNewTask, isValidTaskId, newClaimToken, taskIdOf } from '../distributedDir';
import type {
  AckResult,
  DispatchStore,
  DispatchTask,
  NewDispatchTask,
  PendingSummary,
} from '../dispatchTypes';
import type { InlineEvent } from '../types';
import type { PgEventLog } from './pgEventLog';
import { quoteIdent } from './schemaVersion';
import { inTransaction } from './transaction';

/** A row of dispatch_tasks as the store selects it (COLUMNS). */
export interface TaskRow {
  task_id: string;
  enqueued_at_ms: string;
  hold_until_ms: string | null;
  claim_worker: string | null;
  claim_token: string | null;
  claimed_at_ms: string | null;
  doc: DispatchTask;
}

export const TASK_COLUMNS =
  'task_id, enqueued_at_ms, hold_until_ms, claim_worker, claim_token, claimed_at_ms, doc';

export class PgDispatchStore implements DispatchStore {
  readonly durable = true;
  private readonly t: string;
  /** The event log of the same schema, when enqueue may append to it. */
  readonly eventsInEnqueue?: PgEventLog;

  constructor(
    private readonly pool: Pool,
    schema: string,
    events?: PgEventLog,
  ) {
    this.t = `${quoteIdent(schema)}.dispatch_tasks`;
    this.eventsInEnqueue = events;
  }

  async enqueue(task: NewDispatchTask, opts?: { event?: InlineEvent }): Promise<DispatchTask> {
    const event = opts?.event;
    if (event !== undefined && this.eventsInEnqueue === undefined)
      throw new Error('this dispatch store has no event log to append to');
    assertNewTask(task);
    // The same run and attempt enqueued twice within a millisecond: the later one takes the next free ID.
    for (let idMs = task.enqueued_at_ms; ; idMs++) {
      const stored: DispatchTask = {
        ...structuredClone(task),
        version: 1,
        task_id: taskIdOf(idMs, task.run_id, task.attempt),
        claim: null,
      };
      const params: unknown[] = [
        stored.task_id,
        stored.run_id,
        JSON.stringify(stored.worker_selector ?? {}),
        stored.enqueued_at_ms,
        stored.hold_until_ms,
        JSON.stringify(stored),
      ];
      // The event, appended by the same statement only if the task was stored.
      const ev =
        event &&
        this.eventsInEnqueue!.inlineAppend(
          event.type,
          event.data,
          params.length + 1,
          'exists (select from ins)',
        );
      if (ev) params.push(...ev.values);
      // The wake-up is sent by the same statement (delivered at commit): a coordinator's waiting long polls
      // look at once instead of at their next tick.
      const r = await this.pool.query(
        `with ins as (
           insert into ${this.t} (task_id, run_id, state, selector, enqueued_at_ms, hold_until_ms, doc)
           values ($1, $2, 'pending', $3::jsonb, $4, $5, $6::json) on conflict (task_id) do nothing
           returning task_id)
           ${ev ? `, ${ev.ctes}` : ''}
         select pg_notify('dagu_dispatch', task_id)${ev ? `, ${ev.told} as events` : ''} from ins`,
        params,
      );
      if ((r.rowCount ?? 0) > 0) return stored;
    }
  }

  async claimNext(
    worker: { worker_id: string; labels: Labels },
    nowMs: number,
  ): Promise<DispatchTask | null> {
    const r = await this.pool.query<TaskRow>(
      `with next as (
         select task_id from ${this.t}
          where state = 'pending' and $1::jsonb @> selector and (hold_until_ms is null or hold_until_ms > $2)
          order by enqueued_at_ms, task_id limit 1
          for update skip locked)
       update ${this.t} t set state = 'claimed', claim_worker = $3, claim_token = $4, claimed_at_ms = $2
         from next where t.task_id = next.task_id
       returning ${prefixed('t')}`,
      [JSON.stringify(worker.labels), nowMs, worker.worker_id, newClaimToken()],
    );
    return r.rowCount === 0 ? null : toTask(r.rows[0]);
  }

  async takeExpiredHold(taskId: string, taker: string, nowMs: number): Promise<DispatchTask | null> {
    if (!isValidTaskId(taskId)) return null;
    const r = await this.pool.query<TaskRow>(
      `update ${this.t} set state = 'claimed', claim_worker = $2, claim_token = $3, claimed_at_ms = $4
        where task_id = $1 and state = 'pending' and hold_until_ms is not null and hold_until_ms <= $4
       returning ${TASK_COLUMNS}`,
      [taskId, taker, newClaimToken(), nowMs],
    );
    return r.rowCount === 0 ? null : toTask(r.rows[0]);
  }

  async ack(taskId: string, workerId: string, token: string): Promise<AckResult> {
    if (!isValidTaskId(taskId)) return { ok: false, reason: 'not_found' };
    // One statement: the claim's row is deleted only while this worker holds it with this token. Only when
    // nothing was deleted is the row looked at again, to tell another worker's claim from no claim.
    const r = await this.pool.query<TaskRow>(
      `delete from ${this.t}
        where task_id = $1 and state = 'claimed' and claim_worker = $2 and claim_token = $3
       returning ${TASK_COLUMNS}`,
      [taskId, workerId, token],
    );
    if (r.rowCount !== 0) return { ok: true, task: toTask(r.rows[0]) };
    const held = await this.pool.query<{ claim_worker: string }>(
      `select claim_worker from ${this.t} where task_id = $1 and state = 'claimed'`,
      [taskId],
    );
    // The same worker with another token holds a newer claim: the one being acknowledged is gone.
    return held.rowCount !== 0 && held.rows[0].claim_worker !== workerId
      ? { ok: false, reason: 'wrong_worker' }
      : { ok: false, reason: 'not_found' };
  }

  async release(taskId: string, claimant: string, token: string): Promise<boolean> {
    if (!isValidTaskId(taskId)) return false;
    // Back in line where it was (its enqueue time is kept); the wake-up lets waiting polls look at once.
    const r = await this.pool.query(
      `with back as (
         update ${this.t} set state = 'pending', claim_worker = null, claim_token = null, claimed_at_ms = null
          where task_id = $1 and state = 'claimed' and claim_worker = $2 and claim_token = $3
         returning task_id)
       select pg_notify('dagu_dispatch', task_id) from back`,
      [taskId, claimant, token],
    );
    return (r.rowCount ?? 0) > 0;
  }

  async listPending(where: (t: PendingSummary) => boolean = () => true): Promise<DispatchTask[]> {
    return (await this.rows('pending')).map(toTask).filter((task) => where(summaryOf(task)));
  }

  async pendingSummaries(): Promise<PendingSummary[]> {
    return (await this.rows('pending')).map((row) => summaryOf(toTask(row)));
  }

  async listClaims(): Promise<DispatchTask[]> {
    return (await this.rows('claimed')).map(toTask);
  }

  async findByRun(runId: string): Promise<DispatchTask | null> {
    assertRunId(runId);
    const r = await this.pool.query<TaskRow>(
      `select ${TASK_COLUMNS} from ${this.t} where run_id = $1
        order by state = 'claimed', enqueued_at_ms, task_id limit 1`,
      [runId],
    );
    return r.rowCount === 0 ? null : toTask(r.rows[0]);
  }

  async delete(taskId: string): Promise<boolean> {
    if (!isValidTaskId(taskId)) return false;
    const r = await this.pool.query(`delete from ${this.t} where task_id = $1 and state = 'pending'`, [
      taskId,
    ]);
    return (r.rowCount ?? 0) > 0;
  }

  async recycle(
    nowMs: number,
    ttlMs: number,
    keep: (task: DispatchTask) => boolean = () => false,
  ): Promise<{ returned: DispatchTask[]; expired: DispatchTask[] }> {
    return inTransaction(this.pool, async (c) => {
      // Pending tasks without a hold that nobody claimed in time; rows a claim holds are skipped.
      const stale = await c.query<TaskRow>(
        `select ${TASK_COLUMNS} from ${this.t}
          where state = 'pending' and hold_until_ms is null and $1 - enqueued_at_ms > $2
          order by enqueued_at_ms, task_id for update skip locked`,
        [nowMs, ttlMs],
      );
      const expired = stale.rows.map(toTask).filter((task) => !keep(task));
      if (expired.length > 0) {
        await c.query(`delete from ${this.t} where task_id = any($1::text[])`, [
          expired.map((t) => t.task_id),
        ]);
      }
      // Claims older than the TTL go back to pending, counted as enqueued now.
      const back = await c.query<TaskRow>(
        `update ${this.t} set state = 'pending', claim_worker = null, claim_token = null, claimed_at_ms = null,
                enqueued_at_ms = $1
          where state = 'claimed' and $1 - claimed_at_ms > $2
         returning ${TASK_COLUMNS}`,
        [nowMs, ttlMs],
      );
      const returned = back.rows.map(toTask).sort((a, b) => (a.task_id < b.task_id ? -1 : 1));
      return { returned, expired };
    });
  }

  /** Nothing to rebuild: the table is the truth. */
  async rebuildIndex(): Promise<void> {}

  private async rows(state: 'pending' | 'claimed'): Promise<TaskRow[]> {
    const r = await this.pool.query<TaskRow>(
      `select ${TASK_COLUMNS} from ${this.t} where state = $1 order by enqueued_at_ms, task_id`,
      [state],
    );
    return r.rows;
  }
}

function prefixed(alias: string): string {
  return TASK_COLUMNS.split(', ')
    .map((c) => `${alias}.${c}`)
    .join(', ');
}

/** The task a row holds: its document with the columns that change over its life. */
export function toTask(row: TaskRow): DispatchTask {
  return {
    ...row.doc,
    task_id: row.task_id,
    enqueued_at_ms: Number(row.enqueued_at_ms),
    hold_until_ms: row.hold_until_ms === null ? null : Number(row.hold_until_ms),
    claim:
      row.claim_worker === null
        ? null
        : { worker_id: row.claim_worker, token: row.claim_token!, claimed_at_ms: Number(row.claimed_at_ms) },
  };
}

function summaryOf(t: DispatchTask): PendingSummary {
  return {
    task_id: t.task_id,
    run_id: t.run_id,
    worker_selector: { ...t.worker_selector },
    hold_until_ms: t.hold_until_ms,
    enqueued_at_ms: t.enqueued_at_ms,
  };
}
