// The state store on PostgreSQL: one row per entry in `state_entries`. Every write is one statement, so a
// compare-and-set on the version is atomic without a transaction: an unconditional write is an upsert that
// adds one to the version, create-only an insert that does nothing on conflict, and an expected version an
// update whose WHERE names it. A statement that changes no row is the conflict.

import type { Pool } from 'pg';
import {
  hashStateValue,
  preparePut,
  StateConflictError,
  validateStateList,
  validateStateRef,
  type StateEntry,
  type StateListOptions,
  type StatePutOptions,
  type StateRef,
  type StateStore,
} from '../stateStore';
import { quoteIdent } from './schemaVersion';

interface Row {
  scope: StateEntry['scope'];
  namespace: string;
  key: string;
  value: string;
  version: string | number;
  hash: string;
  created_at: string;
  updated_at: string;
  updated_by: StateEntry['updated_by'];
}

const COLUMNS = 'scope, namespace, key, value, version, hash, created_at, updated_at, updated_by';

export class PgStateStore implements StateStore {
  private readonly t: string;

  constructor(
    private readonly pool: Pool,
    schema: string,
  ) {
    this.t = `${quoteIdent(schema)}.state_entries`;
  }

  async get(ref: StateRef): Promise<StateEntry | null> {
    validateStateRef(ref);
    const r = await this.pool.query<Row>(
      `select ${COLUMNS} from ${this.t} where scope = $1 and namespace = $2 and key = $3`,
      [ref.scope, ref.namespace, ref.key],
    );
    return r.rows.length === 0 ? null : toEntry(r.rows[0]);
  }

  async put(ref: StateRef, value: string, opts: StatePutOptions = {}): Promise<StateEntry> {
    const normalized = preparePut(ref, value, opts);
    const now = new Date().toISOString();
    const by = opts.updatedBy ? JSON.stringify(opts.updatedBy) : null;
    const hash = hashStateValue(normalized);
    const expected = opts.expectedVersion;
    const params = [ref.scope, ref.namespace, ref.key, normalized, hash, now, by];
    let rows: Row[];
    if (opts.createOnly && expected !== undefined && expected !== 0) {
      rows = []; // it must not exist and must be at a version: never both
    } else if (opts.createOnly || expected === 0) {
      const r = await this.pool.query<Row>(
        `insert into ${this.t} (${COLUMNS}) values ($1, $2, $3, $4, 1, $5, $6, $6, $7)
         on conflict (scope, namespace, key) do nothing returning ${COLUMNS}`,
        params,
      );
      rows = r.rows;
    } else if (expected !== undefined) {
      const r = await this.pool.query<Row>(
        `update ${this.t} set value = $4, version = version + 1, hash = $5, updated_at = $6, updated_by = $7
         where scope = $1 and namespace = $2 and key = $3 and version = $8 returning ${COLUMNS}`,
        [...params, expected],
      );
      rows = r.rows;
    } else {
      const r = await this.pool.query<Row>(
        `insert into ${this.t} as s (${COLUMNS}) values ($1, $2, $3, $4, 1, $5, $6, $6, $7)
         on conflict (scope, namespace, key) do update set value = excluded.value, version = s.version + 1,
           hash = excluded.hash, updated_at = excluded.updated_at, updated_by = excluded.updated_by
         returning ${COLUMNS}`,
        params,
      );
      rows = r.rows;
    }
    if (rows.length > 0) return toEntry(rows[0]);
    // No row changed: the expectation failed; the version now is read only for the message.
    const current = await this.get(ref);
    throw new StateConflictError(
      ref,
      opts.createOnly && (expected === undefined || expected === 0) ? 'absent' : (expected ?? 'absent'),
      current?.version ?? null,
    );
  }

  async delete(ref: StateRef): Promise<boolean> {
    validateStateRef(ref);
    const r = await this.pool.query(
      `delete from ${this.t} where scope = $1 and namespace = $2 and key = $3`,
      [ref.scope, ref.namespace, ref.key],
    );
    return (r.rowCount ?? 0) > 0;
  }

  async list(opts: StateListOptions): Promise<StateEntry[]> {
    validateStateList(opts);
    const r = await this.pool.query<Row>(
      `select ${COLUMNS} from ${this.t}
       where scope = $1 and namespace = $2 and left(key, char_length($3)) = $3
       order by key ${opts.limit > 0 ? 'limit $4' : ''}`,
      opts.limit > 0
        ? [opts.scope, opts.namespace, opts.keyPrefix, opts.limit]
        : [opts.scope, opts.namespace, opts.keyPrefix],
    );
    return r.rows.map(toEntry);
  }
}

function toEntry(row: Row): StateEntry {
  return {
    scope: row.scope,
    namespace: row.namespace,
    key: row.key,
    value: row.value,
    version: Number(row.version),
    hash: row.hash,
    created_at: row.created_at,
    updated_at: row.updated_at,
    updated_by: row.updated_by ?? null,
  };
}
