import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { ConfigError, hostTimeZone, loadConfig } from './loadConfig';
import { SETTINGS } from './settings';
import type { Config } from './types';

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

  it('reads env_passthrough lists from the file as YAML lists and from the environment as text', () => {
    expect(load()).toMatchObject({ env_passthrough: [], env_passthrough_prefixes: [] });
    writeFileSync(
      path.join(home, 'config.yaml'),
      'env_passthrough: [HTTPS_PROXY, NO_PROXY]\nenv_passthrough_prefixes: ACME_\n',
    );
    expect(load()).toMatchObject({
      env_passthrough: ['HTTPS_PROXY', 'NO_PROXY'],
      env_passthrough_prefixes: ['ACME_'],
    });
    expect(load({ DAGU_ENV_PASSTHROUGH: 'A, B' }).env_passthrough).toEqual(['A', 'B']);
    expect(() => load({ DAGU_ENV_PASSTHROUGH: 'A,B-C' })).toThrow(
      /DAGU_ENV_PASSTHROUGH \(env_passthrough\): "B-C" is not an environment variable name/,
    );
    writeFileSync(path.join(home, 'config.yaml'), 'env_passthrough: [1]\n');
    expect(() => load()).toThrow(/env_passthrough in .*must be a list of names/);
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

describe('coordinator and worker settings', () => {
  it('holds a dispatch for 2m by default; the file, the environment and 0 change that', () => {
    expect(load().coordinator.worker_wait_timeout_ms).toBe(120_000);
    writeFileSync(path.join(home, 'config.yaml'), 'coordinator:\n  worker_wait_timeout: 45s\n');
    expect(load().coordinator.worker_wait_timeout_ms).toBe(45_000);
    expect(load({ DAGU_COORDINATOR_WORKER_WAIT_TIMEOUT: '5m' }).coordinator.worker_wait_timeout_ms).toBe(
      300_000,
    );
    expect(load({ DAGU_COORDINATOR_WORKER_WAIT_TIMEOUT: '0' }).coordinator.worker_wait_timeout_ms).toBe(0);
    expect(load({ DAGU_COORDINATOR_WORKER_WAIT_TIMEOUT: '0s' }).coordinator.worker_wait_timeout_ms).toBe(0);
  });

  it('refuses a negative or unparseable wait, naming the variable and the value', () => {
    expect(() => load({ DAGU_COORDINATOR_WORKER_WAIT_TIMEOUT: '-1m' })).toThrow(
      /DAGU_COORDINATOR_WORKER_WAIT_TIMEOUT \(coordinator\.worker_wait_timeout\): "-1m"/,
    );
    expect(() => load({ DAGU_COORDINATOR_WORKER_WAIT_TIMEOUT: 'soon' })).toThrow(
      /coordinator\.worker_wait_timeout\): "soon" is not a duration/,
    );
    writeFileSync(path.join(home, 'config.yaml'), 'coordinator:\n  worker_wait_timeout: -5s\n');
    expect(() => load()).toThrow(ConfigError);
  });

  it('builds the coordinator URL from host and port, https with a certificate, and checks the pair', () => {
    expect(load().coordinator).toMatchObject({ port: 50055, url: 'http://127.0.0.1:50055', token: null });
    expect(load({ DAGU_COORDINATOR_URL: 'https://coord.example:9000/' }).coordinator.url).toBe(
      'https://coord.example:9000',
    );
    expect(() => load({ DAGU_COORDINATOR_URL: 'ftp://x' })).toThrow(/not an http:\/\/ or https:\/\/ URL/);
    expect(() => load({ DAGU_COORDINATOR_TLS_CERT_FILE: '/tmp/c.pem' })).toThrow(
      /coordinator\.tls\.key_file must be set too/,
    );
    const tls = load({ DAGU_COORDINATOR_TLS_CERT_FILE: 'c.pem', DAGU_COORDINATOR_TLS_KEY_FILE: 'k.pem' });
    expect(tls.coordinator.url).toBe('https://127.0.0.1:50055');
  });

  it('parses worker labels and capacity, and names a bad label', () => {
    const c = load({ DAGU_WORKER_LABELS: 'zone=b, gpu=true', DAGU_WORKER_MAX_ACTIVE_RUNS: '8' });
    expect(c.worker.labels).toEqual({ zone: 'b', gpu: 'true' });
    expect(c.worker.max_active_runs).toBe(8);
    expect(() => load({ DAGU_WORKER_LABELS: 'zone' })).toThrow(/"zone" is not a label/);
    expect(() => load({ DAGU_WORKER_MAX_ACTIVE_RUNS: '0' })).toThrow(/must be at least 1/);
  });
});

describe('auth settings', () => {
  it('leaves the server open by default', () => {
    expect(load().auth).toEqual({ mode: 'none' });
  });

  it('reads basic auth from the file and a token from the environment', () => {
    writeFileSync(
      path.join(home, 'config.yaml'),
      'auth:\n  basic:\n    username: admin\n    password: "s3cret: yes"\n',
    );
    expect(load().auth).toEqual({ mode: 'basic', username: 'admin', password: 's3cret: yes' });
    writeFileSync(path.join(home, 'config.yaml'), '');
    expect(load({ DAGU_AUTH_TOKEN: 'tok-123' }).auth).toEqual({ mode: 'token', token: 'tok-123' });
    expect(load({ DAGU_AUTH_BASIC_USERNAME: 'ops', DAGU_AUTH_BASIC_PASSWORD: 'pw' }).auth).toEqual({
      mode: 'basic',
      username: 'ops',
      password: 'pw',
    });
  });

  it('refuses a username without a password and the other way round, naming the missing key', () => {
    expect(() => load({ DAGU_AUTH_BASIC_USERNAME: 'ops' })).toThrow(
      'auth.basic.password must be set too: basic auth needs both a username and a password',
    );
    expect(() => load({ DAGU_AUTH_BASIC_PASSWORD: 'pw' })).toThrow(/^auth\.basic\.username must be set too/);
  });

  it('refuses basic auth and a token together', () => {
    expect(() =>
      load({ DAGU_AUTH_BASIC_USERNAME: 'ops', DAGU_AUTH_BASIC_PASSWORD: 'pw', DAGU_AUTH_TOKEN: 't' }),
    ).toThrow('set either auth.basic or auth.token, not both');
  });

  it('refuses empty values, in the file and in the environment', () => {
    expect(() => load({ DAGU_AUTH_TOKEN: '' })).toThrow(
      'DAGU_AUTH_TOKEN (auth.token): "" must be a non-empty string',
    );
    expect(() => load({ DAGU_AUTH_BASIC_PASSWORD: '', DAGU_AUTH_BASIC_USERNAME: 'ops' })).toThrow(
      /DAGU_AUTH_BASIC_PASSWORD \(auth\.basic\.password\): "" must be a non-empty string/,
    );
    writeFileSync(path.join(home, 'config.yaml'), 'auth:\n  token: ""\n');
    expect(() => load()).toThrow(/auth\.token in .*: "" must be a non-empty string/);
  });

  it('refuses a username with a colon, which basic auth cannot carry', () => {
    expect(() => load({ DAGU_AUTH_BASIC_USERNAME: 'a:b', DAGU_AUTH_BASIC_PASSWORD: 'pw' })).toThrow(
      'auth.basic.username: "a:b" must not contain ":"',
    );
  });
});

describe('values the rest of the system could not use', () => {
  it('refuses a DAGU_ variable one typo away from a setting and ignores other DAGU_ names', () => {
    expect(() => load({ DAGU_RUN_KILL_GRACEE: '1s' })).toThrow(
      'DAGU_RUN_KILL_GRACEE is not a setting (did you mean DAGU_RUN_KILL_GRACE?)',
    );
    expect(() => load({ DAGU_HOSTT: 'x' })).toThrow('DAGU_HOSTT is not a setting (did you mean DAGU_HOST?)');
    // DAGU_HOME is one letter from DAGU_HOST, and tools around dagu use the prefix for their own variables.
    expect(load({ DAGU_DEBUG: '1', DAGU_CHAOS_SEED: '7', DAGU_EXECUTABLE: '/bin/dagu' }).home).toBe(home);
  });

  it('takes an empty section as no settings, and refuses a section that is not a map', () => {
    writeFileSync(path.join(home, 'config.yaml'), 'scheduler:\nport: 9000\n');
    expect(load().scheduler.lock_stale_threshold_ms).toBe(30_000);
    writeFileSync(path.join(home, 'config.yaml'), 'run: [5s]\n');
    expect(() => load()).toThrow(
      /: run must be a mapping of keys \(such as run\.heartbeat_interval\), got \["5s"\]$/,
    );
  });

  it('refuses durations a timer cannot keep: below 1ms or above 24 days', () => {
    expect(() => load({ DAGU_RUN_KILL_GRACE: '0.5ms' })).toThrow(/"0\.5ms" is below 1ms/);
    expect(() => load({ DAGU_RUN_KILL_GRACE: '25d' })).toThrow(/"25d" is too long \(at most 576h0m0s\)/);
    expect(load({ DAGU_RUN_KILL_GRACE: '24d' }).run.kill_grace_ms).toBe(24 * 24 * 3600_000);
  });

  it('refuses worker settings the coordinator would refuse at every heartbeat', () => {
    expect(() => load({ DAGU_WORKER_ID: 'w 1' })).toThrow(
      /DAGU_WORKER_ID \(worker\.id\): "w 1" is not valid/,
    );
    expect(() => load({ DAGU_WORKER_MAX_ACTIVE_RUNS: '100001' })).toThrow(/must be at most 100000/);
    expect(() => load({ DAGU_WORKER_LABELS: `zone=${'z'.repeat(201)}` })).toThrow(
      /the value of label "zone" has 201 characters \(at most 200\)/,
    );
    expect(load({ DAGU_WORKER_LABELS: `zone=${'z'.repeat(200)}` }).worker.labels.zone).toHaveLength(200);
  });

  it('names the line and column of bad YAML once, and refuses an alias bomb', () => {
    writeFileSync(path.join(home, 'config.yaml'), 'port: 1\nhost: [\n');
    expect(() => load()).toThrow(/config\.yaml:3:1: invalid YAML: Flow sequence in block collection/);
    const bomb = ['a: &a [x,x,x,x,x,x,x,x,x,x]', 'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]'];
    bomb.push('c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]', 'd: [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]');
    writeFileSync(path.join(home, 'config.yaml'), `${bomb.join('\n')}\n`);
    expect(() => load()).toThrow(/config\.yaml: invalid YAML: Excessive alias count/);
  });
});

describe("a Dagu home's config.yaml", () => {
  const write = (text: string) => writeFileSync(path.join(home, 'config.yaml'), text);

  it("reads Dagu 2.x's keys that mean something here under their own names", () => {
    write(
      [
        'host: 0.0.0.0',
        'port: 9001',
        'dags_dir: flows',
        'log_dir: /var/log/dagu',
        'tz: Europe/Paris',
        'default_shell: bash',
        'log_format: json',
        'debug: true',
        'auth:',
        '  mode: basic',
        '  basic: {username: ops, password: pw}',
        'scheduler:',
        '  port: 0',
        '  lock_stale_threshold: 40s',
        '  zombie_detection_interval: 20s',
        'proc:',
        '  heartbeat_interval: 4s',
        '  stale_threshold: 90s',
        'queues:',
        '  enabled: false',
        '  config:',
        '    - {name: batch, max_active_runs: 3}',
        '    - {name: etl, max_concurrency: 2, max_active_runs: 9}',
        'coordinator: {host: 0.0.0.0, port: 50066, advertise: coord.internal}',
        'worker: {id: w-1, max_active_runs: 7, labels: {zone: b, gpu: "true"}}',
        'base_config: shared/base.yaml',
        '',
      ].join('\n'),
    );
    const c = load();
    expect(c).toMatchObject({
      host: '0.0.0.0',
      port: 9001,
      tz: 'Europe/Paris',
      default_shell: 'bash',
      log: { level: 'debug', format: 'json' },
      auth: { mode: 'basic', username: 'ops', password: 'pw' },
      queues: {
        enabled: false,
        config: [
          { name: 'batch', max_concurrency: 3 },
          { name: 'etl', max_concurrency: 2 },
        ],
      },
      worker: { id: 'w-1', max_active_runs: 7, labels: { zone: 'b', gpu: 'true' } },
      warnings: [],
    });
    expect(c.paths).toMatchObject({
      dags_dir: path.join(home, 'flows'),
      log_dir: '/var/log/dagu',
      base_config: path.join(home, 'shared/base.yaml'),
    });
    expect(c.scheduler).toMatchObject({
      port: 0,
      lock_stale_threshold_ms: 40_000,
      zombie_check_interval_ms: 20_000,
    });
    expect(c.run).toMatchObject({ heartbeat_interval_ms: 4000, heartbeat_stale_threshold_ms: 90_000 });
    expect(c.coordinator).toMatchObject({ host: '0.0.0.0', port: 50066, url: 'http://coord.internal:50066' });
  });

  it("reads Dagu 1.30.2's camelCase keys and its legacy auth keys", () => {
    write(
      [
        'dagsDir: my-dags',
        'dataDir: store',
        'logFormat: text',
        'basicAuthUsername: admin',
        'basicAuthPassword: pw',
        'isBasicAuth: true',
        'defaultShell: /bin/zsh',
        'scheduler: {lockStaleThreshold: 20s, lockRetryInterval: 2s}',
        'queues:',
        '  enabled: true',
        '  config:',
        '    - {name: batch, maxActiveRuns: 5}',
        '    - {name: io, maxConcurrency: 2}',
        'worker: {maxActiveRuns: 3, labels: "zone=a"}',
        'paths: {baseConfig: b.yaml}',
        '',
      ].join('\n'),
    );
    const c = load();
    expect(c.paths.dags_dir).toBe(path.join(home, 'my-dags'));
    expect(c.paths.data_dir).toBe(path.join(home, 'store'));
    expect(c.paths.base_config).toBe(path.join(home, 'b.yaml'));
    expect(c.auth).toEqual({ mode: 'basic', username: 'admin', password: 'pw' });
    expect(c.default_shell).toBe('/bin/zsh');
    expect(c.scheduler).toMatchObject({ lock_stale_threshold_ms: 20_000, lock_retry_interval_ms: 2000 });
    expect(c.queues.config).toEqual([
      { name: 'batch', max_concurrency: 5 },
      { name: 'io', max_concurrency: 2 },
    ]);
    expect(c.worker).toMatchObject({ max_active_runs: 3, labels: { zone: 'a' } });
    expect(c.warnings).toEqual([]);
  });

  it("takes 1.x's token mapping as the token, and keeps basic auth where 1.x also had a token", () => {
    write('auth:\n  token:\n    value: tok-1\n');
    expect(load().auth).toEqual({ mode: 'token', token: 'tok-1' });
    write('auth:\n  basic: {username: a, password: b}\n  token: {value: tok-1}\n');
    const c = load();
    expect(c.auth).toEqual({ mode: 'basic', username: 'a', password: 'b' });
    expect(c.warnings?.[0]).toMatch(
      /not used by this product: auth\.token\.value \(basic auth protects the API here\)$/,
    );
  });

  it('names every Dagu key without a meaning here in one warning, and still starts', () => {
    write(
      [
        'navbarColor: "#fff"',
        'ui: {navbar_title: Ops, dags: {sort_field: name}}',
        'permissions: {write_dags: false, run_dags: false}',
        'auth:',
        '  oidc: {client_id: x, issuer: https://id.example}',
        'paths: {dag_runs_dir: /x, queue_dir: /y}',
        'scheduler: {failure_threshold: 3}',
        'tunnel: {enabled: false}',
        '',
      ].join('\n'),
    );
    const c = load();
    expect(c.warnings).toEqual([
      `${path.join(home, 'config.yaml')}: Dagu settings not used by this product: navbarColor, ui.navbar_title, ` +
        'ui.dags, permissions.run_dags, auth.oidc, paths.dag_runs_dir, paths.queue_dir, scheduler.failure_threshold, tunnel',
    ]);
  });

  it("reads Dagu's scheduler.retry_failure_window, 0s included (DAG-level retries off)", () => {
    expect(load().scheduler.retry_failure_window_ms).toBe(24 * 3_600_000);
    write('scheduler: {retry_failure_window: 2h}\n');
    expect(load()).toMatchObject({ scheduler: { retry_failure_window_ms: 7_200_000 }, warnings: [] });
    write('scheduler: {retry_failure_window: 0s}\n');
    expect(load().scheduler.retry_failure_window_ms).toBe(0);
  });

  it("reads Dagu's permissions.write_dags and 1.x permission_write_dags as server.permissions.write_dags", () => {
    expect(load().server.permissions.write_dags).toBe(true);
    write('permissions:\n  writeDAGs: false\n');
    expect(load().server.permissions.write_dags).toBe(false);
    write('permission_write_dags: false\n');
    expect(load().server.permissions.write_dags).toBe(false);
    write('permissions: {write_dags: false}\nserver:\n  permissions: {write_dags: true}\n');
    expect(load().server.permissions.write_dags).toBe(true);
  });

  it("follows Dagu's auth.mode: none leaves the file's credentials unused, builtin is named as missing", () => {
    write('auth:\n  mode: none\n  basic: {username: a, password: b}\n');
    let c = load();
    expect(c.auth).toEqual({ mode: 'none' });
    expect(c.warnings?.[0]).toMatch(
      /auth\.basic\.username \(auth\.mode is none\), auth\.basic\.password \(auth\.mode is none\)$/,
    );
    write('auth:\n  mode: builtin\n  builtin: {token: {secret: s}}\n');
    c = load();
    expect(c.auth).toEqual({ mode: 'none' });
    expect(c.warnings?.[0]).toMatch(
      /auth\.builtin, auth\.mode: builtin \(no user accounts here; the server is open: set auth\.basic or auth\.token\)$/,
    );
  });

  it("lets this product's key win over Dagu's name for the same setting", () => {
    write('dags_dir: theirs\npaths:\n  dags_dir: ours\n');
    expect(load().paths.dags_dir).toBe(path.join(home, 'ours'));
    write('dags_dir: theirs\n');
    expect(load({ DAGU_DAGS_DIR: '/env' }).paths.dags_dir).toBe('/env');
    expect(load({ DAGU_DAGS: '/dagu-env' }).paths.dags_dir).toBe('/dagu-env');
    expect(load({ DAGU_DAGS: '/dagu-env', DAGU_DAGS_DIR: '/env' }).paths.dags_dir).toBe('/env');
  });

  it("reads schedules in the host's zone when tz is unset or Local, as Dagu does", () => {
    expect(load({ TZ: 'Europe/Paris' }).tz).toBe('Europe/Paris');
    expect(load({ TZ: ':Asia/Tokyo' }).tz).toBe('Asia/Tokyo');
    expect(load({ TZ: ':/usr/share/zoneinfo/Asia/Tokyo' }).tz).toBe('Asia/Tokyo');
    // UTC, under any of its names, is null: schedules get no CRON_TZ= prefix.
    for (const utc of ['UTC', 'Etc/UTC', 'Universal', 'GMT', '']) expect(load({ TZ: utc }).tz).toBeNull();
    // No TZ: the system's zone, as Intl reports it.
    const system = new Intl.DateTimeFormat().resolvedOptions().timeZone;
    expect(load().tz).toBe(hostTimeZone({}));
    expect(hostTimeZone({})).toBe(/^(Etc\/)?(UTC|GMT)$/.test(system) ? null : system);
    write('tz: Local\n');
    expect(load({ TZ: 'America/New_York' }).tz).toBe('America/New_York');
    // A zone the config names wins over the host's.
    write('tz: Asia/Kolkata\n');
    expect(load({ TZ: 'America/New_York' }).tz).toBe('Asia/Kolkata');
    write('tz: Etc/UTC\n');
    expect(load({ TZ: 'America/New_York' }).tz).toBeNull();
  });

  it('still refuses keys neither product has, and bad values under Dagu names, naming the key', () => {
    write('navbar_colour: red\n');
    expect(() => load()).toThrow(/unknown key "navbar_colour"/);
    write('scheduler: {lockStaleThreshold: soon}\n');
    expect(() => load()).toThrow(/scheduler\.lockStaleThreshold in .*config\.yaml: "soon" is not a duration/);
    write('tz: Mars/Olympus\n');
    expect(() => load()).toThrow(/tz in .*: "Mars\/Olympus" is not a time zone/);
  });

  it('keeps defaults for the new settings and the zombie check on when Dagu turns it off', () => {
    expect(load({ TZ: 'UTC' })).toMatchObject({
      tz: null,
      default_shell: null,
      skip_examples: false,
      warnings: [],
    });
    expect(load().paths.base_config).toBe(path.join(home, 'base.yaml'));
    write('scheduler: {zombie_detection_interval: 0}\n');
    const c = load();
    expect(c.scheduler.zombie_check_interval_ms).toBe(10_000);
    expect(c.warnings?.[0]).toMatch(
      /scheduler\.zombie_detection_interval \(0: the check cannot be turned off here\)$/,
    );
  });

  it("leaves Dagu's own environment variables alone", () => {
    const dagu = {
      DAGU_UI_NAVBAR_COLOR: 'red',
      DAGU_AUTH_MODE: 'none',
      DAGU_QUEUE_DIR: '/q',
      DAGU_CERT_FILE: '/c',
      DAGU_SCHEDULER_ZOMBIE_DETECTION_INTERVAL: '5s',
    };
    expect(load(dagu).home).toBe(home);
    expect(load({ DAGU_PROC_HEARTBEAT_INTERVAL: '2s' }).run.heartbeat_interval_ms).toBe(2000);
  });

  it('gives every setting a field of Config, named after its key, ms for a duration', () => {
    const c = load() as unknown as Record<string, unknown>;
    const compiledTogether = new Set(['auth.basic.username', 'auth.basic.password', 'auth.token']);
    for (const s of SETTINGS.filter((row) => !compiledTogether.has(row.key))) {
      const parts = s.key.split('.');
      const last = parts.pop()!;
      const section = parts.reduce<Record<string, unknown>>((o, p) => o[p] as Record<string, unknown>, c);
      expect(section, s.key).toHaveProperty(s.kind === 'duration' ? `${last}_ms` : last);
    }
  });

  it('types each field by its row: kind, enum values, and null only where the default is unset', () => {
    expectTypeOf<Config['port']>().toEqualTypeOf<number>();
    expectTypeOf<Config['scheduler']['zombie_check_interval_ms']>().toEqualTypeOf<number>();
    expectTypeOf<Config['run']['prestart']>().toEqualTypeOf<boolean>();
    expectTypeOf<Config['log']['level']>().toEqualTypeOf<'debug' | 'info' | 'warn' | 'error'>();
    expectTypeOf<Config['default_execution_mode']>().toEqualTypeOf<'local' | 'distributed'>();
    expectTypeOf<Config['worker']['id']>().toEqualTypeOf<string | null>();
    expectTypeOf<Config['coordinator']['tls']['ca_file']>().toEqualTypeOf<string | null>();
    expectTypeOf<Config['coordinator']['url']>().toEqualTypeOf<string>();
    expectTypeOf<Config['env_passthrough']>().toEqualTypeOf<string[]>();
  });

  it('reads a key written without a value as unset, as an empty variable is', () => {
    write('port:\nrun:\n  prestart:\nscheduler:\n  lock_stale_threshold: ~\n');
    const c = load();
    expect(c.port).toBe(8080);
    expect(c.run.prestart).toBe(true);
    expect(c.scheduler.lock_stale_threshold_ms).toBe(30_000);
  });
});
