// The connection settings as pg itself reads them: a password from storage.postgres.password_file has to
// reach the client that pg builds from the options, whatever characters it holds.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/loadConfig';
import { pgSettings, withoutStatementBounds } from './connect';

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
});
