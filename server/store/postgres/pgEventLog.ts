// The event log on PostgreSQL. The record (type, time, data, shortening of oversized data) is made exactly
// as the file log makes it; the ID is made inside the append from the client's clock and the event_clock
// row, whose row lock is held until the append commits. So IDs grow strictly in commit order, across hosts
// and when a clock steps back, and a reader tailing by ID never skips an event that committed late.

import type { Pool } from 'pg';
import type { Clock } from '../../core/ports';
import { InvalidCursorError } from '../errors';
import { EVENT_ID_PATTERN, EventIdGenerator, clampEventLimit, makeEventRecord } from '../eventRecord';
import { randomHex } from '../randomHex';
import type { EventLog, EventRecord } from '../types';
import { quoteIdent } from './schemaVersion';

export class PgEventLog implements EventLog {
  private readonly s: string;
  private readonly ids: EventIdGenerator;

  constructor(
    private readonly pool: Pool,
    schema: string,
    private readonly clock: Clock,
  ) {
    this.s = quoteIdent(schema);
    this.ids = new EventIdGenerator(clock);
  }

  async append(type: string, data: Record<string, unknown>): Promise<EventRecord> {
    // The record's content and time as the file log makes them; its ID is replaced below.
    const { record } = makeEventRecord(this.ids, type, data);
    const r = await this.pool.query<{ id: string }>(
      `with c as (
         update ${this.s}.event_clock set
           counter = case when $1::bigint > last_ms then 0 when counter >= 65535 then 0 else counter + 1 end,
           last_ms = case when $1::bigint > last_ms then $1::bigint
                          when counter >= 65535 then last_ms + 1 else last_ms end
          where id = 1
        returning last_ms, counter),
       ins as (
         insert into ${this.s}.events (id, type, time, data)
         select lpad(c.last_ms::text, 13, '0') || '-' || lpad(to_hex(c.counter), 4, '0') || $2, $3, $4, $5::json
           from c
         returning id)
       select id, pg_notify('dagu_events', id) from ins`,
      [this.clock.nowMs(), randomHex(3), record.type, record.time, JSON.stringify(record.data)],
    );
    return { ...record, id: r.rows[0].id };
  }

  /**
   * The CTEs that append an event inside another data-modifying statement (`ev_clock`, `ev_ins`, `ev_told`;
   * parameters numbered from `first`), only when the SQL condition `when` holds, as append() makes it. The
   * statement must read `told` (a count) for the wake-up to be sent.
   */
  inlineAppend(
    type: string,
    data: Record<string, unknown>,
    first: number,
    when: string,
  ): { ctes: string; values: unknown[]; told: string } {
    const { record } = makeEventRecord(this.ids, type, data);
    const p = (i: number) => `$${first + i}`;
    return {
      ctes: `ev_clock as (
         update ${this.s}.event_clock set
           counter = case when ${p(0)}::bigint > last_ms then 0 when counter >= 65535 then 0 else counter + 1 end,
           last_ms = case when ${p(0)}::bigint > last_ms then ${p(0)}::bigint
                          when counter >= 65535 then last_ms + 1 else last_ms end
          where id = 1 and ${when}
        returning last_ms, counter),
       ev_ins as (
         insert into ${this.s}.events (id, type, time, data)
         select lpad(c.last_ms::text, 13, '0') || '-' || lpad(to_hex(c.counter), 4, '0') || ${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}::json
           from ev_clock c
         returning id),
       ev_told as (select pg_notify('dagu_events', id) from ev_ins)`,
      values: [this.clock.nowMs(), randomHex(3), record.type, record.time, JSON.stringify(record.data)],
      told: '(select count(*) from ev_told)',
    };
  }

  async list(query: { afterId?: string; types?: string[]; limit?: number }): Promise<EventRecord[]> {
    if (query.afterId !== undefined && !EVENT_ID_PATTERN.test(query.afterId)) {
      throw new InvalidCursorError(query.afterId, 'event ID');
    }
    const types = query.types && query.types.length > 0 ? query.types : null;
    const r = await this.pool.query<EventRecord>(
      `select id, type, time, data from ${this.s}.events
        where ($1::text is null or id > $1) and ($2::text[] is null or type = any($2))
        order by id limit $3`,
      [query.afterId ?? null, types, clampEventLimit(query.limit)],
    );
    return r.rows.map((row) => ({ id: row.id, type: row.type, time: row.time, data: row.data }));
  }
}
