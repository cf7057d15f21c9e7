// Creating, migrating and checking the PostgreSQL schema. Migrations run under a session advisory lock (two
// hosts never migrate at once), each in its own transaction with its version row; every process checks the
// version at start (`checkSchema`) and refuses a database it cannot run against, naming both versions.

import { createHash } from 'node:crypto';
import type { ClientBase } from 'pg';
import { MIGRATIONS, type Migration } from './migrations';

/** Any 64-bit constant: the advisory lock that serialises migrations across hosts. */
const MIGRATION_LOCK = 7_406_215_938_001;

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export function checksumOf(m: Migration): string {
  return createHash('sha256').update(m.sql).digest('hex').slice(0, 16);
}

export interface AppliedMigration {
  version: number;
  checksum: string;
  breaking: boolean;
}

/** The migrations this build knows: the version it expects is the last one's. */
export const EXPECTED_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

/** Why a database cannot be used by this build, or null when it can (possibly after migrating). */
export function schemaProblem(
  applied: readonly AppliedMigration[],
  known: readonly Migration[] = MIGRATIONS,
): string | null {
  const byVersion = new Map(known.map((m) => [m.version, m]));
  for (const a of applied) {
    const m = byVersion.get(a.version);
    if (m && checksumOf(m) !== a.checksum) {
      return `migration ${a.version} (${m.name}) in the database differs from this build's (checksum ${a.checksum}, expected ${checksumOf(m)})`;
    }
  }
  const newest = known[known.length - 1].version;
  const breaking = applied.filter((a) => a.version > newest && a.breaking);
  if (breaking.length > 0) {
    const v = Math.max(...applied.map((a) => a.version));
    return `the database schema is at version ${v}, newer than this build's ${newest}, and version ${breaking[0].version} is breaking: upgrade dagu`;
  }
  return null;
}

/** The applied migrations, or [] when the schema has none yet. */
export async function readApplied(client: ClientBase, schema: string): Promise<AppliedMigration[]> {
  // From the catalog, which lists a table whatever this user's rights on it: a schema the user may not read
  // is not one to create again (that would fail on the tables that are there).
  const exists = await client.query<{ readable: boolean; user: string }>(
    `select has_schema_privilege(n.oid, 'USAGE') and has_table_privilege(c.oid, 'SELECT') as readable,
            current_user::text as user
       from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where n.nspname = $1 and c.relname = 'schema_migrations'`,
    [schema],
  );
  if (exists.rowCount === 0) return [];
  if (!exists.rows[0].readable) {
    throw new Error(
      `the database user ${JSON.stringify(exists.rows[0].user)} may not read the schema ${JSON.stringify(schema)}: grant it USAGE on the schema and SELECT, INSERT, UPDATE, DELETE on every table of it`,
    );
  }
  const r = await client
    .query<{ version: number; checksum: string; breaking: boolean }>(
      `select version, checksum, breaking from ${quoteIdent(schema)}.schema_migrations order by version`,
    )
    .catch((err: unknown) => {
      // 42703: no such column. Another tool's table of the same name (Rails and others keep one).
      if ((err as { code?: string }).code !== '42703') throw err;
      throw new Error(
        `the schema ${JSON.stringify(schema)} holds a table "schema_migrations" that is not dagu's: set storage.postgres.schema to a schema of dagu's own`,
        { cause: err },
      );
    });
  return r.rows.map((row) => ({
    version: Number(row.version),
    checksum: row.checksum,
    breaking: row.breaking,
  }));
}

/**
 * Refuses a schema that already holds a relation a pending migration would create: a schema of another
 * application (`public` of a shared database, say), where the first migrations would land beside its tables
 * and a later one fail on a name it uses. Checked before anything is created in the schema.
 */
async function refuseForeignTables(
  client: ClientBase,
  schema: string,
  known: readonly Migration[],
  applied: readonly AppliedMigration[],
): Promise<void> {
  const have = new Set(applied.map((a) => a.version));
  const creates = new Map<string, Migration>();
  for (const m of known) {
    if (have.has(m.version)) continue;
    for (const match of m.sql.matchAll(/create table \{schema\}\.([a-z_]+)/g)) creates.set(match[1], m);
  }
  if (creates.size === 0) return;
  const r = await client.query<{ name: string }>(
    `select c.relname::text as name
       from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where n.nspname = $1 and c.relname = any($2::text[])
      order by c.relname`,
    [schema, [...creates.keys()]],
  );
  if (r.rows.length === 0) return;
  const name = r.rows[0].name;
  const m = creates.get(name)!;
  const others = r.rows.length > 1 ? ` (and ${r.rows.length - 1} more)` : '';
  throw new Error(
    `the schema ${JSON.stringify(schema)} already holds ${JSON.stringify(name)}${others}, a table of another application where migration ${m.version} (${m.name}) would create dagu's: nothing was created; set storage.postgres.schema to a schema of dagu's own`,
  );
}

/**
 * Applies every pending migration under the advisory lock, each in its own transaction; answers the
 * versions applied now. Throws (applying nothing more) when the database is one this build cannot use.
 */
export async function applyMigrations(
  client: ClientBase,
  schema: string,
  opts: { by: string; known?: readonly Migration[]; lockTimeoutMs?: number },
): Promise<number[]> {
  const known = opts.known ?? MIGRATIONS;
  const s = quoteIdent(schema);
  await client.query(`set lock_timeout = ${Math.round(opts.lockTimeoutMs ?? 30_000)}`);
  await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
  try {
    await client.query(`create schema if not exists ${s}`);
    const applied = await readApplied(client, schema);
    const problem = schemaProblem(applied, known);
    if (problem !== null) throw new Error(problem);
    await refuseForeignTables(client, schema, known, applied);
    await client.query(`create table if not exists ${s}.schema_migrations (
      version integer primary key,
      name text not null,
      checksum text not null,
      breaking boolean not null,
      applied_at timestamptz not null default clock_timestamp(),
      applied_by text not null
    )`);
    const have = new Set(applied.map((a) => a.version));
    const done: number[] = [];
    for (const m of known) {
      if (have.has(m.version)) continue;
      await client.query('begin');
      try {
        await client.query(`set local lock_timeout = 5000`);
        await client.query(m.sql.replaceAll('{schema}', s));
        await client.query(
          `insert into ${s}.schema_migrations (version, name, checksum, breaking, applied_by) values ($1, $2, $3, $4, $5)`,
          [m.version, m.name, checksumOf(m), m.breaking, opts.by],
        );
        await client.query('commit');
      } catch (err) {
        await client.query('rollback').catch(() => undefined);
        throw new Error(`migration ${m.version} (${m.name}) failed: ${(err as Error).message}`, {
          cause: err,
        });
      }
      done.push(m.version);
    }
    return done;
  } finally {
    await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await client.query('reset lock_timeout').catch(() => undefined);
  }
}

/**
 * The start-up check of every process: null when the schema is at this build's version (or at a newer,
 * non-breaking one); otherwise the error to exit with.
 */
export async function checkSchema(
  client: ClientBase,
  schema: string,
  known: readonly Migration[] = MIGRATIONS,
): Promise<string | null> {
  const applied = await readApplied(client, schema);
  const problem = schemaProblem(applied, known);
  if (problem !== null) return problem;
  const newest = known[known.length - 1].version;
  const have = new Set(applied.map((a) => a.version));
  const missing = known.filter((m) => !have.has(m.version)).map((m) => m.version);
  if (missing.length > 0) {
    if (applied.length === 0) {
      return `the database has no schema ${JSON.stringify(schema)} of dagu yet; this build needs version ${newest}`;
    }
    const at = Math.max(...applied.map((a) => a.version));
    return `the database schema ${JSON.stringify(schema)} is at version ${at}; this build needs version ${newest}`;
  }
  return null;
}
