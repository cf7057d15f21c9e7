// DAG definitions in PostgreSQL: one row per DAG, the expected-version check done by the database in the
// write's own statement (so two editors on two hosts that loaded the same version cannot both save), and in
// the same transaction a bump of dag_revision and a `dagu_dags` wake-up, which every host's mirror follows.

import type { Pool, PoolClient } from 'pg';
import { assertDagName } from '../../core/names';
import {
  assertDagWrite,
  newDagFileName,
  refuseWrite,
  type DagDefinition,
  type DagDefinitions,
  type DagEntry,
  type DagWriteOptions,
  type DeleteDagResult,
  type PutDagResult,
  type RenameDagResult,
} from '../dagDefinitions';
import { dagVersion } from '../dagFiles';
import { notify } from './pgWakeups';
import { quoteIdent } from './schemaVersion';
import { inTransaction } from './transaction';

interface Row {
  name: string;
  yaml?: string;
  version: string;
  file_name: string;
  updated_at: Date;
  updated_by: string;
}

const ENTRY_COLUMNS = 'name, version, file_name, updated_at, updated_by';
const UNIQUE_VIOLATION = '23505';

/** Who wrote, when the writer did not say. */
const UNKNOWN_WRITER = 'dagu';

export class PgDagDefinitions implements DagDefinitions {
  private readonly t: string;
  private readonly rev: string;

  /**
   * `openedAt`: the revision read when the process opened the database (OpeningReads), the answer of the
   * first revision() instead of a query of its own. The process brings its mirror in step right after
   * opening, so that first read is the mirror's: one made a moment earlier, which a write since has moved
   * past (the next read sees it), as if the mirror had been brought in step at the opening.
   */
  constructor(
    private readonly pool: Pool,
    schema: string,
    private openedAt: string | null = null,
  ) {
    this.t = `${quoteIdent(schema)}.dags`;
    this.rev = `${quoteIdent(schema)}.dag_revision`;
  }

  async list(): Promise<DagEntry[]> {
    const r = await this.pool.query<Row>(`select ${ENTRY_COLUMNS} from ${this.t} order by name`);
    return r.rows.map(toEntry);
  }

  async get(name: string): Promise<DagDefinition | null> {
    assertDagName(name);
    const r = await this.pool.query<Row>(`select ${ENTRY_COLUMNS}, yaml from ${this.t} where name = $1`, [
      name,
    ]);
    return r.rowCount === 0 ? null : toDefinition(r.rows[0]);
  }

  async getMany(names: readonly string[]): Promise<DagDefinition[]> {
    for (const n of names) assertDagName(n);
    if (names.length === 0) return [];
    const r = await this.pool.query<Row>(
      `select ${ENTRY_COLUMNS}, yaml from ${this.t} where name = any($1::text[]) order by name`,
      [[...names]],
    );
    return r.rows.map(toDefinition);
  }

  async revision(): Promise<string> {
    const opened = this.openedAt;
    this.openedAt = null;
    if (opened !== null) return opened;
    const r = await this.pool.query<{ revision: string }>(`select revision from ${this.rev} where id = 1`);
    return String(r.rows[0].revision);
  }

  async put(name: string, yaml: string, opts: DagWriteOptions = {}): Promise<PutDagResult> {
    assertDagWrite(name, yaml);
    const version = dagVersion(yaml);
    const by = opts.by ?? UNKNOWN_WRITER;
    return inTransaction(this.pool, async (c) => {
      const expected = opts.expectedVersion;
      if (expected === null || expected === undefined) {
        // Insert, or (without a condition) update a row whose text differs. ON CONFLICT takes the row lock,
        // so of two concurrent creates one inserts and the other sees the row.
        const r = await c.query<{ inserted: boolean }>(
          `insert into ${this.t} as d (name, yaml, version, file_name, updated_by)
           values ($1, $2, $3, $4, $5)
           on conflict (name) do ${
             expected === null
               ? 'nothing'
               : `update set yaml = excluded.yaml, version = excluded.version,
                    updated_at = clock_timestamp(), updated_by = excluded.updated_by
                  where d.version <> excluded.version`
           }
           returning (xmax = 0) as inserted`,
          [name, yaml, version, newDagFileName(name, opts.fileName), by],
        );
        if (r.rowCount === 0) {
          return expected === null
            ? { ok: false, reason: 'taken' }
            : { ok: true, outcome: 'unchanged', version };
        }
        await this.changed(c, name);
        return { ok: true, outcome: r.rows[0].inserted ? 'created' : 'updated', version };
      }
      if (version === expected) {
        const current = await this.current(c, name);
        return refuseWrite(current, expected) ?? { ok: true, outcome: 'unchanged', version };
      }
      const r = await c.query(
        `update ${this.t} set yaml = $2, version = $3, updated_at = clock_timestamp(), updated_by = $4
         where name = $1 and version = $5`,
        [name, yaml, version, by, expected],
      );
      if (r.rowCount === 0) {
        return refuseWrite(await this.current(c, name), expected) ?? { ok: false, reason: 'missing' };
      }
      await this.changed(c, name);
      return { ok: true, outcome: 'updated', version };
    });
  }

  async rename(name: string, newName: string, opts: DagWriteOptions = {}): Promise<RenameDagResult> {
    assertDagName(name);
    assertDagName(newName);
    try {
      return await inTransaction(this.pool, async (c): Promise<RenameDagResult> => {
        const current = await this.current(c, name, true);
        if (!current) return { ok: false, reason: 'missing' };
        const refusal = refuseWrite(current, opts.expectedVersion);
        if (refusal) return refusal;
        const fileName = newName + current.fileName.slice(name.length);
        // A concurrent insert of newName makes this fail with a unique violation: `taken`, below.
        await c.query(
          `update ${this.t} set name = $2, file_name = $3, updated_at = clock_timestamp(), updated_by = $4
           where name = $1`,
          [name, newName, fileName, opts.by ?? UNKNOWN_WRITER],
        );
        await this.changed(c, name);
        return { ok: true, fileName };
      });
    } catch (err) {
      if ((err as { code?: string }).code === UNIQUE_VIOLATION) return { ok: false, reason: 'taken' };
      throw err;
    }
  }

  async delete(name: string, opts: DagWriteOptions = {}): Promise<DeleteDagResult> {
    assertDagName(name);
    return inTransaction(this.pool, async (c): Promise<DeleteDagResult> => {
      const current = await this.current(c, name, true);
      if (!current) return { ok: false, reason: 'missing' };
      const refusal = refuseWrite(current, opts.expectedVersion);
      if (refusal) return refusal;
      await c.query(`delete from ${this.t} where name = $1`, [name]);
      await this.changed(c, name);
      return { ok: true };
    });
  }

  /** The row as it is now; `lock`: held until the transaction ends, so the check and the write agree. */
  private async current(c: PoolClient, name: string, lock = false): Promise<DagDefinition | null> {
    const r = await c.query<Row>(
      `select ${ENTRY_COLUMNS}, yaml from ${this.t} where name = $1${lock ? ' for update' : ''}`,
      [name],
    );
    return r.rowCount === 0 ? null : toDefinition(r.rows[0]);
  }

  /** Every write's last statements: the revision the mirrors poll, and their wake-up (sent at commit). */
  private async changed(c: PoolClient, name: string): Promise<void> {
    await c.query(`update ${this.rev} set revision = revision + 1 where id = 1`);
    await notify(c, 'dagu_dags', name);
  }
}

function toEntry(row: Row): DagEntry {
  return {
    name: row.name,
    version: row.version,
    fileName: row.file_name,
    updatedAt: row.updated_at.toISOString(),
    updatedBy: row.updated_by,
  };
}

function toDefinition(row: Row): DagDefinition {
  return { ...toEntry(row), yaml: row.yaml ?? '' };
}
