// Dispatch tasks, pending and claimed, keyed by their task IDs (which carry the enqueue time, so the FIFO
// order of the file store is the order of the table). A claim keeps its worker, token and time, so a
// worker that acknowledges after the move finds its claim. A claim file its claimer never finished (no
// claim fields yet) is copied as pending: the file store would give it back after the TTL all the same. A
// task of a run the copy skips (its status is unreadable) is skipped with it and reported.

import type { Pool, PoolClient } from 'pg';
import type { DispatchTask } from '../dispatchTypes';
import { TASK_COLUMNS, toTask, type TaskRow } from '../postgres/pgDispatchStore';
import { quoteIdent } from '../postgres/schemaVersion';
import { inTransaction } from '../postgres/transaction';
import { describeFields, differingFields } from './canonicalJson';
import type { FileSource } from './fileSource';
import type { SkippedRunVerdict } from './runRecords';
import { sortedByKey, type KindAdapter, type SourceItem } from './syncKind';

export function taskRecords(
  files: FileSource,
  pool: Pool,
  schema: string,
  skippedRunOf: SkippedRunVerdict,
): KindAdapter<DispatchTask> {
  const s = quoteIdent(schema);
  const keyed = (tasks: DispatchTask[]) => tasks.map((value) => ({ key: value.task_id, value }));
  return {
    kind: 'dispatch tasks',
    batch: 500,
    source: async function* () {
      // A task both pending and claimed (a claim given back while this read ran) counts once, as the claim.
      const byId = new Map<string, DispatchTask>();
      for (const t of await files.tasks.listPending()) byId.set(t.task_id, t);
      for (const t of await files.tasks.listClaims()) byId.set(t.task_id, t);
      const items: SourceItem<DispatchTask>[] = [];
      for (const value of byId.values()) {
        // A task of a run the copy skips goes with it: a worker given it would start a run that is not there.
        const skipped = await skippedRunOf(value.run_id);
        items.push(
          skipped === null ? { key: value.task_id, value } : { key: value.task_id, skipped, withRun: true },
        );
      }
      yield* sortedByKey(items);
    },
    target: async function* () {
      const r = await pool.query<TaskRow>(`select ${TASK_COLUMNS} from ${s}.dispatch_tasks`);
      yield* sortedByKey(keyed(r.rows.map(toTask)));
    },
    differences: (a, b) => {
      const fields = differingFields(a, b);
      return fields.length === 0 ? [] : [describeFields(fields)];
    },
    write: (tasks) => inTransaction(pool, (c) => insertTasks(c, s, tasks)),
  };
}

async function insertTasks(c: PoolClient, s: string, tasks: DispatchTask[]): Promise<number> {
  let n = 0;
  for (const t of tasks) {
    const r = await c.query(
      `insert into ${s}.dispatch_tasks
         (task_id, run_id, state, selector, enqueued_at_ms, hold_until_ms, claim_worker, claim_token, claimed_at_ms, doc)
       values ($1, $2, $3, $4::jsonb, $5, $6, $7, $8, $9, $10::json) on conflict (task_id) do nothing`,
      [
        t.task_id,
        t.run_id,
        t.claim === null ? 'pending' : 'claimed',
        JSON.stringify(t.worker_selector ?? {}),
        t.enqueued_at_ms,
        t.hold_until_ms,
        t.claim?.worker_id ?? null,
        t.claim?.token ?? null,
        t.claim?.claimed_at_ms ?? null,
        JSON.stringify(t),
      ],
    );
    n += r.rowCount ?? 0;
  }
  return n;
}
