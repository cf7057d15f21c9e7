// One transaction on a pooled connection: BEGIN, the work, COMMIT; ROLLBACK when the work throws. A
// connection whose ROLLBACK failed is destroyed rather than handed back to the pool in an unknown state.

import type { Pool, PoolClient } from 'pg';

export async function inTransaction<T>(pool: Pool, work: (c: PoolClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  let broken: Error | undefined;
  try {
    await c.query('begin');
    const out = await work(c);
    await c.query('commit');
    return out;
  } catch (err) {
    await c.query('rollback').catch((e: Error) => {
      broken = e;
    });
    throw err;
  } finally {
    c.release(broken);
  }
}
