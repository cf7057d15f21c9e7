// The state store's entries (what `state.*` steps keep across runs), from `<data>/state` into
// `state_entries`, each as it is: its value, version, hash, times and last writer, so that a compare-and-set
// a DAG makes after the move expects the same version it would have on the files. Keyed by scope, namespace
// and key; compared by everything but the value's text, which the hash stands for.

import type { Pool } from 'pg';
import { quoteIdent } from '../postgres/schemaVersion';
import { inTransaction } from '../postgres/transaction';
import { STATE_SCOPES, type StateEntry } from '../stateStore';
import { describeFields, differingFields } from './canonicalJson';
import type { FileSource } from './fileSource';
import { sortedByKey, type KindAdapter, type SourceItem } from './syncKind';

/** An entry as compared: the database side is read without its value. */
export type StateRecord = Omit<StateEntry, 'value'> & { value?: string };

/** The record's key in the walk and in the report: scope, namespace and key, unambiguous whatever they hold. */
export function stateKey(e: Pick<StateEntry, 'scope' | 'namespace' | 'key'>): string {
  return JSON.stringify([e.scope, e.namespace, e.key]);
}

export function stateRecords(files: FileSource, pool: Pool, schema: string): KindAdapter<StateRecord> {
  const t = `${quoteIdent(schema)}.state_entries`;
  return {
    kind: 'DAG state',
    batch: 200,
    source: async function* (): AsyncGenerator<SourceItem<StateRecord>> {
      const items: SourceItem<StateRecord>[] = [];
      for (const scope of STATE_SCOPES) {
        for (const namespace of await files.state.namespaces(scope)) {
          try {
            const entries = await files.state.list({ scope, namespace, keyPrefix: '', limit: 0 });
            for (const value of entries) items.push({ key: stateKey(value), value });
          } catch (err) {
            // A directory that names no valid namespace (made by hand): reported, not read.
            items.push({ key: stateKey({ scope, namespace, key: '' }), skipped: (err as Error).message });
          }
        }
      }
      yield* sortedByKey(items);
    },
    target: async function* () {
      const r = await pool.query<StateRecord & { version: string }>(
        `select scope, namespace, key, version, hash, created_at, updated_at, updated_by from ${t}`,
      );
      yield* sortedByKey(
        r.rows.map((row) => ({ key: stateKey(row), value: { ...row, version: Number(row.version) } })),
      );
    },
    differences: (a, b) => {
      const { value: _a, ...inFiles } = a;
      const { value: _b, ...inDatabase } = b;
      const fields = differingFields(inFiles, inDatabase);
      return fields.length === 0 ? [] : [describeFields(fields)];
    },
    write: (entries) =>
      inTransaction(pool, async (c) => {
        let n = 0;
        for (const e of entries) {
          const r = await c.query(
            `insert into ${t} (scope, namespace, key, value, version, hash, created_at, updated_at, updated_by)
             values ($1, $2, $3, $4, $5, $6, $7, $8, $9) on conflict do nothing`,
            [
              e.scope,
              e.namespace,
              e.key,
              e.value,
              e.version,
              e.hash,
              e.created_at,
              e.updated_at,
              e.updated_by === null ? null : JSON.stringify(e.updated_by),
            ],
          );
          n += r.rowCount ?? 0;
        }
        return n;
      }),
  };
}
