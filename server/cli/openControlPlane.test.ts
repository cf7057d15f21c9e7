// How a long-running service bounds its statements on PostgreSQL (storage.postgres.service_statement_timeout).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config/loadConfig';
import { serviceStatementBound } from './openControlPlane';

// The home is only read (config.yaml, which it lacks): one for the file.
const home = mkdtempSync(path.join(tmpdir(), 'dagu-svcbound-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

const configWith = (env: Record<string, string>) =>
  loadConfig({ env: { DAGU_HOME: home, ...env } as unknown as NodeJS.ProcessEnv });

describe('serviceStatementBound', () => {
  it('bounds a service at one minute by default, the client a second after the server', () => {
    expect(serviceStatementBound(configWith({}))).toEqual({ queryTimeoutMs: 60_000, clientMarginMs: 1000 });
  });

  it('takes the configured bound, and none for 0s', () => {
    expect(
      serviceStatementBound(configWith({ DAGU_POSTGRES_SERVICE_STATEMENT_TIMEOUT: '5m' })).queryTimeoutMs,
    ).toBe(300_000);
    expect(serviceStatementBound(configWith({ DAGU_POSTGRES_SERVICE_STATEMENT_TIMEOUT: '0s' }))).toEqual({});
  });

  it('refuses a bound that is not a duration', () => {
    expect(() => configWith({ DAGU_POSTGRES_SERVICE_STATEMENT_TIMEOUT: 'soon' })).toThrow(
      /service_statement_timeout\): "soon" is not a duration/,
    );
    expect(() => configWith({ DAGU_POSTGRES_SERVICE_STATEMENT_TIMEOUT: '-1s' })).toThrow(/"-1s" is negative/);
  });
});
