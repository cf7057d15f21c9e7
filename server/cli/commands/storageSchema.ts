// `dagu storage schema [--apply]`: the schema version of the PostgreSQL database of storage.postgres.* and
// this build's, and with --apply the pending migrations applied (under the migration lock, each in its own
// transaction): what an operator runs when storage.postgres.auto_migrate is false. Exit 0: the database is
// at this build's version (or a newer one this build can use); 1: migrations are pending, or the database is
// one this build cannot use; 2: bad configuration or no connection.

import { hostname } from 'node:os';
import type pg from 'pg';
import { MIGRATIONS } from '../../store/postgres/migrations';
import {
  PgClient,
  connectFailure,
  StorageConfigError,
  pgErrorText,
  pgSettings,
  tablesProblem,
  type PgSettings,
} from '../../store/postgres/connect';
import {
  EXPECTED_VERSION,
  applyMigrations,
  quoteIdent,
  readApplied,
  schemaProblem,
} from '../../store/postgres/schemaVersion';
import { cliContext, type GlobalOptions } from '../context';
import { EXIT_OK, EXIT_RUN_FAILED, EXIT_USAGE } from '../exit';

export interface StorageSchemaOptions extends GlobalOptions {
  apply?: boolean;
}

const say = (line: string) => process.stdout.write(`${line}\n`);
const warn = (line: string) => process.stderr.write(`dagu storage schema: ${line}\n`);

export async function storageSchemaCommand(opts: StorageSchemaOptions): Promise<number> {
  const { config } = cliContext(opts, { component: 'cli' });
  if (config.storage.postgres.url === null || config.storage.postgres.url.trim() === '') {
    warn('storage.postgres.url (DAGU_POSTGRES_URL) is not set: it names the database');
    return EXIT_USAGE;
  }
  let settings: PgSettings;
  try {
    settings = pgSettings(config);
  } catch (err) {
    if (!(err instanceof StorageConfigError)) throw err;
    warn(err.message);
    return EXIT_USAGE;
  }
  const client = new PgClient(settings.connection);
  // A connection that dies while idle emits here; the query in flight fails with the reason instead.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    warn(connectFailure(settings, err));
    return EXIT_USAGE;
  }
  try {
    say(`database: ${settings.safeUrl}, schema ${JSON.stringify(settings.schema)}`);
    say(`this build: version ${EXPECTED_VERSION}`);
    await describeApplied(client, settings.schema);
    if (opts.apply === true) {
      const done = await applyMigrations(client, settings.schema, {
        by: `dagu storage schema --apply on ${hostname()}`,
      });
      for (const v of done) say(`applied: version ${v} (${MIGRATIONS.find((m) => m.version === v)?.name})`);
      if (done.length === 0) say('nothing to apply');
    }
    return await verdict(client, settings.schema);
  } catch (err) {
    warn(pgErrorText(err));
    return EXIT_RUN_FAILED;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** One line on the applied version: when, by whom, or that there is no schema yet. */
async function describeApplied(client: pg.Client, schema: string): Promise<void> {
  const applied = await readApplied(client, schema);
  if (applied.length === 0) {
    say('database: no dagu schema yet');
    return;
  }
  const last = await client.query<{ version: number; name: string; applied_at: Date; applied_by: string }>(
    `select version, name, applied_at, applied_by from ${quoteIdent(schema)}.schema_migrations
      order by version desc limit 1`,
  );
  const l = last.rows[0];
  say(`database: version ${l.version} (${l.name}), applied ${l.applied_at.toISOString()} by ${l.applied_by}`);
}

async function verdict(client: pg.Client, schema: string): Promise<number> {
  const applied = await readApplied(client, schema);
  const problem = schemaProblem(applied);
  if (problem !== null) {
    say(`not usable: ${problem}`);
    return EXIT_RUN_FAILED;
  }
  const have = new Set(applied.map((a) => a.version));
  const pending = MIGRATIONS.filter((m) => !have.has(m.version));
  if (pending.length > 0) {
    say(`pending: ${pending.map((m) => `${m.version} (${m.name})`).join(', ')}`);
    say('run `dagu storage schema --apply` to apply them');
    return EXIT_RUN_FAILED;
  }
  const tables = await tablesProblem(client, schema);
  if (tables !== null) {
    say(`not usable: ${tables}`);
    return EXIT_RUN_FAILED;
  }
  const newest = Math.max(...applied.map((a) => a.version));
  say(
    newest > EXPECTED_VERSION
      ? `the database is newer than this build, without a breaking change: this build can use it`
      : 'up to date',
  );
  return EXIT_OK;
}
