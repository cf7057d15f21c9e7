// How a PostgreSQL store writes: straight to the pool, or behind the scheduler lock's fence. The active
// scheduler's stores are built with a fenced writer: every write runs in a transaction that first takes FOR
// SHARE on the lease row with this instance's holder token and epoch (see PgSchedulerLock.guard). A deposed
// instance's write is refused by the database (LeaseFenceError) and nothing of it lands, whatever its own
// timers believe; a takeover waits for fenced writes in flight. Reads never need the fence.

import type { Pool, PoolClient, QueryResult, QueryResultRow } from 'pg';
import { inTransaction } from './transaction';

export interface PgWriter {
  /** One write statement; a fenced writer runs it in its own transaction behind the fence. */
  query<R extends QueryResultRow = QueryResultRow>(text: string, values?: unknown[]): Promise<QueryResult<R>>;
  /** A transaction of writes; a fenced writer checks the fence first, in the same transaction. */
  tx<T>(work: (c: PoolClient) => Promise<T>): Promise<T>;
  /**
   * One data-modifying statement with its fence in the statement itself: one round trip, where `query`
   * behind a fence takes four (begin, fence, write, commit). `write(cond)` is the statement, which must
   * change only rows for which the SQL condition `cond` holds and may be used as a CTE (no `with` of its own,
   * parameters from `values`). Answers how many rows it changed; a fenced writer throws LeaseFenceError,
   * with nothing changed, when the fence does not hold.
   */
  writeOne(write: (cond: string) => string, values: unknown[]): Promise<number>;
}

/**
 * The fence as part of a statement: a select of the lease row, locked for share (so a takeover waits for the
 * statement), that is empty unless this instance holds the lock; its parameters are numbered from `first`.
 * Throws LeaseFenceError at once when the instance knows it holds nothing; `refused` makes the error of a
 * fence that did not hold.
 */
export type FenceSelect = (first: number) => { text: string; values: unknown[]; refused: () => Error };

/** Writes with no fence: every process but the active scheduler (run processes, the API, coordinators). */
export function poolWriter(pool: Pool): PgWriter {
  return {
    query: <R extends QueryResultRow>(text: string, values?: unknown[]) => pool.query<R>(text, values),
    tx: (work) => inTransaction(pool, work),
    writeOne: async (write, values) => (await pool.query(write('true'), values)).rowCount ?? 0,
  };
}

/** Writes behind `guard`, which throws (and so rolls back) unless the fence still holds. */
export function fencedWriter(
  pool: Pool,
  guard: (c: PoolClient) => Promise<void>,
  fence: FenceSelect,
): PgWriter {
  const tx = <T>(work: (c: PoolClient) => Promise<T>) =>
    inTransaction(pool, async (c) => {
      await guard(c);
      return work(c);
    });
  return {
    query: <R extends QueryResultRow>(text: string, values?: unknown[]) =>
      tx((c) => c.query<R>(text, values)),
    tx,
    async writeOne(write, values) {
      const f = fence(values.length + 1);
      // Both CTEs read the one `fence` row set, evaluated once: the write happens only if it holds, and the
      // answer says whether it did. One statement is one transaction: all of it or nothing.
      const r = await pool.query<{ held: boolean; changed: number }>(
        `with fence as (${f.text}),
              w as (${write('exists (select from fence)')} returning 1)
         select exists (select from fence) as held, (select count(*) from w)::int as changed`,
        [...values, ...f.values],
      );
      if (!r.rows[0].held) throw f.refused();
      return r.rows[0].changed;
    },
  };
}
