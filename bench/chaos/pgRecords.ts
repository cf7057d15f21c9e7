// The soak's records on PostgreSQL: read straight from the product's tables (runs and their latest attempts,
// the event log, the workers, queue items and dispatch tasks, the failover history), plus the soak's own
// witness of when each scheduler-made attempt was inserted (see instrumentRunInserts).

import type pg from 'pg';
import type { RunStatus } from '../../server/core/types';
import { quoteIdent } from '../../server/store/postgres/schemaVersion';
import type { RoleEvent } from './analysis/soakData';
import type { HistoryAcquisition, SoakRecords } from './records';

/** The schema of the soak's instrumentation: apart from the product's, which it checks at every start. */
const WITNESS = 'chaos_soak';

/**
 * Adds triggers to the product's tables. One notes when each run's end reached the database (a run ends on
 * its own clock, and its status may land seconds later when the database was down: until then the run is
 * active for every scheduler, which skips its DAG's next slots by design). The other, on run_attempts, notes, on the database's clock, every attempt a
 * scheduler inserts (its status names the dispatcher). The failover history stamps acquisitions on the same
 * clock, inside the takeover's transaction; so an attempt noted after the next epoch's acquisition is a write
 * the fence let through from a deposed instance, whatever that instance's own clock said.
 */
export async function instrumentRunInserts(pool: pg.Pool, schema: string): Promise<void> {
  const s = quoteIdent(schema);
  await pool.query(`
    create schema ${WITNESS};
    create table ${WITNESS}.attempt_inserts (
      run_id        text not null,
      attempt       integer not null,
      dispatched_by text not null,
      inserted_at   timestamptz(3) not null
    );
    create function ${WITNESS}.note_attempt_insert() returns trigger language plpgsql as $$
    begin
      if new.status->>'dispatched_by' is not null then
        insert into ${WITNESS}.attempt_inserts
          values (new.run_id, new.attempt, new.status->>'dispatched_by', clock_timestamp());
      end if;
      return new;
    end $$;
    create trigger chaos_soak_note_insert after insert on ${s}.run_attempts
      for each row execute function ${WITNESS}.note_attempt_insert();
    create table ${WITNESS}.run_ends (run_id text not null, ended_at timestamptz(3) not null);
    create function ${WITNESS}.note_run_end() returns trigger language plpgsql as $$
    begin
      if old.status in ('queued', 'running') and new.status not in ('queued', 'running') then
        insert into ${WITNESS}.run_ends values (new.run_id, clock_timestamp());
      end if;
      return new;
    end $$;
    create trigger chaos_soak_note_end after update on ${s}.runs
      for each row execute function ${WITNESS}.note_run_end();`);
}

/** How many run attempts the scheduler process `pid` has inserted so far (by the witness). */
export async function attemptsInsertedBy(pool: pg.Pool, pid: number): Promise<number> {
  const r = await pool.query<{ n: string }>(
    `select count(*) as n from ${WITNESS}.attempt_inserts where dispatched_by like $1`,
    [`%-${pid}-%`],
  );
  return Number(r.rows[0].n);
}

const HOW: Record<string, HistoryAcquisition['how']> = {
  acquired: 'fresh',
  released: 'released',
  stale: 'stale',
};

export function pgRecords(pool: pg.Pool, schema: string): SoakRecords {
  const s = quoteIdent(schema);
  const parse = <T>(v: unknown): T => (typeof v === 'string' ? JSON.parse(v) : v) as T;
  return {
    async runs() {
      const r = await pool.query<{ status: unknown }>(
        `select a.status from ${s}.runs r
           join ${s}.run_attempts a on a.run_id = r.run_id and a.attempt = r.latest_attempt`,
      );
      return r.rows.map((row) => parse<RunStatus>(row.status));
    },
    async roleEvents() {
      const r = await pool.query<{ type: string; time: string; data: unknown }>(
        `select type, time, data from ${s}.events where type like 'scheduler.lock.%' order by id`,
      );
      return r.rows.map((e): RoleEvent => ({
        type: e.type,
        timeMs: Date.parse(e.time),
        data: parse<Record<string, unknown>>(e.data),
      }));
    },
    async workerRuns(id) {
      const r = await pool.query<{ doc: unknown }>(`select doc from ${s}.workers where worker_id = $1`, [id]);
      if (r.rowCount === 0) return [];
      const doc = parse<{ running?: Array<{ run_id: string }> }>(r.rows[0].doc);
      return (doc.running ?? []).map((x) => x.run_id);
    },
    async hasQueueItemOrTask(runId) {
      const r = await pool.query(
        `select 1 from ${s}.queue_items where run_id = $1
         union all select 1 from ${s}.dispatch_tasks where run_id = $1`,
        [runId],
      );
      return (r.rowCount ?? 0) > 0;
    },
    async lockHistory() {
      const r = await pool.query<{ epoch: string; to_holder: string; reason: string; at: Date }>(
        `select epoch, to_holder, reason, at from ${s}.failover_events order by id`,
      );
      return r.rows.map((x) => ({
        epoch: Number(x.epoch),
        timeMs: x.at.getTime(),
        to: x.to_holder,
        how: HOW[x.reason] ?? 'stale',
      }));
    },
    async endsRecorded() {
      const r = await pool.query<{ run_id: string; ended_at: Date }>(
        `select run_id, max(ended_at) as ended_at from ${WITNESS}.run_ends group by run_id`,
      );
      return new Map(r.rows.map((x) => [x.run_id, x.ended_at.getTime()]));
    },
    async insertedAttempts() {
      const r = await pool.query<{
        run_id: string;
        attempt: number;
        dispatched_by: string;
        inserted_at: Date;
      }>(`select run_id, attempt, dispatched_by, inserted_at from ${WITNESS}.attempt_inserts`);
      return r.rows.map((x) => ({
        runId: x.run_id,
        attempt: x.attempt,
        dispatchedBy: x.dispatched_by,
        insertedAtMs: x.inserted_at.getTime(),
      }));
    },
  };
}
