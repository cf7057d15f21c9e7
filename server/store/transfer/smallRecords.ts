// The kinds of records that are few and small (active-run marks, queue items, suspend flags, worker and
// coordinator records, cancel requests): each side is read whole, and each record is one row keyed by the
// same name as its file. Queue items keep their item IDs, which is what keeps each queue's order. An
// active-run mark, a queue item or a cancel request of a run the copy skips (its status is unreadable) is
// skipped with it and reported: in the database it would point at no run.

import type { Pool, PoolClient } from 'pg';
import type { CoordinatorRecord, WorkerRecord } from '../dispatchTypes';
import { quoteIdent } from '../postgres/schemaVersion';
import { inTransaction } from '../postgres/transaction';
import type { SuspendRecord } from '../suspendFlags';
import type { QueueItem } from '../types';
import { describeFields, differingFields } from './canonicalJson';
import type { FileSource } from './fileSource';
import type { SkippedRunVerdict } from './runRecords';
import { sortedByKey, type KindAdapter, type SourceItem } from './syncKind';
import type { Kind } from './transferReport';

/** An adapter over two whole lists of plain records compared field by field. */
function wholeTable<T extends object>(opts: {
  kind: Kind;
  pool: Pool;
  key: (t: T) => string;
  fromFiles: () => Promise<T[]>;
  fromDatabase: () => Promise<T[]>;
  insertOne: (c: PoolClient, t: T) => Promise<number>;
  /** Why a record of the files goes with a run the copy skips; null to take it. */
  skippedRun?: (t: T) => Promise<string | null>;
}): KindAdapter<T> {
  const keyed = (items: T[]) => items.map((value) => ({ key: opts.key(value), value }));
  return {
    kind: opts.kind,
    batch: 500,
    source: async function* () {
      const items: SourceItem<T>[] = [];
      for (const value of await opts.fromFiles()) {
        const key = opts.key(value);
        const skipped = opts.skippedRun ? await opts.skippedRun(value) : null;
        items.push(skipped === null ? { key, value } : { key, skipped, withRun: true });
      }
      yield* sortedByKey(items);
    },
    target: async function* () {
      yield* sortedByKey(keyed(await opts.fromDatabase()));
    },
    differences: (a, b) => {
      const fields = differingFields(a, b);
      return fields.length === 0 ? [] : [describeFields(fields)];
    },
    write: (items) =>
      inTransaction(opts.pool, async (c) => {
        let n = 0;
        for (const item of items) n += await opts.insertOne(c, item);
        return n;
      }),
  };
}

type ActiveRun = { run_id: string; dag_name: string; queue: string };

export function smallRecords(
  files: FileSource,
  pool: Pool,
  schema: string,
  skippedRunOf: SkippedRunVerdict,
): KindAdapter<object>[] {
  const s = quoteIdent(schema);
  const rows = async <R extends object>(sql: string) => (await pool.query<R>(sql)).rows;
  const insert = async (c: PoolClient, sql: string, values: unknown[]) =>
    (await c.query(sql, values)).rowCount ?? 0;
  // The runs adapter's verdict, read again.
  const skippedRun = (r: { run_id: string }) => skippedRunOf(r.run_id);

  const active = wholeTable<ActiveRun>({
    pool,
    kind: 'active runs',
    key: (r) => r.run_id,
    fromFiles: () => files.activeRuns.listActive(),
    fromDatabase: () => rows(`select run_id, dag_name, queue from ${s}.active_runs`),
    skippedRun,
    insertOne: (c, r) =>
      insert(
        c,
        `insert into ${s}.active_runs (run_id, dag_name, queue) values ($1, $2, $3) on conflict do nothing`,
        [r.run_id, r.dag_name, r.queue],
      ),
  });

  const queueItems = wholeTable<QueueItem>({
    pool,
    kind: 'queue items',
    key: (q) => q.item_id,
    fromFiles: async () => {
      const items: QueueItem[] = [];
      for (const queue of await files.queues.queues()) items.push(...(await files.queues.list(queue)));
      return items;
    },
    fromDatabase: () => rows(`select item_id, queue, run_id, dag_name, enqueued_at from ${s}.queue_items`),
    skippedRun,
    insertOne: (c, q) =>
      insert(
        c,
        `insert into ${s}.queue_items (item_id, queue, run_id, dag_name, enqueued_at)
         values ($1, $2, $3, $4, $5) on conflict do nothing`,
        [q.item_id, q.queue, q.run_id, q.dag_name, q.enqueued_at],
      ),
  });

  const suspendFlags = wholeTable<SuspendRecord>({
    pool,
    kind: 'suspend flags',
    key: (f) => f.dag,
    fromFiles: async () => [...(await files.suspendFlags.list()).values()],
    fromDatabase: async () =>
      (
        await rows<{ dag: string; suspended_at: string | null; by_whom: string | null }>(
          `select dag, suspended_at, by_whom from ${s}.suspend_flags`,
        )
      ).map((r) => ({ dag: r.dag, suspended_at: r.suspended_at, by: r.by_whom })),
    insertOne: (c, f) =>
      insert(
        c,
        `insert into ${s}.suspend_flags (dag, suspended_at, by_whom) values ($1, $2, $3) on conflict do nothing`,
        [f.dag, f.suspended_at, f.by],
      ),
  });

  const workers = wholeTable<WorkerRecord>({
    pool,
    kind: 'workers',
    key: (w) => w.worker_id,
    fromFiles: () => files.workers.list(),
    fromDatabase: async () =>
      (await rows<{ doc: WorkerRecord }>(`select doc from ${s}.workers`)).map((r) => r.doc),
    insertOne: (c, w) =>
      insert(c, `insert into ${s}.workers (worker_id, doc) values ($1, $2::json) on conflict do nothing`, [
        w.worker_id,
        JSON.stringify(w),
      ]),
  });

  const coordinators = wholeTable<CoordinatorRecord>({
    pool,
    kind: 'coordinators',
    key: (k) => k.coordinator_id,
    fromFiles: () => files.coordinators.list(),
    fromDatabase: async () =>
      (await rows<{ doc: CoordinatorRecord }>(`select doc from ${s}.coordinators`)).map((r) => r.doc),
    insertOne: (c, k) =>
      insert(
        c,
        `insert into ${s}.coordinators (coordinator_id, doc) values ($1, $2::json) on conflict do nothing`,
        [k.coordinator_id, JSON.stringify(k)],
      ),
  });

  const cancels = wholeTable<{ run_id: string; requested_at_ms: number }>({
    pool,
    kind: 'cancel requests',
    key: (r) => r.run_id,
    fromFiles: () => files.cancels.requests(),
    skippedRun,
    fromDatabase: async () =>
      (
        await rows<{ run_id: string; requested_at_ms: string }>(
          `select run_id, requested_at_ms from ${s}.cancel_requests`,
        )
      ).map((r) => ({ run_id: r.run_id, requested_at_ms: Number(r.requested_at_ms) })),
    insertOne: (c, r) =>
      insert(
        c,
        `insert into ${s}.cancel_requests (run_id, requested_at_ms) values ($1, $2) on conflict do nothing`,
        [r.run_id, r.requested_at_ms],
      ),
  });

  return [active, queueItems, suspendFlags, workers, coordinators, cancels] as KindAdapter<object>[];
}
