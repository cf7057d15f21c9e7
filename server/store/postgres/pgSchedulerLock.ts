// The scheduler lock on PostgreSQL (DESIGN §5's protocol, with the database as the shared storage). The
// record is two rows: `scheduler_lease` (holder token, epoch, released: changes only when the lock changes
// hands) and `scheduler_heartbeat` (the renewal counter). A standby still judges staleness on its own clock by
// watching (holder, epoch, counter) stay unchanged, exactly as with the file.
//
// Stronger than the file: a renewal or release is conditional on the holder's token and epoch, so a deposed
// holder's late write is refused by the database rather than landing; and `fenced()` runs a transaction that
// holds FOR SHARE on the lease row while it checks the token and epoch, so a takeover (which starts with FOR
// UPDATE on that row) waits for every fenced write in flight, and a write after a takeover sees no row and is
// refused. The isolation level does not matter; the lock clause is the fence.

import type { Pool, PoolClient } from 'pg';
import type { LockRead, LockRecord, LockStorage } from '../../core/lease/types';
import { quoteIdent } from './schemaVersion';
import { inTransaction } from './transaction';

const LOCK_NAME = 'scheduler';

/** A renewal, release or fenced write by an instance that no longer holds the lock. */
export class LeaseFenceError extends Error {
  constructor(
    readonly holder: string,
    readonly epoch: number,
    why = `the scheduler lock is no longer held by ${holder} at epoch ${epoch}`,
  ) {
    super(`${why}: write refused`);
    this.name = 'LeaseFenceError';
  }
}

interface LeaseRow {
  holder: string;
  instance_id: string;
  host: string;
  pid: number;
  epoch: string;
  released: boolean;
  acquired_at: string;
  counter: string;
  renewed_at: string;
}

export class PgSchedulerLock implements LockStorage {
  private readonly s: string;

  /**
   * `fenceIdleTimeoutMs`: how long the server lets a fenced transaction sit waiting for its client before it
   * ends the session, and how long each of its statements may wait for another session's lock. Its FOR SHARE blocks every takeover until it ends, and a holder that stops mid-write
   * (paused, cut off by the network, its FIN lost) would otherwise hold it for as long as the server keeps the
   * connection: hours, with no scheduler at all meanwhile.
   */
  constructor(
    private readonly pool: Pool,
    schema: string,
    private readonly opts: { fenceIdleTimeoutMs?: number } = {},
  ) {
    this.s = quoteIdent(schema);
  }

  async read(): Promise<LockRead> {
    const r = await this.pool.query<LeaseRow>(
      `select l.holder, l.instance_id, l.host, l.pid, l.epoch, l.released, l.acquired_at, h.counter, h.renewed_at
         from ${this.s}.scheduler_lease l join ${this.s}.scheduler_heartbeat h using (name)
        where l.name = $1`,
      [LOCK_NAME],
    );
    return r.rowCount === 0 ? { kind: 'none' } : { kind: 'record', record: toRecord(r.rows[0]) };
  }

  async create(record: LockRecord): Promise<boolean> {
    return inTransaction(this.pool, async (c) => {
      const r = await c.query(
        `insert into ${this.s}.scheduler_lease (name, holder, instance_id, host, pid, epoch, released, acquired_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8) on conflict (name) do nothing`,
        [LOCK_NAME, ...leaseValues(record)],
      );
      if (r.rowCount === 0) return false;
      await c.query(
        `insert into ${this.s}.scheduler_heartbeat (name, counter, renewed_at) values ($1, $2, $3)`,
        [LOCK_NAME, record.counter, record.renewed_at],
      );
      await this.history(c, null, record, 'acquired');
      return true;
    });
  }

  /**
   * Wins only when the rows still are the record observed: FOR UPDATE on the lease row waits for fenced
   * writes and renewals in flight, then the heartbeat is read in a new statement, so a renewal that committed
   * meanwhile is seen and the takeover gives up. A row cannot be corrupt here, so neither can `observed`.
   */
  async takeOver(observed: LockRead, next: LockRecord): Promise<boolean> {
    if (observed.kind === 'corrupt') return false;
    if (observed.kind === 'none') return this.create(next);
    const was = observed.record;
    return inTransaction(this.pool, async (c) => {
      const lease = await c.query<{ holder: string; epoch: string; released: boolean }>(
        `select holder, epoch, released from ${this.s}.scheduler_lease where name = $1 for update`,
        [LOCK_NAME],
      );
      if (lease.rowCount === 0) return false;
      const beat = await c.query<{ counter: string }>(
        `select counter from ${this.s}.scheduler_heartbeat where name = $1`,
        [LOCK_NAME],
      );
      const row = lease.rows[0];
      const same =
        row.holder === was.holder &&
        Number(row.epoch) === was.epoch &&
        row.released === was.released &&
        Number(beat.rows[0]?.counter) === was.counter;
      if (!same) return false;
      await c.query(
        `update ${this.s}.scheduler_lease
            set holder = $2, instance_id = $3, host = $4, pid = $5, epoch = $6, released = $7, acquired_at = $8
          where name = $1`,
        [LOCK_NAME, ...leaseValues(next)],
      );
      await c.query(
        `update ${this.s}.scheduler_heartbeat set counter = $2, renewed_at = $3 where name = $1`,
        [LOCK_NAME, next.counter, next.renewed_at],
      );
      await this.history(c, was, next, was.released ? 'released' : 'stale');
      return true;
    });
  }

  /**
   * A renewal or release by the holder: refused (LeaseFenceError) unless the lease row still carries the
   * record's token and epoch. A renewal only touches the heartbeat row, under FOR SHARE on the lease row.
   */
  async write(record: LockRecord): Promise<void> {
    if (!record.released) {
      const r = await this.pool.query(
        `update ${this.s}.scheduler_heartbeat set counter = $2, renewed_at = $3
          where name = $1 and exists (select 1 from ${this.s}.scheduler_lease
                                       where name = $1 and holder = $4 and epoch = $5 for share)`,
        [LOCK_NAME, record.counter, record.renewed_at, record.holder, record.epoch],
      );
      if (r.rowCount === 0) throw new LeaseFenceError(record.holder, record.epoch);
      return;
    }
    await inTransaction(this.pool, async (c) => {
      const r = await c.query(
        `update ${this.s}.scheduler_lease set released = true
          where name = $1 and holder = $2 and epoch = $3`,
        [LOCK_NAME, record.holder, record.epoch],
      );
      if (r.rowCount === 0) throw new LeaseFenceError(record.holder, record.epoch);
      await c.query(
        `update ${this.s}.scheduler_heartbeat set counter = $2, renewed_at = $3 where name = $1`,
        [LOCK_NAME, record.counter, record.renewed_at],
      );
    });
  }

  /**
   * Runs `work` in a transaction that first takes FOR SHARE on the lease row with the holder's token and
   * epoch: refused (LeaseFenceError, nothing written) when the lock has changed hands; a takeover waits until
   * this transaction ends. Only the active scheduler's writes use it (a slot's run, a replay, a queue
   * hand-over, a dead-run verdict).
   */
  async fenced<T>(holder: string, epoch: number, work: (c: PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, async (c) => {
      await this.guard(c, holder, epoch);
      return work(c);
    });
  }

  /**
   * The fence as a select for one statement (see FenceSelect): the lease row while it carries holder and
   * epoch. As with guard, the statement's waits for other sessions' locks are limited (lock_timeout, local
   * to its transaction: the statement) once the fence holds, which comes first: the write is gated on it.
   */
  fenceSelect(holder: string, epoch: number, first: number): { text: string; values: unknown[] } {
    const idle = this.opts.fenceIdleTimeoutMs;
    const limit = idle === undefined ? '1' : `set_config('lock_timeout', $${first + 3}, true)`;
    return {
      text: `select ${limit} from ${this.s}.scheduler_lease
              where name = $${first} and holder = $${first + 1} and epoch = $${first + 2} and not released for share`,
      values:
        idle === undefined ? [LOCK_NAME, holder, epoch] : [LOCK_NAME, holder, epoch, `${Math.ceil(idle)}ms`],
    };
  }

  /**
   * The fence, inside a transaction the caller has begun on `c`: FOR SHARE on the lease row when it still
   * carries `holder` and `epoch` (held until that transaction ends); LeaseFenceError otherwise.
   */
  async guard(c: PoolClient, holder: string, epoch: number): Promise<void> {
    const idle = this.opts.fenceIdleTimeoutMs;
    // set_config(..., true) is SET LOCAL: the time limits hold for this transaction only, set in the same
    // round trip as the row lock they protect. Both bound how long the fence can hold a takeover back: the
    // idle limit a holder stopped mid-write, the lock limit a live holder whose write waits behind another
    // session's lock (a statement blocked on a row lock is active, not idle, so the idle limit never ends it).
    const limits =
      idle === undefined
        ? '1'
        : `set_config('idle_in_transaction_session_timeout', $4, true), set_config('lock_timeout', $4, true)`;
    const r = await c.query(
      `select ${limits}
         from ${this.s}.scheduler_lease where name = $1 and holder = $2 and epoch = $3 and not released for share`,
      idle === undefined ? [LOCK_NAME, holder, epoch] : [LOCK_NAME, holder, epoch, `${Math.ceil(idle)}ms`],
    );
    if (r.rowCount === 0) throw new LeaseFenceError(holder, epoch);
  }

  /** The newest failover history rows, newest first. */
  async failovers(
    limit = 50,
  ): Promise<Array<{ epoch: number; from: string | null; to: string; reason: string; at: Date }>> {
    const r = await this.pool.query<{
      epoch: string;
      from_holder: string | null;
      to_holder: string;
      reason: string;
      at: Date;
    }>(
      `select epoch, from_holder, to_holder, reason, at from ${this.s}.failover_events order by id desc limit $1`,
      [limit],
    );
    return r.rows.map((x) => ({
      epoch: Number(x.epoch),
      from: x.from_holder,
      to: x.to_holder,
      reason: x.reason,
      at: x.at,
    }));
  }

  private async history(
    c: PoolClient,
    from: LockRecord | null,
    to: LockRecord,
    reason: string,
  ): Promise<void> {
    await c.query(
      `insert into ${this.s}.failover_events (epoch, from_holder, to_holder, reason) values ($1, $2, $3, $4)`,
      [to.epoch, from?.instance_id ?? null, to.instance_id, reason],
    );
  }
}

function leaseValues(r: LockRecord): unknown[] {
  return [r.holder, r.instance_id, r.host, r.pid, r.epoch, r.released, r.acquired_at];
}

function toRecord(row: LeaseRow): LockRecord {
  return {
    version: 1,
    holder: row.holder,
    instance_id: row.instance_id,
    host: row.host,
    pid: row.pid,
    epoch: Number(row.epoch),
    counter: Number(row.counter),
    released: row.released,
    acquired_at: row.acquired_at,
    renewed_at: row.renewed_at,
  };
}
