// What data/scheduler/ holds on files, on PostgreSQL: the instance registry (one row per scheduler instance,
// rewritten at every publish), the scheduler's tick state (one JSON document, written only by the active
// instance and so behind the fence) and the installation ID that names this database's slot runs.

import type { Pool } from 'pg';
import { isInstanceId, type InstanceRecord, type InstanceStore } from '../instanceRegistry';
import { quoteIdent } from './schemaVersion';
import { poolWriter, type PgWriter } from './writer';

export class PgInstanceRegistry implements InstanceStore {
  private readonly t: string;

  constructor(
    private readonly pool: Pool,
    schema: string,
  ) {
    this.t = `${quoteIdent(schema)}.scheduler_instances`;
  }

  async publish(record: InstanceRecord): Promise<void> {
    if (!isInstanceId(record.id)) throw new Error(`invalid instance id ${JSON.stringify(record.id)}`);
    await this.pool.query(
      `insert into ${this.t} (instance_id, doc) values ($1, $2::json)
       on conflict (instance_id) do update set doc = excluded.doc`,
      [record.id, JSON.stringify(record)],
    );
  }

  async remove(id: string): Promise<void> {
    await this.pool.query(`delete from ${this.t} where instance_id = $1`, [id]);
  }

  async list(): Promise<InstanceRecord[]> {
    const r = await this.pool.query<{ doc: InstanceRecord }>(
      `select doc from ${this.t} order by instance_id`,
    );
    return r.rows.map((row) => row.doc).filter((d) => d.version === 1);
  }

  async prune(nowMs: number, olderThanMs: number): Promise<string[]> {
    const gone: string[] = [];
    for (const r of await this.list()) {
      if (nowMs - Date.parse(r.updated_at) > olderThanMs) {
        await this.remove(r.id);
        gone.push(r.id);
      }
    }
    return gone;
  }
}

/** One JSON document in a one-row table: the scheduler's tick state. */
export class PgSchedulerStateCell {
  private readonly t: string;
  private readonly w: PgWriter;

  /** `writer`: the active scheduler's fenced writer, so a deposed instance cannot move the state on. */
  constructor(
    private readonly pool: Pool,
    schema: string,
    writer: PgWriter = poolWriter(pool),
  ) {
    this.t = `${quoteIdent(schema)}.scheduler_state`;
    this.w = writer;
  }

  /** The document, or null before the first write. */
  async read(): Promise<unknown> {
    const r = await this.pool.query<{ state: unknown }>(`select state from ${this.t} where id = 1`);
    return r.rowCount === 0 ? null : r.rows[0].state;
  }

  async write(value: unknown): Promise<void> {
    await this.w.query(
      `insert into ${this.t} (id, state) values (1, $1::json)
       on conflict (id) do update set state = excluded.state`,
      [JSON.stringify(value)],
    );
  }
}

/** The database's installation ID (made by migration 8), which names its slots in their run IDs. */
export async function readInstallationId(pool: Pool, schema: string): Promise<string> {
  const r = await pool.query<{ installation_id: string }>(
    `select installation_id from ${quoteIdent(schema)}.installation where id = 1`,
  );
  if (r.rowCount === 0) throw new Error(`the schema ${JSON.stringify(schema)} has no installation row`);
  return r.rows[0].installation_id;
}
