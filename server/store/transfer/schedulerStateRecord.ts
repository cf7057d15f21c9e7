// The scheduler's tick state (data/scheduler/tick-state.json: the last completed tick and the last slot
// handled per DAG) into the `scheduler_state` row. Without it the first scheduler on the database would know
// of no slot handled on the files, and a DAG with a catch-up window would run its recent slots again, under
// run IDs of the database's own slot namespace that the files' runs do not take. With it, that scheduler
// replays only the slots missed since the files' scheduler stopped. The row is inserted, never overwritten.

import type { Pool } from 'pg';
import { quoteIdent } from '../postgres/schemaVersion';
import { describeFields, differingFields } from './canonicalJson';
import type { FileSource } from './fileSource';
import type { KindAdapter } from './syncKind';

/** The one record of this kind. */
const KEY = 'tick state';

export function schedulerStateRecord(files: FileSource, pool: Pool, schema: string): KindAdapter<object> {
  const t = `${quoteIdent(schema)}.scheduler_state`;
  return {
    kind: 'scheduler state',
    batch: 1,
    source: async function* () {
      if (files.tickState === null) return;
      yield { key: KEY, value: (await files.tickState()) as object };
    },
    target: async function* () {
      const r = await pool.query<{ state: object }>(`select state from ${t} where id = 1`);
      if (r.rowCount === 1) yield { key: KEY, value: r.rows[0].state };
    },
    differences: (a, b) => {
      const fields = differingFields(a, b);
      return fields.length === 0 ? [] : [describeFields(fields)];
    },
    write: async ([state]) => {
      const r = await pool.query(
        `insert into ${t} (id, state) values (1, $1::json) on conflict (id) do nothing`,
        [JSON.stringify(state)],
      );
      return r.rowCount ?? 0;
    },
  };
}
