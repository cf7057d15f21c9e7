// The local queues on PostgreSQL: one row per queued run, with the same item IDs (and so the same FIFO
// order) as the file queue. The run record holds the truth; an item only points at it.

import type { Pool } from 'pg';
import { assertDagName, assertRunId } from '../../core/names';
import { newQueueItemId } from '../queueItemName';
import type { QueueItem, QueueStore } from '../types';
import { quoteIdent } from './schemaVersion';
import { poolWriter, type PgWriter } from './writer';

export class PgQueueStore implements QueueStore {
  private readonly t: string;

  private readonly w: PgWriter;

  /** `writer`: how writes are made (behind the scheduler lock's fence for the active scheduler). */
  constructor(
    private readonly pool: Pool,
    schema: string,
    writer: PgWriter = poolWriter(pool),
  ) {
    this.t = `${quoteIdent(schema)}.queue_items`;
    this.w = writer;
  }

  async enqueue(item: Omit<QueueItem, 'item_id'>): Promise<QueueItem> {
    assertDagName(item.queue, 'queue name');
    assertRunId(item.run_id);
    assertDagName(item.dag_name);
    const stored: QueueItem = {
      queue: item.queue,
      run_id: item.run_id,
      dag_name: item.dag_name,
      enqueued_at: item.enqueued_at,
      item_id: newQueueItemId(item.enqueued_at, item.run_id),
    };
    // The wake-up is sent by the same statement, so it is delivered at its commit, never before.
    await this.w.query(
      `with ins as (
         insert into ${this.t} (item_id, queue, run_id, dag_name, enqueued_at) values ($1, $2, $3, $4, $5)
         returning run_id)
       select pg_notify('dagu_queue', run_id) from ins`,
      [stored.item_id, stored.queue, stored.run_id, stored.dag_name, stored.enqueued_at],
    );
    return stored;
  }

  async list(queue: string): Promise<QueueItem[]> {
    assertDagName(queue, 'queue name');
    const r = await this.pool.query<QueueItem>(
      `select queue, run_id, dag_name, enqueued_at, item_id from ${this.t} where queue = $1 order by item_id`,
      [queue],
    );
    return r.rows.map(toItem);
  }

  async queues(): Promise<string[]> {
    const r = await this.pool.query<{ queue: string }>(`select distinct queue from ${this.t} order by queue`);
    return r.rows.map((row) => row.queue);
  }

  async listAll(): Promise<Map<string, QueueItem[]>> {
    // One statement where queues() and a list() per queue would be one each: the queue consumer's every pass.
    const r = await this.pool.query<QueueItem>(
      `select queue, run_id, dag_name, enqueued_at, item_id from ${this.t} order by queue, item_id`,
    );
    const out = new Map<string, QueueItem[]>();
    for (const row of r.rows) {
      const item = toItem(row);
      const list = out.get(item.queue);
      if (list) list.push(item);
      else out.set(item.queue, [item]);
    }
    return out;
  }

  async dequeue(queue: string, runId: string): Promise<boolean> {
    assertDagName(queue, 'queue name');
    assertRunId(runId);
    // Once per started run: one statement, its fence included, rather than a transaction of four.
    const deleted = await this.w.writeOne(
      (cond) => `delete from ${this.t} where queue = $1 and run_id = $2 and ${cond}`,
      [queue, runId],
    );
    return deleted > 0;
  }

  async find(runId: string): Promise<QueueItem | null> {
    assertRunId(runId);
    const r = await this.pool.query<QueueItem>(
      `select queue, run_id, dag_name, enqueued_at, item_id from ${this.t} where run_id = $1
        order by queue, item_id limit 1`,
      [runId],
    );
    return r.rowCount === 0 ? null : toItem(r.rows[0]);
  }
}

function toItem(row: QueueItem): QueueItem {
  return {
    queue: row.queue,
    run_id: row.run_id,
    dag_name: row.dag_name,
    enqueued_at: row.enqueued_at,
    item_id: row.item_id,
  };
}
