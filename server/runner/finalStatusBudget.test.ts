import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/loadConfig';
import { finalStatusBudgetMs } from './finalStatusBudget';

const configWith = (env: Record<string, string>) =>
  loadConfig({
    home: '/nonexistent-dagu-home',
    env: { NODE_ENV: 'test', DAGU_RUN_HEARTBEAT_INTERVAL: '500ms', ...env },
  });

describe('finalStatusBudgetMs', () => {
  it('on files: the log flush (at most 10 s) and the final-status tries (the stale threshold, at most 30 s)', () => {
    expect(finalStatusBudgetMs(configWith({ DAGU_RUN_HEARTBEAT_STALE_THRESHOLD: '3s' }))).toBe(6000);
    expect(finalStatusBudgetMs(configWith({}))).toBe(10_000 + 30_000);
  });

  it('on PostgreSQL: also the last try and the note of an unwritten end, each a connect and a statement timeout', () => {
    const pg = { DAGU_STORAGE_BACKEND: 'postgres', DAGU_POSTGRES_URL: 'postgres://dagu@db/dagu' };
    // 45 s threshold: statements time out after 10 s; connections after the default 5 s.
    expect(finalStatusBudgetMs(configWith(pg))).toBe(10_000 + 30_000 + 2 * (5000 + 10_000));
    expect(
      finalStatusBudgetMs(
        configWith({ ...pg, DAGU_RUN_HEARTBEAT_STALE_THRESHOLD: '3s', DAGU_POSTGRES_CONNECT_TIMEOUT: '1s' }),
      ),
    ).toBe(3000 + 3000 + 2 * (1000 + 2000));
  });
});
