// Opening the PostgreSQL backend of one process: the connection settings from the config (the password may
// come from a file, a mounted Secret), a pool, and the schema brought to this build's version or checked
// against it. Every failure is a StorageConfigError that names what is wrong, never the password, so a
// process refuses to start with one clear line instead of failing later on its first write.

import { readFileSync } from 'node:fs';
import pg from 'pg';
import { nameStatements } from './namedStatements';
import type { Config } from '../../config/types';
import { StorageConfigError } from '../errors';
import { MIGRATIONS } from './migrations';
import { pgpassPassword, type PgpassTarget } from './pgpassFile';
import { redactUrl } from './redactUrl';
import { applyMigrations, checkSchema, quoteIdent, schemaProblem } from './schemaVersion';

export { StorageConfigError, redactUrl };

export interface PgSettings {
  /** Connection options for `pg` (password filled in from the file when the URL has none). */
  connection: pg.PoolConfig;
  /** The URL with any password replaced by `***`, for messages. */
  safeUrl: string;
  schema: string;
  poolSize: number;
  autoMigrate: boolean;
  /** Whether the stores' statements are prepared once per connection (namedStatements.ts). */
  namedStatements: boolean;
  connectTimeoutMs: number;
  /** The statement timeout of this process's pool, when it has one (see PgPoolOptions). */
  queryTimeoutMs: number | null;
}

/** What a process asks of its pool beyond the configuration. */
export interface PgPoolOptions {
  /**
   * Bounds every statement on the client (`query_timeout`, which also abandons a dead connection) and on the
   * server (`statement_timeout`), and ends a transaction left open by its client for as long
   * (`idle_in_transaction_session_timeout`), releasing its row locks. For processes whose every statement is
   * short (run processes, one-shot commands); schema migrations are not bound by it.
   */
  queryTimeoutMs?: number;
  /**
   * How much later than the server the client gives a statement up (default 0). With a margin, a statement
   * that runs too long or waits on a lock is cancelled by the server, which names the reason (SQLSTATE
   * 57014), and the client's own timeout is left to a server that does not answer at all.
   */
  clientMarginMs?: number;
}

/** The values of `sslmode` that PostgreSQL's clients know. */
const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'];

/** The server's requests for a password, as pg's connection emits them. */
const PASSWORD_REQUESTS = [
  'authenticationCleartextPassword',
  'authenticationMD5Password',
  'authenticationSASL',
] as const;

/**
 * pg's client, closing its connection when it fails to connect, and reading the password file when no
 * password is configured. pg leaves the socket open when the login fails on the client's side (the server
 * asks for a password and none is given), and the server closes it only after its `authentication_timeout`
 * (1 minute by default): meanwhile that socket kept a command that had already printed its error from
 * exiting. A login refused for want of a password also says so, where pg would report a SCRAM message or the
 * server "password authentication failed".
 */
export class PgClient extends pg.Client {
  private askedForPassword = false;
  /** Whether the server has sent one message of PostgreSQL's protocol. */
  private spokePostgres = false;
  /** The first bytes the server sent, whatever they were. */
  private firstBytes: Buffer | null = null;

  constructor(config?: string | pg.ClientConfig) {
    super(config);
    // No password from the URL, the password file or PGPASSWORD: the password file of PostgreSQL's clients
    // (~/.pgpass, or PGPASSFILE) is read when the server asks for one, as psql reads it. pg would read it
    // too, but with a deprecation warning at every connection; a password function is the way it supports.
    if (this.password === null || this.password === undefined) {
      const target = (this as unknown as { connectionParameters: PgpassTarget }).connectionParameters;
      (this as { password: unknown }).password = () => pgpassPassword(target);
    }
    for (const event of PASSWORD_REQUESTS) {
      this.connection.once(event, () => {
        this.askedForPassword = true;
      });
    }
    this.connection.once('message', () => {
      this.spokePostgres = true;
    });
  }

  override connect(): Promise<pg.Client>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.Client> | void {
    if (callback === undefined) {
      return new Promise((resolve, reject) => {
        this.connect((err: Error | null) => (err ? reject(err) : resolve(this)));
      });
    }
    this.connection.stream.once('data', (chunk: Buffer) => {
      this.firstBytes = chunk.subarray(0, 64);
    });
    super.connect((err: Error | null) => {
      if (!err) {
        (callback as (err: null, c: pg.Client) => void)(null, this);
        return;
      }
      this.connection.stream.destroy();
      const noPassword = typeof this.password !== 'string' || this.password === '';
      (callback as (err: Error) => void)(
        this.askedForPassword && noPassword
          ? new Error(
              `the server asks for the password of user ${JSON.stringify(this.user)} and none is given: put it in storage.postgres.password_file (DAGU_POSTGRES_PASSWORD_FILE) or in the URL`,
              { cause: err },
            )
          : !this.spokePostgres && closedEarly(err)
            ? new Error(notPostgres(this.firstBytes), { cause: err })
            : err,
      );
    });
  }
}

/** Whether the server closed or reset the connection (as opposed to refusing it, or never answering). */
function closedEarly(err: Error): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return err.message === 'Connection terminated unexpectedly' || code === 'ECONNRESET' || code === 'EPIPE';
}

/**
 * Why a connection closed (or was reset) before the server sent one message of PostgreSQL's protocol: pg
 * says only "Connection terminated unexpectedly" (or "read ECONNRESET"), which does not point at a URL naming another kind of server (an HTTP
 * server, say, which answers the login with an error of its own and closes).
 */
function notPostgres(firstBytes: Buffer | null): string {
  const check = 'check the host and port of storage.postgres.url (DAGU_POSTGRES_URL)';
  if (firstBytes === null || firstBytes.length === 0) {
    return `the server closed the connection without answering as PostgreSQL does: ${check}`;
  }
  const line = firstBytes.toString('latin1').split(/\r?\n/)[0];
  const shown = line.replace(/[^\x20-\x7e]/g, '.').slice(0, 40);
  return `the server did not answer as PostgreSQL does (it sent ${JSON.stringify(shown)}) and closed the connection: ${check}`;
}

type ConnectCallback = ((err: Error) => void) | ((err: null, c: pg.Client) => void);

/** The settings of `storage.postgres.*`, read and checked; throws StorageConfigError. */
export function pgSettings(config: Config, opts: PgPoolOptions = {}): PgSettings {
  const p = config.storage.postgres;
  const url = p.url;
  if (url === null || url.trim() === '') {
    throw new StorageConfigError(
      'storage.backend is postgres but storage.postgres.url (DAGU_POSTGRES_URL) is not set',
    );
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new StorageConfigError(
      'storage.postgres.url is not a URL: write it as postgres://user@host:5432/database',
    );
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new StorageConfigError(
      `storage.postgres.url must start with postgres:// or postgresql://, not ${parsed.protocol}//`,
    );
  }
  let connectionString = url;
  const sslmode = parsed.searchParams.get('sslmode');
  if (sslmode !== null && !SSL_MODES.includes(sslmode)) {
    throw new StorageConfigError(
      `storage.postgres.url: sslmode=${sslmode} is not one of ${SSL_MODES.join(', ')}`,
    );
  }
  if (
    sslmode !== null &&
    sslmode !== 'disable' &&
    sslmode !== 'verify-full' &&
    !parsed.searchParams.has('uselibpqcompat')
  ) {
    // pg reads these as verify-full already (the server's certificate and host name are checked), and says so
    // in a warning of several lines on every connection string it parses: in each command's output and in
    // every run's log. Spelled as what it means, the URL connects the same way without it.
    parsed.searchParams.set('sslmode', 'verify-full');
    connectionString = parsed.toString();
  }
  const connection: pg.PoolConfig = {
    connectionString,
    max: p.pool_size,
    connectionTimeoutMillis: p.connect_timeout_ms,
    application_name: 'dagu',
    // A command ends when its work does: idle connections do not keep the process alive.
    allowExitOnIdle: true,
    Client: PgClient,
  };
  const queryTimeoutMs = opts.queryTimeoutMs ?? null;
  if (queryTimeoutMs !== null) {
    Object.assign(connection, {
      query_timeout: queryTimeoutMs + (opts.clientMarginMs ?? 0),
      statement_timeout: queryTimeoutMs,
      idle_in_transaction_session_timeout: queryTimeoutMs,
    });
  }
  if (parsed.password === '' && p.password_file !== null) {
    let password: string;
    try {
      password = readFileSync(p.password_file, 'utf8').replace(/\r?\n$/, '');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      throw new StorageConfigError(
        `storage.postgres.password_file ${p.password_file} cannot be read (${code})`,
      );
    }
    if (password === '') {
      throw new StorageConfigError(`storage.postgres.password_file ${p.password_file} is empty`);
    }
    // pg lets every field of connectionString override the option of the same name, and a URL without a
    // password still yields an empty one: `connection.password` would never reach the server. So the
    // password travels inside the URL, encoded the way pg decodes it.
    parsed.password = encodeURIComponent(password);
    connection.connectionString = parsed.toString();
  }
  return {
    connection,
    safeUrl: redactUrl(url),
    schema: p.schema,
    poolSize: p.pool_size,
    autoMigrate: p.auto_migrate,
    namedStatements: p.named_statements,
    connectTimeoutMs: p.connect_timeout_ms,
    queryTimeoutMs,
  };
}

/** What a connection error says, with the server's SQLSTATE when there is one; never the password. */
export function pgErrorText(err: unknown): string {
  const e = err as { code?: string; message?: string };
  const message = e.message ?? String(err);
  return e.code && /^[0-9A-Z]{5}$/.test(e.code) ? `${message} (SQLSTATE ${e.code})` : message;
}

/**
 * The line that says why a connection could not be opened. A server that does not answer within the
 * connect timeout is named with the setting, where pg says only "Connection terminated due to connection
 * timeout" (through a pool) or "timeout expired" (a client of its own).
 */
export function connectFailure(settings: PgSettings, err: unknown): string {
  const text = pgErrorText(err);
  const head = `cannot connect to PostgreSQL at ${settings.safeUrl}`;
  if (/connection timeout|^timeout expired$/i.test(text)) {
    return `${head}: no answer within ${settings.connectTimeoutMs} ms (storage.postgres.connect_timeout)`;
  }
  return `${head}: ${text}`;
}

export interface OpenedPool {
  pool: pg.Pool;
  settings: PgSettings;
  /** Read with the usual start's check; absent when the start took the detailed path. */
  opening?: OpeningReads;
}

/**
 * A pool on the configured database whose schema this build can use: migrated first when auto_migrate is
 * on (under the migration lock), checked otherwise; and a check that the user may write to it. Throws
 * StorageConfigError with the reason; the pool is closed again on any failure.
 */
export async function openPgPool(
  config: Config,
  opts: { by: string; onPoolError?: (err: Error) => void } & PgPoolOptions,
): Promise<OpenedPool> {
  const settings = pgSettings(config, {
    queryTimeoutMs: opts.queryTimeoutMs,
    clientMarginMs: opts.clientMarginMs,
  });
  const pool = new pg.Pool(settings.connection);
  if (settings.namedStatements) nameStatements(pool);
  // An idle client whose connection dies (a restarted server) emits here; the next query gets a new one.
  pool.on('error', (err) => opts.onPoolError?.(err));
  try {
    const client = await pool.connect().catch((err: unknown) => {
      throw new StorageConfigError(connectFailure(settings, err));
    });
    // Held across several statements: an error between two of them would be thrown from the client as an
    // uncaught error, since the pool listens only on idle connections. The statement that follows fails.
    let broken: Error | undefined;
    const onError = (err: Error) => {
      broken = err;
    };
    client.on('error', onError);
    try {
      const check = () =>
        checkSchema(client, settings.schema).catch((err: unknown) => {
          throw new StorageConfigError(`cannot read the schema version: ${pgErrorText(err)}`);
        });
      // Every run is a process that opens the backend: the usual case (schema current, tables there, user
      // may write) is answered by one round trip; anything else takes the detailed path below.
      const opening = await readyCheck(client, settings.schema);
      if (opening !== null) return { pool, settings, opening };
      // Migrations run only when the schema is behind: a start against a current schema takes no DDL lock.
      let problem = await check();
      if (problem !== null && settings.autoMigrate) {
        await migrate(client, settings, opts.by).catch((err: unknown) => {
          throw new StorageConfigError(
            `cannot prepare the schema ${JSON.stringify(settings.schema)} at ${settings.safeUrl}: ${pgErrorText(err)}`,
          );
        });
        problem = await check();
      }
      if (problem !== null) {
        throw new StorageConfigError(
          settings.autoMigrate ? problem : `${problem} (run \`dagu storage schema --apply\`)`,
        );
      }
      await checkTables(client, settings.schema);
      await checkWritable(client, settings.schema);
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
    return { pool, settings };
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }
}

/** The connection options without the statement bounds of PgPoolOptions, for a connection with its own. */
export function withoutStatementBounds(connection: pg.PoolConfig): pg.PoolConfig {
  const {
    query_timeout: _q,
    statement_timeout: _s,
    idle_in_transaction_session_timeout: _i,
    ...untimed
  } = connection;
  return untimed;
}

/**
 * Applies the migrations on `client`, or, when the pool's statements time out, on a connection of its own
 * without those timeouts: a migration may wait on another host's migration lock and run DDL for a while.
 */
async function migrate(client: pg.PoolClient, settings: PgSettings, by: string): Promise<void> {
  if (settings.queryTimeoutMs === null) {
    await applyMigrations(client, settings.schema, { by });
    return;
  }
  const own = new PgClient(withoutStatementBounds(settings.connection));
  // A lost connection is reported by the statement it breaks; without a listener it would crash the process.
  own.on('error', () => undefined);
  await own.connect();
  try {
    await applyMigrations(own, settings.schema, { by });
  } finally {
    await own.end().catch(() => undefined);
  }
}

/**
 * One query that answers whether the schema is exactly usable: every known migration applied with its
 * checksum and none newer that breaks, every table there, and a session that may write (not read-only, and
 * UPDATE on a table). False on any doubt or error, so the caller takes the path that names the problem.
 *
 * Every run process asks this on a fresh connection, so it reads the catalog directly: the
 * information_schema.tables view checks privileges on every table of the database and cost the server 5 to
 * 25 ms per run here, against under 1 ms. A table counts only if this user holds a privilege on its rows
 * (any of them, as has_table_privilege reads a list), so it is one information_schema lists too: whatever
 * passes here passes the detailed path.
 */
export async function schemaReady(client: pg.ClientBase, schema: string): Promise<boolean> {
  return (await readyCheck(client, schema)) !== null;
}

/**
 * What every process reads first once the schema is usable, read by the check's own statement: a run
 * process would otherwise pay a round trip for each.
 */
export interface OpeningReads {
  /** The installation row's ID; null when the row is missing (the caller reads it and says so). */
  installationId: string | null;
  /** The DAG definitions' revision (see PgDagDefinitions.revision); null when its row is missing. */
  dagRevision: string | null;
}

/** schemaReady's statement: the opening reads when the schema is usable, null on any doubt or error. */
async function readyCheck(client: pg.ClientBase, schema: string): Promise<OpeningReads | null> {
  const s = quoteIdent(schema);
  try {
    const r = await client.query<{
      applied: AppliedRow[] | null;
      tables: string[] | null;
      writable: boolean;
      installation_id: string | null;
      dag_revision: string | null;
    }>(
      `select (select json_agg(json_build_object('version', version, 'checksum', checksum, 'breaking', breaking))
                 from ${s}.schema_migrations) as applied,
              (select json_agg(c.relname::text)
                 from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
                where n.nspname = $1 and c.relkind in ('r', 'p')
                  and has_table_privilege(c.oid, 'SELECT, INSERT, UPDATE, DELETE')) as tables,
              has_table_privilege(format('%I.event_clock', $1::text), 'UPDATE')
                and current_setting('transaction_read_only') = 'off' as writable,
              (select installation_id from ${s}.installation where id = 1) as installation_id,
              (select revision::text from ${s}.dag_revision where id = 1) as dag_revision`,
      [schema],
    );
    const row = r.rows[0];
    if (!row.writable || !row.applied || !row.tables) return null;
    const applied = row.applied.map((a) => ({ ...a, version: Number(a.version) }));
    if (schemaProblem(applied) !== null) return null;
    const have = new Set(applied.map((a) => a.version));
    if (MIGRATIONS.some((m) => !have.has(m.version))) return null;
    const tables = new Set(row.tables);
    if (!expectedTables().every((t) => tables.has(t))) return null;
    return { installationId: row.installation_id, dagRevision: row.dag_revision };
  } catch {
    return null;
  }
}

interface AppliedRow {
  version: number;
  checksum: string;
  breaking: boolean;
}

/** Every table the migrations create, by name. */
export function expectedTables(): string[] {
  const names = new Set<string>();
  for (const m of MIGRATIONS)
    for (const match of m.sql.matchAll(/create table \{schema\}\.([a-z_]+)/g)) names.add(match[1]);
  return [...names].sort();
}

/**
 * Why a schema whose version is right cannot be used for its tables, or null: it lacks a table (dropped or
 * renamed by hand), or this user holds no right on one of them. Such a table is there all the same (the
 * catalog lists it), and is named with the grant it lacks rather than as missing. (A user that may only
 * read is refused next, by checkWritable.)
 */
export async function tablesProblem(client: pg.ClientBase, schema: string): Promise<string | null> {
  const r = await client.query<{ name: string; usable: boolean; user: string }>(
    `select c.relname::text as name, current_user::text as user,
            has_table_privilege(c.oid, 'SELECT, INSERT, UPDATE, DELETE') as usable
       from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where n.nspname = $1 and c.relkind in ('r', 'p')`,
    [schema],
  );
  const have = new Map(r.rows.map((row) => [row.name, row.usable]));
  const missing = expectedTables().filter((t) => !have.has(t));
  if (missing.length > 0) {
    return `the schema ${JSON.stringify(schema)} is at this build's version but table ${missing.map((t) => JSON.stringify(t)).join(', ')} is missing: restore it from a backup (dagu does not recreate a table that held data)`;
  }
  const denied = expectedTables().filter((t) => have.get(t) === false);
  if (denied.length > 0) {
    return `the database user ${JSON.stringify(r.rows[0].user)} may not use table ${denied.map((t) => JSON.stringify(t)).join(', ')} of the schema ${JSON.stringify(schema)}: grant it SELECT, INSERT, UPDATE, DELETE on every table of the schema`;
  }
  return null;
}

async function checkTables(client: pg.PoolClient, schema: string): Promise<void> {
  const problem = await tablesProblem(client, schema);
  if (problem !== null) throw new StorageConfigError(problem);
}

/**
 * Refuses a user that cannot write the tables (a read-only role, a read-only replica), at start: otherwise
 * the first run would fail halfway. The write is rolled back.
 */
async function checkWritable(client: pg.PoolClient, schema: string): Promise<void> {
  const s = `"${schema.replaceAll('"', '""')}"`;
  try {
    await client.query('begin');
    await client.query(`update ${s}.event_clock set counter = counter where id = 1`);
    await client.query(`delete from ${s}.suspend_flags where false`);
  } catch (err) {
    throw new StorageConfigError(
      `the database user cannot write the schema ${JSON.stringify(schema)}: ${pgErrorText(err)}`,
    );
  } finally {
    await client.query('rollback').catch(() => undefined);
  }
}
