// The small control-plane records on PostgreSQL, each with the validation and order of its file store:
// worker and coordinator heartbeats (one row each, replaced at every beat), cancel requests for runs on
// workers, and the DAGs whose schedule is suspended.

import type { Pool } from 'pg';
import { assertDagName, assertRunId } from '../../core/names';
import { assertWorkerId } from '../../core/workerId';
import { assertCoordinatorId } from '../distributedDir';
import type {
  CancelRequests,
  CoordinatorRecord,
  CoordinatorRegistry,
  WorkerRecord,
  WorkerRegistry,
} from '../dispatchTypes';
import type { SuspendFlags, SuspendRecord } from '../suspendFlags';
import { quoteIdent } from './schemaVersion';

export class PgWorkerRegistry implements WorkerRegistry {
  private readonly t: string;

  constructor(
    private readonly pool: Pool,
    schema: string,
  ) {
    this.t = `${quoteIdent(schema)}.workers`;
  }

  async put(record: WorkerRecord): Promise<void> {
    assertWorkerId(record.worker_id);
    await this.pool.query(
      `insert into ${this.t} (worker_id, doc) values ($1, $2::json)
       on conflict (worker_id) do update set doc = excluded.doc`,
      [record.worker_id, JSON.stringify(record)],
    );
  }

  async get(workerId: string): Promise<WorkerRecord | null> {
    assertWorkerId(workerId);
    const r = await this.pool.query<{ doc: WorkerRecord }>(`select doc from ${this.t} where worker_id = $1`, [
      workerId,
    ]);
    return r.rowCount === 0 ? null : r.rows[0].doc;
  }

  async list(): Promise<WorkerRecord[]> {
    const r = await this.pool.query<{ doc: WorkerRecord }>(`select doc from ${this.t} order by worker_id`);
    return r.rows.map((row) => row.doc);
  }

  async remove(workerId: string): Promise<void> {
    assertWorkerId(workerId);
    await this.pool.query(`delete from ${this.t} where worker_id = $1`, [workerId]);
  }
}

export class PgCoordinatorRegistry implements CoordinatorRegistry {
  private readonly t: string;

  constructor(
    private readonly pool: Pool,
    schema: string,
  ) {
    this.t = `${quoteIdent(schema)}.coordinators`;
  }

  async put(record: CoordinatorRecord): Promise<void> {
    assertCoordinatorId(record.coordinator_id);
    await this.pool.query(
      `insert into ${this.t} (coordinator_id, doc) values ($1, $2::json)
       on conflict (coordinator_id) do update set doc = excluded.doc`,
      [record.coordinator_id, JSON.stringify(record)],
    );
  }

  async list(): Promise<CoordinatorRecord[]> {
    const r = await this.pool.query<{ doc: CoordinatorRecord }>(
      `select doc from ${this.t} order by coordinator_id`,
    );
    return r.rows.map((row) => row.doc);
  }
}

export class PgCancelRequests implements CancelRequests {
  private readonly t: string;

  constructor(
    private readonly pool: Pool,
    schema: string,
  ) {
    this.t = `${quoteIdent(schema)}.cancel_requests`;
  }

  /** Records the request; asking again keeps the first request. */
  async request(runId: string, nowMs: number): Promise<void> {
    assertRunId(runId);
    await this.pool.query(
      `insert into ${this.t} (run_id, requested_at_ms) values ($1, $2) on conflict (run_id) do nothing`,
      [runId, nowMs],
    );
  }

  async has(runId: string): Promise<boolean> {
    assertRunId(runId);
    const r = await this.pool.query(`select 1 from ${this.t} where run_id = $1`, [runId]);
    return (r.rowCount ?? 0) > 0;
  }

  async list(): Promise<string[]> {
    const r = await this.pool.query<{ run_id: string }>(`select run_id from ${this.t} order by run_id`);
    return r.rows.map((row) => row.run_id);
  }

  async clear(runId: string): Promise<void> {
    assertRunId(runId);
    await this.pool.query(`delete from ${this.t} where run_id = $1`, [runId]);
  }
}

export class PgSuspendFlags implements SuspendFlags {
  private readonly t: string;

  constructor(
    private readonly pool: Pool,
    schema: string,
  ) {
    this.t = `${quoteIdent(schema)}.suspend_flags`;
  }

  async names(): Promise<Set<string>> {
    const r = await this.pool.query<{ dag: string }>(`select dag from ${this.t}`);
    return new Set(r.rows.map((row) => row.dag));
  }

  async list(): Promise<Map<string, SuspendRecord>> {
    const r = await this.pool.query<Row>(`select dag, suspended_at, by_whom from ${this.t} order by dag`);
    return new Map(r.rows.map((row) => [row.dag, toRecord(row)]));
  }

  async get(dag: string): Promise<SuspendRecord | null> {
    assertDagName(dag);
    const r = await this.pool.query<Row>(`select dag, suspended_at, by_whom from ${this.t} where dag = $1`, [
      dag,
    ]);
    return r.rowCount === 0 ? null : toRecord(r.rows[0]);
  }

  async suspend(record: SuspendRecord & { suspended_at: string }): Promise<boolean> {
    assertDagName(record.dag);
    const r = await this.pool.query(
      `insert into ${this.t} (dag, suspended_at, by_whom) values ($1, $2, $3) on conflict (dag) do nothing`,
      [record.dag, record.suspended_at, record.by],
    );
    return (r.rowCount ?? 0) > 0;
  }

  async resume(dag: string): Promise<boolean> {
    assertDagName(dag);
    const r = await this.pool.query(`delete from ${this.t} where dag = $1`, [dag]);
    return (r.rowCount ?? 0) > 0;
  }
}

interface Row {
  dag: string;
  suspended_at: string | null;
  by_whom: string | null;
}

function toRecord(row: Row): SuspendRecord {
  return { dag: row.dag, suspended_at: row.suspended_at, by: row.by_whom };
}
