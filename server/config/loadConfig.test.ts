import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './loadConfig';

let home: string;
beforeEach(() => {
  home = mkdtempSync(path.join(tmpdir(), 'dagu-config-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const load = (env: Record<string, string> = {}, flags?: Record<string, unknown>) =>
  loadConfig({ env: { DAGU_HOME: home, ...env } as unknown as NodeJS.ProcessEnv, flags });

describe('loadConfig', () => {
  it('applies the documented defaults when nothing is set', () => {
    const c = load();
    expect(c.home).toBe(home);
    expect(c.paths.dags_dir).toBe(path.join(home, 'dags'));
    expect(c.port).toBe(8080);
    expect(c.scheduler).toMatchObject({
      lock_stale_threshold_ms: 30_000,
      lock_retry_interval_ms: 5_000,
      failover_recovery_window_ms: 120_000,
      port: 8090,
    });
    expect(c.queues).toEqual({ enabled: true, config: [] });
  });

  it('lets the environment override the file and flags override the environment', () => {
    writeFileSync(path.join(home, 'config.yaml'), 'port: 9000\nscheduler:\n  lock_stale_threshold: 10s\n');
    expect(load().port).toBe(9000);
    expect(load({ DAGU_PORT: '9100' }).port).toBe(9100);
    expect(load({ DAGU_PORT: '9100' }, { port: 9200 }).port).toBe(9200);
    expect(load().scheduler.lock_stale_threshold_ms).toBe(10_000);
    expect(
      load({ DAGU_SCHEDULER_LOCK_STALE_THRESHOLD: '3s', DAGU_SCHEDULER_LOCK_RETRY_INTERVAL: '500ms' })
        .scheduler,
    ).toMatchObject({ lock_stale_threshold_ms: 3000, lock_retry_interval_ms: 500 });
  });

  it('reads queues.config from the file', () => {
    writeFileSync(
      path.join(home, 'config.yaml'),
      'queues:\n  config:\n    - name: batch\n      max_concurrency: 4\n',
    );
    expect(load().queues.config).toEqual([{ name: 'batch', max_concurrency: 4 }]);
  });

  it.each([
    [
      { DAGU_SCHEDULER_LOCK_STALE_THRESHOLD: '-5s' },
      /DAGU_SCHEDULER_LOCK_STALE_THRESHOLD \(scheduler.lock_stale_threshold\): "-5s" is negative/,
    ],
    [{ DAGU_SCHEDULER_LOCK_STALE_THRESHOLD: 'abc' }, /"abc" is not a duration/],
    [{ DAGU_SCHEDULER_LOCK_STALE_THRESHOLD: '0s' }, /must be greater than 0s/],
    [{ DAGU_SCHEDULER_LOCK_RETRY_INTERVAL: '30s' }, /must be below scheduler.lock_stale_threshold/],
    [{ DAGU_SCHEDULER_PORT: '70000' }, /"70000" is not a valid port/],
    [{ DAGU_PORT: '0' }, /DAGU_PORT \(port\): "0" is not a valid port/],
    [{ DAGU_QUEUES_ENABLED: 'maybe' }, /must be true or false/],
    [{ DAGU_LOG_FORMAT: 'xml' }, /must be one of auto, json, text/],
  ])('refuses %j naming the key and the value', (env, message) => {
    expect(() => load(env)).toThrow(ConfigError);
    expect(() => load(env)).toThrow(message);
  });

  it('accepts 0s for the recovery window and 0 for the health port', () => {
    const c = load({ DAGU_SCHEDULER_FAILOVER_RECOVERY_WINDOW: '0s', DAGU_SCHEDULER_PORT: '0' });
    expect(c.scheduler.failover_recovery_window_ms).toBe(0);
    expect(c.scheduler.port).toBe(0);
  });

  it('refuses unknown keys, bad YAML and a duration written as a number in the file', () => {
    writeFileSync(path.join(home, 'config.yaml'), 'scheduler:\n  lock_stale: 3s\n');
    expect(() => load()).toThrow(/unknown key "scheduler.lock_stale"/);
    writeFileSync(path.join(home, 'config.yaml'), 'port: [\n');
    expect(() => load()).toThrow(/invalid YAML/);
    writeFileSync(path.join(home, 'config.yaml'), 'scheduler:\n  lock_stale_threshold: 30\n');
    expect(() => load()).toThrow(/must be a duration string/);
    writeFileSync(path.join(home, 'config.yaml'), 'queues:\n  config:\n    - name: a/b\n');
    expect(() => load()).toThrow(/queues.config\[0\].name: "a\/b" is not a valid queue name/);
  });
});
