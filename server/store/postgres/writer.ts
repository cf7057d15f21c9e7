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
}

/** Writes with no fence: every process but the active scheduler (run processes, the API, coordinators). */
export function poolWriter(pool: Pool): PgWriter {
  return {
    query: <R extends QueryResultRow>(text: string, values?: unknown[]) => pool.query<R>(text, values),
    tx: (work) => inTransaction(pool, work),
  };
}

/** Writes behind `guard`, which throws (and so rolls back) unless the fence still holds. */
export function fencedWriter(pool: Pool, guard: (c: PoolClient) => Promise<void>): PgWriter {
  const tx = <T>(work: (c: PoolClient) => Promise<T>) =>
    inTransaction(pool, async (c) => {
      await guard(c);
      return work(c);
    });
  return {
    query: <R extends QueryResultRow>(text: string, values?: unknown[]) =>
      tx((c) => c.query<R>(text, values)),
    tx,
  };
}
