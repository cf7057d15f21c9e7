// The event log and the failover history. Events keep their IDs (a console that tails the log by ID, and
// every link to an event, stays valid), so after a copy the database's ID clock is moved past the newest
// copied ID: an event appended later always sorts after them. The failover history is the `failover_events`
// table a PostgreSQL scheduler writes at each acquisition of the lock; on files the same facts are the
// `scheduler.lock.acquired` events, from which its rows are made.

import type { Pool, QueryResult } from 'pg';
import { isoTime } from '../../core/isoTime';
import { quoteIdent } from '../postgres/schemaVersion';
import { inTransaction } from '../postgres/transaction';
import type { EventRecord } from '../types';
import { describeFields, differingFields } from './canonicalJson';
import type { FileSource } from './fileSource';
import { sortedByKey, type KindAdapter } from './syncKind';

/** Events read per page on either side. */
const PAGE = 1000;

/** The event type of an acquisition of the scheduler lock (see SchedulerService). */
const LOCK_ACQUIRED = 'scheduler.lock.acquired';

export function eventRecords(files: FileSource, pool: Pool, schema: string): KindAdapter<EventRecord> {
  const s = quoteIdent(schema);
  let newest: string | null = null;
  return {
    kind: 'events',
    batch: 500,
    source: async function* () {
      for await (const e of fileEvents(files)) {
        newest = e.id;
        yield { key: e.id, value: e };
      }
    },
    target: async function* () {
      let after: string | null = null;
      for (;;) {
        const r: QueryResult<EventRecord> = await pool.query<EventRecord>(
          `select id, type, time, data from ${s}.events where ($1::text is null or id > $1) order by id limit ${PAGE}`,
          [after],
        );
        for (const e of r.rows) yield { key: e.id, value: e };
        if (r.rows.length < PAGE) return;
        after = r.rows[r.rows.length - 1].id;
      }
    },
    differences: (a, b) => {
      const fields = differingFields(a, b);
      return fields.length === 0 ? [] : [describeFields(fields)];
    },
    write: async (events) => {
      const r = await pool.query(
        `insert into ${s}.events (id, type, time, data)
         select x.id, x.type, x.time, x.data from json_to_recordset($1::json) as x(id text, type text, time text, data json)
         on conflict (id) do nothing`,
        [JSON.stringify(events)],
      );
      return r.rowCount ?? 0;
    },
    afterCopy: async () => {
      if (newest !== null) await advanceEventClock(pool, s, newest);
    },
  };
}

/** Every event of the files, oldest first, a page at a time (torn lines are reported by the log). */
async function* fileEvents(files: FileSource, types?: string[]): AsyncGenerator<EventRecord> {
  let after: string | undefined;
  for (;;) {
    const page = await files.events.list({ afterId: after, types, limit: PAGE });
    yield* page;
    if (page.length < PAGE) return;
    after = page[page.length - 1].id;
  }
}

/**
 * Moves the ID clock of PgEventLog to the newest copied ID (`<ms13>-<counter4 hex><random>`), never back:
 * its next ID is then larger than every copied one, as the clock makes its IDs from (last_ms, counter).
 */
async function advanceEventClock(pool: Pool, s: string, newestId: string): Promise<void> {
  const ms = Number(newestId.slice(0, 13));
  const counter = parseInt(newestId.slice(14, 18), 16);
  await pool.query(
    `update ${s}.event_clock set last_ms = $1, counter = $2
      where id = 1 and (last_ms, counter) < ($1::bigint, $2::integer)`,
    [ms, counter],
  );
}

/** One row of the failover history. */
interface FailoverRow {
  epoch: number;
  from_holder: string | null;
  to_holder: string;
  reason: string;
  /** RFC 3339 UTC with milliseconds (the column keeps milliseconds). */
  at: string;
}

/** Rows have no ID of their own: epoch, time and new holder tell one acquisition from every other. */
const failoverKey = (f: FailoverRow) => `${String(f.epoch).padStart(16, '0')}~${f.at}~${f.to_holder}`;

export function failoverRecords(files: FileSource, pool: Pool, schema: string): KindAdapter<FailoverRow> {
  const s = quoteIdent(schema);
  const keyed = (rows: FailoverRow[]) => rows.map((value) => ({ key: failoverKey(value), value }));
  return {
    kind: 'failover history',
    batch: 500,
    source: async function* () {
      const rows: FailoverRow[] = [];
      for await (const e of fileEvents(files, [LOCK_ACQUIRED])) {
        const row = failoverRowOf(e);
        if (row !== null) rows.push(row);
      }
      yield* sortedByKey(keyed(rows));
    },
    target: async function* () {
      const r = await pool.query<Omit<FailoverRow, 'at' | 'epoch'> & { epoch: string; at: Date }>(
        `select epoch, from_holder, to_holder, reason, at from ${s}.failover_events`,
      );
      const rows = r.rows.map((x) => ({ ...x, epoch: Number(x.epoch), at: isoTime(x.at.getTime()) }));
      yield* sortedByKey(keyed(rows));
    },
    differences: (a, b) => {
      const fields = differingFields(a, b);
      return fields.length === 0 ? [] : [describeFields(fields)];
    },
    write: (rows) =>
      inTransaction(pool, async (c) => {
        for (const f of rows) {
          await c.query(
            `insert into ${s}.failover_events (epoch, from_holder, to_holder, reason, at) values ($1, $2, $3, $4, $5)`,
            [f.epoch, f.from_holder, f.to_holder, f.reason, f.at],
          );
        }
        return rows.length;
      }),
  };
}

/**
 * The history row of an acquisition event, with the reasons PgSchedulerLock writes (`acquired` for a lock
 * made fresh, else how it was taken); null for an event that does not say which epoch and holder (such an
 * event is still copied as an event).
 */
function failoverRowOf(e: EventRecord): FailoverRow | null {
  const d = e.data;
  const atMs = Date.parse(e.time);
  if (typeof d.epoch !== 'number' || typeof d.instance !== 'string' || !Number.isFinite(atMs)) return null;
  return {
    epoch: d.epoch,
    from_holder: typeof d.previous_instance === 'string' ? d.previous_instance : null,
    to_holder: d.instance,
    reason: d.how === 'released' || d.how === 'stale' ? d.how : 'acquired',
    at: isoTime(atMs),
  };
}
