// Hostile and broken configuration (config.yaml and DAGU_* variables), through `dagu scheduler`: each stops at
// start with exit 2 and one line naming the key, where the value came from and what is allowed, before it
// touches the lock, the instance registry or any run.

import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dagu } from '../integration/harness';
import { snapshotTree } from './dataDirSnapshot';
import { seededHome, type SeededHome } from './seededHome';

const LABEL_RULE = 'use key=value, keys of letters, digits, _ . / -';

interface ConfigCase {
  what: string;
  env?: Record<string, string>;
  /** config.yaml content. */
  file?: string;
  /** The line after `dagu: `; `<file>` stands for the config file's path. */
  error: string;
}

const CASES: ConfigCase[] = [
  ...['information_schema', 'pg_dagu'].map((schema) => ({
    what: `PostgreSQL's own schema ${schema}`,
    env: { DAGU_POSTGRES_SCHEMA: schema },
    error:
      `DAGU_POSTGRES_SCHEMA (storage.postgres.schema): "${schema}" is not valid (use a lower-case SQL ` +
      'identifier: letters, digits and "_", not starting with a digit, and not a schema of PostgreSQL ' +
      'itself (pg_..., information_schema))',
  })),
  {
    what: 'a negative lock threshold',
    env: { DAGU_SCHEDULER_LOCK_STALE_THRESHOLD: '-5s' },
    error: 'DAGU_SCHEDULER_LOCK_STALE_THRESHOLD (scheduler.lock_stale_threshold): "-5s" is negative',
  },
  {
    what: 'a duration without a unit',
    env: { DAGU_SCHEDULER_LOCK_STALE_THRESHOLD: 'soon' },
    error:
      'DAGU_SCHEDULER_LOCK_STALE_THRESHOLD (scheduler.lock_stale_threshold): "soon" is not a duration ' +
      '(use e.g. 30s, 2m, 1h30m)',
  },
  {
    what: 'a zero lock threshold',
    env: { DAGU_SCHEDULER_LOCK_STALE_THRESHOLD: '0s' },
    error:
      'DAGU_SCHEDULER_LOCK_STALE_THRESHOLD (scheduler.lock_stale_threshold): "0s" must be greater than 0s',
  },
  {
    what: 'a retry interval below a millisecond',
    env: { DAGU_SCHEDULER_LOCK_RETRY_INTERVAL: '500us' },
    error:
      'DAGU_SCHEDULER_LOCK_RETRY_INTERVAL (scheduler.lock_retry_interval): "500us" is below 1ms, ' +
      'the smallest interval timers keep',
  },
  {
    what: 'an interval longer than a timer can wait',
    env: { DAGU_SCHEDULER_ZOMBIE_CHECK_INTERVAL: '30d' },
    error:
      'DAGU_SCHEDULER_ZOMBIE_CHECK_INTERVAL (scheduler.zombie_check_interval): "30d" is too long ' +
      '(at most 576h0m0s)',
  },
  {
    what: 'a retry interval equal to the threshold',
    env: { DAGU_SCHEDULER_LOCK_STALE_THRESHOLD: '3s', DAGU_SCHEDULER_LOCK_RETRY_INTERVAL: '3s' },
    error:
      'DAGU_SCHEDULER_LOCK_RETRY_INTERVAL (scheduler.lock_retry_interval): "3s" must be below ' +
      'scheduler.lock_stale_threshold (3s)',
  },
  {
    what: 'a retry interval above the threshold',
    env: { DAGU_SCHEDULER_LOCK_STALE_THRESHOLD: '3s', DAGU_SCHEDULER_LOCK_RETRY_INTERVAL: '10s' },
    error:
      'DAGU_SCHEDULER_LOCK_RETRY_INTERVAL (scheduler.lock_retry_interval): "10s" must be below ' +
      'scheduler.lock_stale_threshold (3s)',
  },
  {
    what: 'a heartbeat threshold under twice the interval',
    env: { DAGU_RUN_HEARTBEAT_INTERVAL: '2s', DAGU_RUN_HEARTBEAT_STALE_THRESHOLD: '3s' },
    error: 'run.heartbeat_stale_threshold must be at least twice run.heartbeat_interval (got 3s and 2s)',
  },
  {
    what: 'a health port above 65535',
    env: { DAGU_SCHEDULER_PORT: '70000' },
    error:
      'DAGU_SCHEDULER_PORT (scheduler.port): "70000" is not a valid port (use 0 to 65535; 0 disables it)',
  },
  {
    what: 'a negative health port',
    env: { DAGU_SCHEDULER_PORT: '-1' },
    error: 'DAGU_SCHEDULER_PORT (scheduler.port): "-1" is not a valid port (use 0 to 65535; 0 disables it)',
  },
  {
    what: 'web port 0',
    env: { DAGU_PORT: '0' },
    error: 'DAGU_PORT (port): "0" is not a valid port (use 1 to 65535)',
  },
  {
    what: 'a port with trailing junk',
    env: { DAGU_PORT: '8080abc' },
    error: 'DAGU_PORT (port): "8080abc" is not a valid port (use 1 to 65535)',
  },
  {
    what: 'a boolean that is neither',
    env: { DAGU_QUEUES_ENABLED: 'maybe' },
    error: 'DAGU_QUEUES_ENABLED (queues.enabled): "maybe" must be true or false',
  },
  {
    what: 'an unknown log format',
    env: { DAGU_LOG_FORMAT: 'xml' },
    error: 'DAGU_LOG_FORMAT (log.format): "xml" must be one of auto, json, text',
  },
  {
    what: 'an empty auth token',
    env: { DAGU_AUTH_TOKEN: '' },
    error: 'DAGU_AUTH_TOKEN (auth.token): "" must be a non-empty string',
  },
  {
    what: 'a basic-auth user without a password',
    env: { DAGU_AUTH_BASIC_USERNAME: 'ops' },
    error: 'auth.basic.password must be set too: basic auth needs both a username and a password',
  },
  {
    what: 'a coordinator URL of another scheme',
    env: { DAGU_COORDINATOR_URL: 'ftp://coord.example' },
    error: 'DAGU_COORDINATOR_URL (coordinator.url): "ftp://coord.example" is not an http:// or https:// URL',
  },
  {
    what: 'a worker ID with "/"',
    env: { DAGU_WORKER_ID: 'a/b' },
    error:
      'DAGU_WORKER_ID (worker.id): "a/b" is not valid (use 1 to 128 letters, digits, "_", ".", "@" or "-")',
  },
  {
    what: 'a worker capacity of 10^20',
    env: { DAGU_WORKER_MAX_ACTIVE_RUNS: '99999999999999999999' },
    error:
      'DAGU_WORKER_MAX_ACTIVE_RUNS (worker.max_active_runs): "99999999999999999999" must be at most 100000',
  },
  {
    what: 'a negative worker capacity',
    env: { DAGU_WORKER_MAX_ACTIVE_RUNS: '-2' },
    error: 'DAGU_WORKER_MAX_ACTIVE_RUNS (worker.max_active_runs): "-2" must be at least 1',
  },
  {
    what: 'a label without "="',
    env: { DAGU_WORKER_LABELS: 'zone' },
    error: `DAGU_WORKER_LABELS (worker.labels): "zone" is not a label (${LABEL_RULE})`,
  },
  {
    what: 'a label value longer than the coordinator takes',
    env: { DAGU_WORKER_LABELS: `zone=b,rack=${'r'.repeat(300)}` },
    error: 'DAGU_WORKER_LABELS (worker.labels): the value of label "rack" has 300 characters (at most 200)',
  },
  {
    what: 'more labels than the coordinator takes',
    env: { DAGU_WORKER_LABELS: Array.from({ length: 65 }, (_, i) => `k${i}=v`).join(',') },
    error: 'DAGU_WORKER_LABELS (worker.labels): 65 labels (at most 64)',
  },
  {
    what: 'a misspelled lock threshold variable',
    env: { DAGU_SCHEDULER_LOCK_STALE_TRESHOLD: '3s' },
    error:
      'DAGU_SCHEDULER_LOCK_STALE_TRESHOLD is not a setting (did you mean DAGU_SCHEDULER_LOCK_STALE_THRESHOLD?)',
  },
  {
    what: 'a misspelled log directory variable',
    env: { DAGU_LOGS_DIR: '/var/log/dagu' },
    error: 'DAGU_LOGS_DIR is not a setting (did you mean DAGU_LOG_DIR?)',
  },
  {
    what: 'an unknown top-level key in config.yaml',
    file: 'schedulr:\n  lock_stale_threshold: 3s\n',
    error: '<file>: unknown key "schedulr"',
  },
  {
    what: 'an unknown nested key in config.yaml',
    file: 'scheduler:\n  lock_stale: 3s\n',
    error: '<file>: unknown key "scheduler.lock_stale"',
  },
  {
    what: 'malformed YAML in config.yaml',
    file: 'port: [\n',
    error:
      '<file>:2:1: invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]',
  },
  {
    what: 'a key written twice in config.yaml',
    file: 'port: 8081\nport: 8082\n',
    error: '<file>:2:1: invalid YAML: Map keys must be unique',
  },
  {
    what: 'a list instead of a map in config.yaml',
    file: '- port: 8081\n',
    error: '<file>: must be a mapping of keys',
  },
  {
    what: 'a section given a number in config.yaml',
    file: 'scheduler: 5\n',
    error: '<file>: scheduler must be a mapping of keys (such as scheduler.lock_stale_threshold), got 5',
  },
  {
    what: 'an alias bomb in config.yaml',
    file: [
      'a: &a ["x","x","x","x","x","x","x","x","x","x"]',
      'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]',
      'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]',
      'd: [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]',
      '',
    ].join('\n'),
    error: '<file>: invalid YAML: Excessive alias count indicates a resource exhaustion attack',
  },
  {
    what: 'a duration written as a bare number in config.yaml',
    file: 'scheduler:\n  failover_recovery_window: 5\n',
    error:
      'scheduler.failover_recovery_window in <file>: "5" must be a duration string such as "30s" or "2m"',
  },
  {
    what: 'a negative duration in config.yaml',
    file: 'coordinator:\n  worker_wait_timeout: -1s\n',
    error: 'coordinator.worker_wait_timeout in <file>: "-1s" is negative',
  },
  {
    what: 'a port out of range in config.yaml',
    file: 'port: 65536\n',
    error: 'port in <file>: "65536" is not a valid port (use 1 to 65535)',
  },
  {
    what: 'a queue defined twice in config.yaml',
    file: 'queues:\n  config:\n    - name: batch\n    - name: batch\n',
    error: '<file>: queues.config[1].name: queue "batch" is defined twice',
  },
];

let home: SeededHome;
beforeAll(async () => {
  home = await seededHome();
});
afterAll(() => home.cleanup());

describe('a scheduler started with a hostile or broken configuration', () => {
  it.each(CASES)('$what: exit 2 naming it, and the data directory untouched', async (c) => {
    const configFile = path.join(home.home, 'config.yaml');
    const before = snapshotTree(home.data);
    if (c.file !== undefined) writeFileSync(configFile, c.file);
    try {
      // A configuration accepted by mistake would start a standby: killed after 8 s, failing the case.
      const r = await dagu(['scheduler'], { ...home.env, ...c.env }, 8_000);
      expect(r.stderr).toBe(`dagu: ${c.error.replace('<file>', configFile)}\n`);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      // The other instance's lock and record are as they were; no instance record, no run, no event.
      expect(snapshotTree(home.data)).toEqual(before);
    } finally {
      rmSync(configFile, { force: true });
    }
  });
});
