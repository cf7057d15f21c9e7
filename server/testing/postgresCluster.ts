// A throwaway PostgreSQL cluster for tests: Debian's server binaries, `initdb` into a temp directory, the
// server on a free port with its socket in that directory, no durability (fsync off), stopped and deleted
// by `stop()`. `initdb` refuses to run as root, so as root the binaries run as the `postgres` OS user that
// Debian's package creates (through `runuser`); a developer's own account runs them directly.
// Fault helpers for the chaos tests: an immediate crash, a restart, and a freeze of the whole server.

import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './freePort';

const run = promisify(execFile);

/** Where Debian keeps the newest installed server's binaries, or null when none is installed. */
export function postgresBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(path.join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? path.join(root, versions[0], 'bin') : null;
}

export interface PostgresCluster {
  /** `postgresql://postgres@127.0.0.1:<port>/postgres` */
  readonly url: string;
  readonly port: number;
  /** A URL of the same server with another database. */
  urlOf(database: string): string;
  /** Creates an empty database and answers its URL. */
  createDatabase(name: string): Promise<string>;
  /** Runs SQL with psql as the superuser; answers stdout (tuples only, unaligned). */
  psql(sql: string, database?: string): Promise<string>;
  /** `pg_ctl stop -m immediate`: every connection dies at once, as in a crash. */
  crash(): Promise<void>;
  /** Starts the server again on the same port (after crash()). */
  start(): Promise<void>;
  /** SIGSTOP to the postmaster and every backend (a server that stalls); thaw() sends SIGCONT. */
  freeze(): Promise<void>;
  thaw(): Promise<void>;
  /** Stops the server and deletes its directory. Safe to call twice. */
  stop(): Promise<void>;
  /** The postmaster's process ID (its backends are its children): for a bench's CPU accounting. */
  serverPid(): number;
}

/** How a test cluster trades durability for speed. */
export interface PostgresClusterOptions {
  /**
   * Acknowledge a commit only once its WAL is written (PostgreSQL's default). Off by default for speed,
   * which loses the last commits a client was told had succeeded when the server crashes: a test that
   * crashes the server (`crash()`) and then judges what was committed needs it on. `fsync` stays off either
   * way: a crash of the server's processes leaves written WAL in the OS's page cache; only the host's crash
   * would lose it.
   */
  synchronousCommit?: boolean;
  /** The server's max_connections (default 200): a test of how many connections the product holds sets it low. */
  maxConnections?: number;
}

/** Starts a cluster; throws with the server's log when it cannot. */
export async function startPostgresCluster(opts: PostgresClusterOptions = {}): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  if (bin === null) {
    throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql (install postgresql)');
  }
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(path.join(tmpdir(), 'dagu-pg-'));
  chmodSync(dir, 0o755);
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const data = path.join(dir, 'data');
  const log = path.join(dir, 'server.log');
  const tool = (name: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', path.join(bin, name), ...args])
      : run(path.join(bin, name), args);

  await tool('initdb', [
    '-D',
    data,
    '-U',
    'postgres',
    '-A',
    'trust',
    '-E',
    'UTF8',
    '--no-locale',
    '--no-sync',
  ]);
  let port = 0;
  const startServer = async () => {
    await tool('pg_ctl', [
      '-D',
      data,
      '-l',
      log,
      '-w',
      '-t',
      '30',
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off ` +
        (opts.synchronousCommit ? '' : '-c synchronous_commit=off ') +
        `-c full_page_writes=off -c max_connections=${opts.maxConnections ?? 200}`,
      'start',
    ]);
  };
  // The free port can be taken between the probe and the bind: try a few.
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    try {
      await startServer();
      break;
    } catch (err) {
      if (attempt >= 4) {
        const tail = existsSync(log) ? readFileSync(log, 'utf8').slice(-2000) : '';
        rmSync(dir, { recursive: true, force: true });
        throw new Error(`could not start PostgreSQL: ${(err as Error).message}\n${tail}`, { cause: err });
      }
    }
  }

  const urlOf = (database: string) => `postgresql://postgres@127.0.0.1:${port}/${database}`;
  const psql = async (sql: string, database = 'postgres') => {
    const { stdout } = await run(path.join(bin, 'psql'), [
      urlOf(database),
      '-v',
      'ON_ERROR_STOP=1',
      '-Atc',
      sql,
    ]);
    return stdout.trim();
  };
  const serverPid = () => Number(readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const pids = () => {
    const postmaster = serverPid();
    const children = readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p))
      .filter((p) => {
        try {
          const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
          return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
        } catch {
          return false;
        }
      })
      .map(Number);
    return [postmaster, ...children];
  };
  let stopped = false;
  return {
    url: urlOf('postgres'),
    port,
    urlOf,
    async createDatabase(name) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad database name ${name}`);
      await psql(`create database ${name} template template0`);
      return urlOf(name);
    },
    psql,
    serverPid,
    async crash() {
      await tool('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    },
    start: startServer,
    async freeze() {
      for (const pid of pids()) process.kill(pid, 'SIGSTOP');
    },
    async thaw() {
      for (const pid of pids()) process.kill(pid, 'SIGCONT');
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        for (const pid of pids()) process.kill(pid, 'SIGCONT');
      } catch {
        /* not running */
      }
      await tool('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
