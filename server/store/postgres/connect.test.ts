// The connection settings as pg itself reads them: a password from storage.postgres.password_file has to
// reach the client that pg builds from the options, whatever characters it holds.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../config/loadConfig';
import { StorageConfigError, pgSettings, withoutStatementBounds } from './connect';

describe('pgSettings', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'dagu-pgsettings-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const settingsFor = (env: Record<string, string>) =>
    pgSettings(loadConfig({ env: { DAGU_HOME: dir, ...env } as unknown as NodeJS.ProcessEnv }));

  it('gives pg the password of the file when the URL has none, and keeps it out of safeUrl', () => {
    const file = path.join(dir, 'password');
    writeFileSync(file, 'a p@ss:w/rd%zz é\n');
    const s = settingsFor({
      DAGU_POSTGRES_URL: 'postgres://dagu@db.example.internal:5432/dagu?application_name=x',
      DAGU_POSTGRES_PASSWORD_FILE: file,
    });
    const client = new pg.Client(s.connection);
    expect(client.password).toBe('a p@ss:w/rd%zz é');
    expect(client.user).toBe('dagu');
    expect(client.host).toBe('db.example.internal');
    expect(client.database).toBe('dagu');
    expect(s.safeUrl).not.toContain('p%40ss');
  });

  it('bounds every statement on the client and the server, and idle transactions, only when asked', () => {
    const env = { DAGU_POSTGRES_URL: 'postgres://dagu@db/dagu' };
    const config = loadConfig({ env: { DAGU_HOME: dir, ...env } as unknown as NodeJS.ProcessEnv });
    const bounded = pgSettings(config, { queryTimeoutMs: 2500 });
    expect(bounded.queryTimeoutMs).toBe(2500);
    expect(bounded.connection).toMatchObject({
      query_timeout: 2500,
      statement_timeout: 2500,
      idle_in_transaction_session_timeout: 2500,
    });
    const unbounded = settingsFor(env);
    expect(unbounded.queryTimeoutMs).toBeNull();
    expect(unbounded.connection).not.toHaveProperty('query_timeout');
    expect(unbounded.connection).not.toHaveProperty('statement_timeout');
    expect(unbounded.connection).not.toHaveProperty('idle_in_transaction_session_timeout');
  });

  it('gives the client a margin over the server when asked, so that the server cancels first', () => {
    const env = { DAGU_POSTGRES_URL: 'postgres://dagu@db/dagu' };
    const config = loadConfig({ env: { DAGU_HOME: dir, ...env } as unknown as NodeJS.ProcessEnv });
    const s = pgSettings(config, { queryTimeoutMs: 60_000, clientMarginMs: 1000 });
    expect(s.queryTimeoutMs).toBe(60_000);
    expect(s.connection).toMatchObject({
      query_timeout: 61_000,
      statement_timeout: 60_000,
      idle_in_transaction_session_timeout: 60_000,
    });
  });

  it('leaves the statement bounds out for a connection with a deadline of its own', () => {
    const env = { DAGU_POSTGRES_URL: 'postgres://dagu@db/dagu' };
    const config = loadConfig({ env: { DAGU_HOME: dir, ...env } as unknown as NodeJS.ProcessEnv });
    const s = pgSettings(config, { queryTimeoutMs: 60_000, clientMarginMs: 1000 });
    const own = withoutStatementBounds(s.connection);
    expect(own).not.toHaveProperty('query_timeout');
    expect(own).not.toHaveProperty('statement_timeout');
    expect(own).not.toHaveProperty('idle_in_transaction_session_timeout');
    expect(own).toMatchObject({ connectionString: s.connection.connectionString, max: s.connection.max });
  });

  it("uses the URL's own password and ignores the file then", () => {
    const s = settingsFor({
      DAGU_POSTGRES_URL: 'postgres://dagu:in-url@db/dagu',
      DAGU_POSTGRES_PASSWORD_FILE: path.join(dir, 'missing'),
    });
    expect(new pg.Client(s.connection).password).toBe('in-url');
    expect(s.safeUrl).toBe('postgres://dagu:***@db/dagu');
  });

  describe('sslmode', () => {
    /** What pg makes of the settings' connection, and the warnings it emitted meanwhile. */
    const clientOf = (url: string, env: Record<string, string> = {}) => {
      const warnings: string[] = [];
      const onWarning = (w: Error) => warnings.push(w.message);
      process.on('warning', onWarning);
      const emit = vi.spyOn(process, 'emitWarning');
      try {
        const client = new pg.Client(settingsFor({ DAGU_POSTGRES_URL: url, ...env }).connection);
        const emitted = emit.mock.calls.map((c) => String(c[0]));
        return { ssl: (client as unknown as { ssl: unknown }).ssl, warnings: [...warnings, ...emitted] };
      } finally {
        emit.mockRestore();
        process.off('warning', onWarning);
      }
    };

    it.each(['allow', 'prefer', 'require', 'verify-ca'])(
      'sslmode=%s checks the certificate and host name as pg reads it, without its warning',
      (mode) => {
        const url = `postgres://dagu@db.example.internal:5432/dagu?sslmode=${mode}`;
        // pg warns once per process: the spelled-out mode is what keeps every later one quiet too.
        const given = settingsFor({ DAGU_POSTGRES_URL: url }).connection.connectionString!;
        expect(new URL(given).searchParams.get('sslmode')).toBe('verify-full');
        const c = clientOf(url);
        expect(c.warnings).toEqual([]);
        expect(c.ssl).toEqual({});
      },
    );

    it('keeps the password from the file and the other parameters beside the spelled-out mode', () => {
      const file = path.join(dir, 'password');
      writeFileSync(file, 'p@ss\n');
      const s = settingsFor({
        DAGU_POSTGRES_URL: 'postgres://dagu@db/dagu?sslmode=require&application_name=x',
        DAGU_POSTGRES_PASSWORD_FILE: file,
      });
      const client = new pg.Client(s.connection);
      expect(client.password).toBe('p@ss');
      expect(new URL(s.connection.connectionString!).searchParams.get('sslmode')).toBe('verify-full');
      expect(new URL(s.connection.connectionString!).searchParams.get('application_name')).toBe('x');
      expect(s.safeUrl).toBe('postgres://dagu@db/dagu?sslmode=require&application_name=x');
    });

    it('leaves disable, verify-full and a URL that asks for libpq semantics as written', () => {
      for (const query of ['sslmode=disable', 'sslmode=verify-full', 'uselibpqcompat=true&sslmode=require']) {
        const url = `postgres://dagu@db/dagu?${query}`;
        expect(settingsFor({ DAGU_POSTGRES_URL: url }).connection.connectionString).toBe(url);
      }
      expect(clientOf('postgres://dagu@db/dagu?sslmode=disable').ssl).toBe(false);
    });

    it('refuses an sslmode PostgreSQL does not know, instead of connecting with TLS anyway', () => {
      expect(() => settingsFor({ DAGU_POSTGRES_URL: 'postgres://dagu@db/dagu?sslmode=requires' })).toThrow(
        new StorageConfigError(
          'storage.postgres.url: sslmode=requires is not one of disable, allow, prefer, require, verify-ca, verify-full',
        ),
      );
    });
  });
});
