// One transaction on a pooled connection: BEGIN, the work, COMMIT; ROLLBACK when the work throws. A
// connection whose ROLLBACK failed, whose statement timed out on the client (query_timeout), or that failed
// while the work held it, is destroyed rather than handed back to the pool in an unknown state.

import type { Pool, PoolClient } from 'pg';

export async function inTransaction<T>(pool: Pool, work: (c: PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  let broken: Error | undefined;
  // The pool listens for errors only on idle connections: one that dies while the work holds it between two
  // statements (the server ended the session) would otherwise throw from the client as an uncaught error.
  const onError = (err: Error) => {
    broken = err;
  };
  c.on('error', onError);
  try {
    await c.query('begin');
    const out = await work(c);
    await c.query('commit');
    return out;
  } catch (err) {
    if (isClientTimeout(err)) {
      // The statement may still be running on the server: a ROLLBACK would queue behind it. Closing the
      // connection instead makes the server roll the transaction back.
      broken = err as Error;
      throw err;
    }
    await c.query('rollback').catch((e: Error) => {
      broken = e;
    });
    throw err;
  } finally {
    c.off('error', onError);
    c.release(broken);
  }
}

/** Whether `err` is node-postgres giving up on a statement (query_timeout) while the server may still run it. */
export function isClientTimeout(err: unknown): boolean {
  return err instanceof Error && err.message === 'Query read timeout';
}
