// Connecting, on real `bin/dagu` processes. A database user whose login needs a password: with no password
// given the process says which setting is missing and exits 2 at once, whatever way the server asks for it
// (SCRAM, a clear-text password). pg fails such a login on its own side and left the socket open, so a
// command that had printed its error waited for the server's authentication_timeout (1 minute) before it
// exited. The URL's sslmode: a mode pg reads as verify-full connects without pg's warning of several lines
// (it was in every command's output), and a mode PostgreSQL does not know is refused. A server that takes
// the connection and never answers is named with the connect timeout that gave up on it; one that is no
// PostgreSQL (an HTTP server, or one that closes at once) is named as such, where pg said only "Connection
// terminated unexpectedly".

import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dagu, eventually, startService, tempHome, type TempHome } from '../harness';
import { usePostgres } from './pgTestCluster';

const pg = usePostgres();
const PASSWORD = 'a login password';
const SCRAM_ROLE = 'login_scram';
const CLEAR_ROLE = 'login_clear';

const homes: TempHome[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) h.cleanup();
});

beforeAll(async () => {
  const { cluster } = pg();
  for (const role of [SCRAM_ROLE, CLEAR_ROLE]) {
    await cluster.psql(`create role ${role} login password '${PASSWORD}'`);
    await cluster.psql(`grant create on database postgres to ${role}`);
  }
  const hba = await cluster.psql('show hba_file');
  const lines = [
    `host all ${SCRAM_ROLE} 127.0.0.1/32 scram-sha-256`,
    `host all ${CLEAR_ROLE} 127.0.0.1/32 password`,
    'host all all 127.0.0.1/32 trust',
    'local all all trust',
  ];
  await cluster.psql(`copy (values ${lines.map((l) => `('${l}')`).join(', ')}) to '${hba}'`);
  await cluster.psql('select pg_reload_conf()');
});

function homeOf(role: string, extra: Record<string, string> = {}): TempHome {
  const url = new URL(pg().cluster.url);
  url.username = role;
  const h = tempHome({
    DAGU_STORAGE_BACKEND: 'postgres',
    DAGU_POSTGRES_URL: url.toString(),
    DAGU_POSTGRES_SCHEMA: role,
    DAGU_SKIP_EXAMPLES: 'true',
    ...extra,
  });
  homes.push(h);
  return h;
}

describe('a login that needs a password', () => {
  it.each([SCRAM_ROLE, CLEAR_ROLE])(
    'with none given (%s): exit 2 at once, naming the setting to give it in',
    async (role) => {
      const h = homeOf(role);
      for (const args of [['history'], ['storage', 'schema']]) {
        const started = Date.now();
        const r = await dagu(args, h.env, 15_000);
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
        expect(r.stderr).toContain(
          `cannot connect to PostgreSQL at ${h.env.DAGU_POSTGRES_URL}: the server asks for the password of user "${role}" and none is given: put it in storage.postgres.password_file (DAGU_POSTGRES_PASSWORD_FILE) or in the URL`,
        );
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        expect(Date.now() - started).toBeLessThan(10_000);
      }
    },
    60_000,
  );

  it('with a wrong one: the server says so, at once; with the right one from the file: the command runs', async () => {
    const h = homeOf(SCRAM_ROLE);
    const wrong = path.join(h.home, 'wrong-password');
    writeFileSync(wrong, 'not it\n');
    const started = Date.now();
    let r = await dagu(['history'], { ...h.env, DAGU_POSTGRES_PASSWORD_FILE: wrong }, 15_000);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`password authentication failed for user "${SCRAM_ROLE}" (SQLSTATE 28P01)`);
    expect(Date.now() - started).toBeLessThan(10_000);

    const right = path.join(h.home, 'password');
    writeFileSync(right, `${PASSWORD}\n`);
    r = await dagu(['history'], { ...h.env, DAGU_POSTGRES_PASSWORD_FILE: right }, 15_000);
    expect(r.code, r.stderr).toBe(0);
    const owner = await pg().pool.query<{ owner: string }>(
      `select pg_get_userbyid(nspowner) as owner from pg_namespace where nspname = $1`,
      [SCRAM_ROLE],
    );
    expect(owner.rows).toEqual([{ owner: SCRAM_ROLE }]);
  }, 60_000);
});

describe("the password file of PostgreSQL's clients", () => {
  it('gives the password when none is configured (PGPASSFILE, ~/.pgpass), with no warning from pg', async () => {
    const h = homeOf(SCRAM_ROLE);
    const { port } = new URL(pg().cluster.url);
    // host:port:database:user:password, as psql reads it; a file others may read is ignored (and said so).
    const line = `127.0.0.1:${port}:postgres:${SCRAM_ROLE}:${PASSWORD}\n`;
    const named = path.join(h.home, 'pgpass');
    writeFileSync(named, `# dagu test\n127.0.0.1:${port}:postgres:someone_else:not it\n${line}`, {
      mode: 0o600,
    });
    const userHome = path.join(h.home, 'user');
    mkdirSync(userHome);
    writeFileSync(path.join(userHome, '.pgpass'), line, { mode: 0o600 });
    // Written beside the home's DAGs and pushed by each command below (writeDag would push without a password).
    writeFileSync(path.join(h.home, 'dags', 'd.yaml'), 'steps:\n  - name: t\n    run: echo from-the-step\n');
    const inUserHome: NodeJS.ProcessEnv = { ...h.env, HOME: userHome };
    delete inUserHome.PGPASSFILE;
    for (const env of [{ ...h.env, PGPASSFILE: named }, inUserHome]) {
      let r = await dagu(['dags', 'push', path.join(h.home, 'dags')], env, 30_000);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      r = await dagu(['start', '-q', 'd'], env, 30_000);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      r = await dagu(['history'], env, 30_000);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toContain('succeeded');
    }
    // A service's connections too: its wake-up listener's own connection among them.
    const sched = startService(['scheduler'], { ...h.env, PGPASSFILE: named });
    try {
      await eventually(async () => {
        const r = await pg().pool.query(
          `select 1 from pg_stat_activity where usename = $1 and application_name = 'dagu-wakeups'`,
          [SCRAM_ROLE],
        );
        return r.rowCount === 1;
      }, 30_000);
    } finally {
      await sched.stop();
    }
    expect(sched.output()).not.toContain('Warning');
    // A file the group or others may read is not used, as psql does not use it.
    chmodSync(named, 0o644);
    const r = await dagu(['history'], { ...h.env, PGPASSFILE: named }, 15_000);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`the server asks for the password of user "${SCRAM_ROLE}" and none is given`);
  }, 90_000);
});

describe("the URL's sslmode", () => {
  it('require against a server without TLS: the one line that says so; a misspelt mode: refused', async () => {
    const h = homeOf('tls');
    for (const [mode, line] of [
      ['require', ': The server does not support SSL connections'],
      [
        'requir',
        'storage.postgres.url: sslmode=requir is not one of disable, allow, prefer, require, verify-ca, verify-full',
      ],
    ]) {
      const url = `${pg().cluster.url}?sslmode=${mode}`;
      const r = await dagu(['history'], { ...h.env, DAGU_POSTGRES_URL: url }, 15_000);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
      expect(r.stderr).toContain(line);
    }
    const r = await dagu(['history'], { ...h.env, DAGU_POSTGRES_URL: `${pg().cluster.url}?sslmode=disable` });
    expect(r.code, r.stderr).toBe(0);
  }, 60_000);
});

describe('a server that never answers', () => {
  it('is given up after storage.postgres.connect_timeout, which the line names', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((s) => sockets.push(s));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as { port: number }).port;
      const url = `postgres://dagu@127.0.0.1:${port}/dagu`;
      const h = homeOf('silent', { DAGU_POSTGRES_URL: url, DAGU_POSTGRES_CONNECT_TIMEOUT: '1s' });
      for (const [args, prefix] of [
        [['history'], 'dagu'],
        [['storage', 'schema'], 'dagu storage schema'],
      ] as const) {
        const r = await dagu([...args], h.env, 15_000);
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toBe(
          `${prefix}: cannot connect to PostgreSQL at ${url}: no answer within 1000 ms (storage.postgres.connect_timeout)\n`,
        );
      }
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  }, 60_000);
});

describe('a server that is not PostgreSQL', () => {
  it('is named with the URL, without its password, and what it did instead of answering', async () => {
    const http = createHttpServer((_req, res) => res.end('hello'));
    const closing = createServer((s) => s.destroy());
    const listen = (server: Server) =>
      new Promise<number>((resolve) =>
        server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
      );
    try {
      const check = 'check the host and port of storage.postgres.url (DAGU_POSTGRES_URL)';
      for (const [port, says] of [
        [
          await listen(http),
          `the server did not answer as PostgreSQL does (it sent "HTTP/1.1 400 Bad Request") and closed the connection: ${check}`,
        ],
        [
          await listen(closing),
          `the server closed the connection without answering as PostgreSQL does: ${check}`,
        ],
      ] as const) {
        const url = `postgres://dagu:a-secret@127.0.0.1:${port}/dagu`;
        const h = homeOf('other', { DAGU_POSTGRES_URL: url });
        for (const [args, prefix] of [
          [['history'], 'dagu'],
          [['scheduler'], 'dagu'],
          [['storage', 'schema'], 'dagu storage schema'],
        ] as const) {
          const r = await dagu([...args], h.env, 15_000);
          expect(r.code, r.stderr).toBe(2);
          expect(r.stderr).toBe(
            `${prefix}: cannot connect to PostgreSQL at postgres://dagu:***@127.0.0.1:${port}/dagu: ${says}\n`,
          );
        }
      }
    } finally {
      await new Promise((resolve) => http.close(resolve));
      await new Promise((resolve) => closing.close(resolve));
    }
  }, 60_000);
});
