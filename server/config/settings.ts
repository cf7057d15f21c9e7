// The table of every scalar setting: its key, environment variable, default and kind.
// The loader, the validator, the generated configuration reference and the type of `Config` all read this
// one table: a new setting is one row (and a value in `Config` of the type its kind gives).

import { WORKER_ID_PATTERN } from '../core/workerId';

export type SettingKind = 'duration' | 'port' | 'bool' | 'string' | 'int' | 'enum' | 'list';

interface SettingBase {
  /** snake_case key path in config.yaml, e.g. `scheduler.lock_stale_threshold`. */
  key: string;
  env: string;
  /** Extra environment variable names accepted for compatibility. */
  envAliases?: readonly string[];
  /** The command-line flag that sets it, without dashes, when it is not the key's last part. */
  flag?: string;
  doc: string;
}

/** One row of the table; `default` is written as in config.yaml (durations as Go strings), null for unset. */
export type Setting = SettingBase &
  (
    | {
        kind: 'duration';
        default: string;
        /** Whether 0 is allowed (otherwise it must be positive). */
        allowZero?: boolean;
      }
    | {
        kind: 'port';
        default: number;
        /** Whether 0 (disabled) is allowed. */
        portZeroDisables?: boolean;
      }
    | { kind: 'bool'; default: boolean }
    | {
        kind: 'string';
        default: string | null;
        /** A pattern the value must match (it becomes part of a path or a protocol field). */
        pattern?: { regex: RegExp; what: string };
      }
    | {
        kind: 'int';
        default: number;
        /** The smallest value allowed. */
        min?: number;
        /** The largest value allowed. */
        max?: number;
      }
    | {
        kind: 'enum';
        /** Allowed values. */
        values: readonly string[];
        default: string;
      }
    | { kind: 'list'; default: null }
  );

const TABLE = [
  {
    key: 'host',
    env: 'DAGU_HOST',
    kind: 'string',
    default: '127.0.0.1',
    doc: 'Address the web server binds to',
  },
  {
    key: 'port',
    env: 'DAGU_PORT',
    kind: 'port',
    default: 8080,
    doc: 'Port of the web server (console, API, /metrics)',
  },
  {
    key: 'auth.basic.username',
    env: 'DAGU_AUTH_BASIC_USERNAME',
    kind: 'string',
    default: null,
    doc: 'User name of HTTP basic auth for the console, the API and /metrics (with auth.basic.password)',
  },
  {
    key: 'auth.basic.password',
    env: 'DAGU_AUTH_BASIC_PASSWORD',
    kind: 'string',
    default: null,
    doc: 'Password of HTTP basic auth (with auth.basic.username)',
  },
  {
    key: 'auth.token',
    env: 'DAGU_AUTH_TOKEN',
    kind: 'string',
    default: null,
    doc: 'Bearer token the API and /metrics require (the console signs in with it); exclusive with auth.basic',
  },
  {
    key: 'server.permissions.write_dags',
    env: 'DAGU_SERVER_PERMISSIONS_WRITE_DAGS',
    kind: 'bool',
    default: true,
    doc: "Whether the console and the API may create, edit, rename and delete DAG files; false: the DAG pages are read-only and those calls answer 403 (Dagu's permissions.write_dags)",
  },
  {
    key: 'paths.dags_dir',
    env: 'DAGU_DAGS_DIR',
    envAliases: ['DAGU_DAGS'],
    kind: 'string',
    default: null,
    doc: 'Directory of DAG files (default: DAGU_HOME/dags). Not read with storage.backend postgres: the DAGs are in the database, and each host reads its copy of them in <paths.data_dir>/dags-mirror',
  },
  {
    key: 'paths.data_dir',
    env: 'DAGU_DATA_DIR',
    kind: 'string',
    default: null,
    doc: 'Directory of run records, queues, locks and events (default: DAGU_HOME/data)',
  },
  {
    key: 'paths.log_dir',
    env: 'DAGU_LOG_DIR',
    kind: 'string',
    default: null,
    doc: 'Directory of step logs (default: DAGU_HOME/logs)',
  },
  {
    key: 'paths.suspend_flags_dir',
    env: 'DAGU_SUSPEND_FLAGS_DIR',
    kind: 'string',
    default: null,
    doc: 'Directory of the suspend flags, one <dag>.suspend file per suspended DAG (default: DAGU_HOME/suspend when it exists, as in a Dagu home, else <paths.data_dir>/suspend)',
  },
  {
    key: 'paths.base_config',
    env: 'DAGU_BASE_CONFIG',
    kind: 'string',
    default: null,
    doc: "Dagu's base config: a DAG file whose keys every DAG inherits (default: DAGU_HOME/base.yaml; a missing file is no base)",
  },
  {
    key: 'log.level',
    env: 'DAGU_LOG_LEVEL',
    kind: 'enum',
    values: ['debug', 'info', 'warn', 'error'],
    default: 'info',
    doc: 'Lowest level of log lines written',
  },
  {
    key: 'log.format',
    env: 'DAGU_LOG_FORMAT',
    kind: 'enum',
    values: ['auto', 'json', 'text'],
    default: 'auto',
    doc: 'json: one JSON object a line; text: readable; auto: text on a terminal, json otherwise',
  },
  {
    key: 'scheduler.lock_stale_threshold',
    env: 'DAGU_SCHEDULER_LOCK_STALE_THRESHOLD',
    kind: 'duration',
    default: '30s',
    doc: 'Age at which a lock can be taken over',
  },
  {
    key: 'scheduler.lock_retry_interval',
    env: 'DAGU_SCHEDULER_LOCK_RETRY_INTERVAL',
    kind: 'duration',
    default: '5s',
    doc: 'How often a standby tries the lock',
  },
  {
    key: 'scheduler.failover_recovery_window',
    env: 'DAGU_SCHEDULER_FAILOVER_RECOVERY_WINDOW',
    kind: 'duration',
    default: '2m',
    allowZero: true,
    doc: 'How far back a takeover replays missed slots; 0s disables it',
  },
  {
    key: 'scheduler.port',
    flag: 'scheduler-port',
    env: 'DAGU_SCHEDULER_PORT',
    kind: 'port',
    default: 8090,
    portZeroDisables: true,
    doc: 'Port of the health endpoint; 0 disables it',
  },
  {
    key: 'scheduler.retry_failure_window',
    env: 'DAGU_SCHEDULER_RETRY_FAILURE_WINDOW',
    kind: 'duration',
    default: '24h',
    allowZero: true,
    doc: "DAG-level retry_policy: the active scheduler starts the next attempt of a failed run created this recently, once the policy's interval has passed (checked every scheduler.zombie_check_interval, or sooner when a retry falls due); 0s turns DAG-level retries off, as in Dagu",
  },
  {
    key: 'scheduler.zombie_check_interval',
    env: 'DAGU_SCHEDULER_ZOMBIE_CHECK_INTERVAL',
    kind: 'duration',
    default: '10s',
    doc: 'How often the active scheduler looks for runs whose process died',
  },
  {
    key: 'scheduler.history_retention_interval',
    env: 'DAGU_SCHEDULER_HISTORY_RETENTION_INTERVAL',
    kind: 'duration',
    default: '10m',
    doc: "How often the active scheduler removes runs past their DAG's hist_retention_days / hist_retention_runs",
  },
  {
    key: 'run.heartbeat_interval',
    env: 'DAGU_RUN_HEARTBEAT_INTERVAL',
    envAliases: ['DAGU_PROC_HEARTBEAT_INTERVAL'],
    kind: 'duration',
    default: '5s',
    doc: 'How often a run process refreshes its heartbeat',
  },
  {
    key: 'run.heartbeat_stale_threshold',
    env: 'DAGU_RUN_HEARTBEAT_STALE_THRESHOLD',
    envAliases: ['DAGU_PROC_STALE_THRESHOLD'],
    kind: 'duration',
    default: '45s',
    doc: 'A running run whose heartbeat is older than this is marked failed',
  },
  {
    key: 'run.kill_grace',
    env: 'DAGU_RUN_KILL_GRACE',
    kind: 'duration',
    default: '5s',
    doc: 'Time between SIGTERM and SIGKILL when a run is stopped or times out',
  },
  {
    key: 'run.prestart',
    env: 'DAGU_RUN_PRESTART',
    kind: 'bool',
    default: true,
    doc: 'The active scheduler keeps one run process loaded ahead of time (about 40 MB), so a slot starts without waiting for Node; it only runs the build on disk',
  },
  {
    key: 'run.host_max_runs',
    env: 'DAGU_RUN_HOST_MAX_RUNS',
    kind: 'int',
    min: 0,
    max: 1000,
    default: 32,
    doc: 'When the scheduler starts more than a few runs at once (a busy slot), it starts them in shared run host processes of at most this many runs each, not one process per run; 0 or 1 starts every run in its own process',
  },
  {
    key: 'run.lanes',
    env: 'DAGU_RUN_LANES',
    kind: 'int',
    min: 0,
    max: 64,
    default: 2,
    doc: 'While a queue has more runs waiting than it may start, the scheduler starts up to this many run lanes: processes that take one queued run after another (up to run.host_max_runs at once), so that each run does not pay for a new process and, on PostgreSQL, a new connection; an idle lane exits after 2s; 0 starts every queued run in its own process',
  },
  {
    key: 'queues.enabled',
    env: 'DAGU_QUEUES_ENABLED',
    envAliases: ['DAGU_QUEUE_ENABLED'],
    kind: 'bool',
    default: true,
    doc: 'Whether runs can be queued (and missed slots replayed)',
  },
  {
    key: 'default_execution_mode',
    env: 'DAGU_DEFAULT_EXECUTION_MODE',
    kind: 'enum',
    values: ['local', 'distributed'],
    default: 'local',
    doc: 'distributed: DAGs without a worker_selector also go to the coordinator (an empty selector matches any worker)',
  },
  {
    key: 'coordinator.host',
    flag: 'coordinator-host',
    env: 'DAGU_COORDINATOR_HOST',
    kind: 'string',
    default: '127.0.0.1',
    doc: 'Address the coordinator binds to',
  },
  {
    key: 'coordinator.port',
    flag: 'coordinator-port',
    env: 'DAGU_COORDINATOR_PORT',
    kind: 'port',
    default: 50055,
    doc: 'Port of the worker-facing coordinator API and its /health',
  },
  {
    key: 'coordinator.url',
    flag: 'coordinator',
    env: 'DAGU_COORDINATOR_URL',
    kind: 'string',
    default: null,
    doc: 'Where workers and other hosts reach the coordinator (default: http(s)://coordinator.host:coordinator.port)',
  },
  {
    key: 'coordinator.token',
    env: 'DAGU_COORDINATOR_TOKEN',
    kind: 'string',
    default: null,
    doc: 'Bearer token every coordinator request must carry; unset: no token is asked for',
  },
  {
    key: 'coordinator.tls.cert_file',
    env: 'DAGU_COORDINATOR_TLS_CERT_FILE',
    kind: 'string',
    default: null,
    doc: 'PEM certificate; with key_file the coordinator serves HTTPS',
  },
  {
    key: 'coordinator.tls.key_file',
    env: 'DAGU_COORDINATOR_TLS_KEY_FILE',
    kind: 'string',
    default: null,
    doc: 'PEM private key of cert_file',
  },
  {
    key: 'coordinator.tls.ca_file',
    env: 'DAGU_COORDINATOR_TLS_CA_FILE',
    kind: 'string',
    default: null,
    doc: 'PEM CA bundle clients use to verify the coordinator (for a private CA or a self-signed certificate)',
  },
  {
    key: 'coordinator.worker_wait_timeout',
    env: 'DAGU_COORDINATOR_WORKER_WAIT_TIMEOUT',
    kind: 'duration',
    default: '2m',
    allowZero: true,
    doc: 'How long a dispatch whose selector matches no healthy worker is held for one to arrive; 0 refuses at once',
  },
  {
    key: 'coordinator.detection_interval',
    env: 'DAGU_COORDINATOR_DETECTION_INTERVAL',
    kind: 'duration',
    default: '5s',
    doc: 'How often the coordinator fails held runs past their wait and runs of workers that stopped heartbeating',
  },
  {
    key: 'coordinator.worker_stale_threshold',
    env: 'DAGU_COORDINATOR_WORKER_STALE_THRESHOLD',
    kind: 'duration',
    default: '10s',
    doc: 'A worker whose last heartbeat is older than this is not healthy: nothing is dispatched to it and its runs are failed',
  },
  {
    key: 'coordinator.reservation_ttl',
    env: 'DAGU_COORDINATOR_RESERVATION_TTL',
    kind: 'duration',
    default: '30s',
    doc: 'A claimed task not acknowledged within this goes back to pending; an unheld task nobody claims within it fails its run',
  },
  {
    key: 'coordinator.worker_retention',
    env: 'DAGU_COORDINATOR_WORKER_RETENTION',
    kind: 'duration',
    default: '24h',
    allowZero: true,
    doc: 'The record of a worker silent for longer than this (and owning no runs) is removed from the worker list; 0s keeps records forever',
  },
  {
    key: 'worker.id',
    flag: 'id',
    env: 'DAGU_WORKER_ID',
    kind: 'string',
    default: null,
    pattern: { regex: WORKER_ID_PATTERN, what: 'use 1 to 128 letters, digits, "_", ".", "@" or "-"' },
    doc: 'Worker ID (default: <hostname>-<pid>)',
  },
  {
    key: 'worker.labels',
    flag: 'labels',
    env: 'DAGU_WORKER_LABELS',
    kind: 'string',
    default: null,
    doc: 'Labels as key=value,key2=value2; selectors match them exactly',
  },
  {
    key: 'worker.max_active_runs',
    flag: 'max-active-runs',
    env: 'DAGU_WORKER_MAX_ACTIVE_RUNS',
    kind: 'int',
    min: 1,
    // The coordinator refuses heartbeats announcing more.
    max: 100_000,
    default: 4,
    doc: 'How many runs the worker executes at once',
  },
  {
    key: 'worker.heartbeat_interval',
    env: 'DAGU_WORKER_HEARTBEAT_INTERVAL',
    kind: 'duration',
    default: '1s',
    doc: 'How often a worker heartbeats to the coordinator (its runs and labels ride along)',
  },
  {
    key: 'tz',
    env: 'DAGU_TZ',
    kind: 'string',
    default: null,
    doc: "IANA time zone of the schedules that name none with CRON_TZ= (unset: the host's, from TZ or /etc/localtime, as in Dagu; every scheduler host must have the same)",
  },
  {
    key: 'default_shell',
    env: 'DAGU_DEFAULT_SHELL',
    kind: 'string',
    default: null,
    doc: 'Shell of the steps whose DAG (and base config) set no shell (unset: the built-in choice)',
  },
  {
    key: 'skip_examples',
    env: 'DAGU_SKIP_EXAMPLES',
    kind: 'bool',
    default: false,
    doc: "Do not write the example DAGs and Dagu's default base.yaml into a DAGU_HOME created on first start",
  },
  {
    key: 'env_passthrough',
    env: 'DAGU_ENV_PASSTHROUGH',
    kind: 'list',
    default: null,
    doc: 'Names of host environment variables that step processes receive besides the built-in list (PATH, HOME, LANG, ...)',
  },
  {
    key: 'env_passthrough_prefixes',
    env: 'DAGU_ENV_PASSTHROUGH_PREFIXES',
    kind: 'list',
    default: null,
    doc: 'Prefixes of host environment variable names that step processes receive besides DAGU_, DAG_, LC_ and KUBERNETES_',
  },
  {
    key: 'worker.work_dir',
    env: 'DAGU_WORKER_WORK_DIR',
    kind: 'string',
    default: null,
    doc: 'Local directory where a worker keeps the DAGs, logs and status of the runs it executes (default: DAGU_HOME/worker)',
  },
  {
    key: 'storage.backend',
    env: 'DAGU_STORAGE_BACKEND',
    kind: 'enum',
    values: ['file', 'postgres'],
    default: 'file',
    doc: 'Where the control plane keeps runs, queues, the scheduler lock, dispatch tasks, events, logs and DAGs: files under DAGU_HOME (shared storage) or PostgreSQL',
  },
  {
    key: 'storage.postgres.url',
    env: 'DAGU_POSTGRES_URL',
    kind: 'string',
    default: null,
    doc: 'PostgreSQL connection URL (postgres://user@host:5432/db?sslmode=require), required when storage.backend is postgres; a password in it is never logged',
  },
  {
    key: 'storage.postgres.password_file',
    env: 'DAGU_POSTGRES_PASSWORD_FILE',
    kind: 'string',
    default: null,
    doc: 'File whose content (trailing newline removed) is the database password, e.g. a mounted Secret; used when the URL has no password',
  },
  {
    key: 'storage.postgres.pool_size',
    env: 'DAGU_POSTGRES_POOL_SIZE',
    kind: 'int',
    min: 1,
    max: 1000,
    default: 10,
    doc: 'Most connections one process opens for its stores (the scheduler lock and the wake-up listener each hold one more)',
  },
  {
    key: 'storage.postgres.schema',
    env: 'DAGU_POSTGRES_SCHEMA',
    kind: 'string',
    default: 'dagu',
    pattern: {
      // PostgreSQL's own schemas: pg_* are refused by the server, and information_schema takes tables that
      // pg_dump then leaves out of every backup.
      regex: /^(?!pg_|information_schema$)[a-z_][a-z0-9_]{0,62}$/,
      what: 'use a lower-case SQL identifier: letters, digits and "_", not starting with a digit, and not a schema of PostgreSQL itself (pg_..., information_schema)',
    },
    doc: 'Schema that holds every table; created and migrated by dagu itself',
  },
  {
    key: 'storage.postgres.auto_migrate',
    env: 'DAGU_POSTGRES_AUTO_MIGRATE',
    kind: 'bool',
    default: true,
    doc: 'Create and migrate the schema at start (under a lock, so two hosts never migrate at once); when false, `dagu storage schema --apply` does it and a process refuses a schema behind its build',
  },
  {
    key: 'storage.postgres.named_statements',
    env: 'DAGU_POSTGRES_NAMED_STATEMENTS',
    kind: 'bool',
    default: true,
    doc: 'Prepare each statement once per connection (the server parses and plans it once, not at every execution); turn off behind a pooler in transaction mode that does not carry prepared statements (PgBouncer before 1.21, or without max_prepared_statements)',
  },
  {
    key: 'storage.postgres.connect_timeout',
    env: 'DAGU_POSTGRES_CONNECT_TIMEOUT',
    kind: 'duration',
    default: '5s',
    doc: 'How long a connection attempt may take before it fails',
  },
  {
    key: 'storage.postgres.service_statement_timeout',
    env: 'DAGU_POSTGRES_SERVICE_STATEMENT_TIMEOUT',
    kind: 'duration',
    default: '1m',
    allowZero: true,
    doc: 'How long one statement of a long-running service (scheduler, coordinator, console server) may run, or leave its transaction idle, before it is cancelled and its work retried on the next pass; 0s: no limit. Commands and run processes use a quarter of run.heartbeat_stale_threshold (2s to 10s); schema migrations are never limited',
  },
] as const satisfies readonly Setting[];

/** Every setting, in the order the configuration reference lists them. */
export const SETTINGS: readonly Setting[] = TABLE;

/** Keys that take structured values in config.yaml only (no environment variable). */
export const STRUCTURED_KEYS = ['queues.config'] as const;

type Row = (typeof TABLE)[number];

/** The key of a setting in the table, e.g. `scheduler.lock_stale_threshold`. */
export type SettingKey = Row['key'];

/** The table's row of a setting. */
export type SettingOf<K extends SettingKey> = Extract<Row, { key: K }>;

/** A compiled value by the row's kind: milliseconds for a duration, an enum's own values, names for a list. */
type KindValue<S> = S extends { kind: 'duration' | 'port' | 'int' }
  ? number
  : S extends { kind: 'bool' }
    ? boolean
    : S extends { kind: 'enum'; values: readonly (infer V)[] }
      ? V
      : S extends { kind: 'list' }
        ? string[]
        : string;

/** The compiled value of a setting; null only where its default is null (it may be left unset). */
export type SettingValue<K extends SettingKey> =
  KindValue<SettingOf<K>> | (SettingOf<K>['default'] extends null ? null : never);

/** Every setting's compiled value, by key. */
export type SettingValues = { [K in SettingKey]: SettingValue<K> };

/** The name of a setting's field in `Config`: the key's last part, `_ms` added for a duration. */
export function fieldName(s: Setting): string {
  const last = s.key.slice(s.key.lastIndexOf('.') + 1);
  return s.kind === 'duration' ? `${last}_ms` : last;
}

type FieldName<Name extends string, R extends Row> = R extends { kind: 'duration' } ? `${Name}_ms` : Name;

/** The first part of every key under prefix `P` that has more parts (`scheduler` under ``, `tls` under `coordinator.`). */
type SectionsAt<P extends string, K extends string = SettingKey> = K extends `${P}${infer H}.${string}`
  ? H
  : never;

/**
 * The settings under key prefix `P` as nested objects, one field a row: `scheduler.lock_stale_threshold` (a
 * duration) is `scheduler.lock_stale_threshold_ms: number`. `Config` is this tree with the few fields compiled
 * from several settings (paths, auth, labels, the coordinator URL) replaced.
 */
export type SettingsTree<P extends string = ''> = {
  [
    R in Row as R['key'] extends `${P}${infer Name}`
      ? Name extends `${string}.${string}`
        ? never
        : FieldName<Name, R>
      : never
  ]: SettingValue<R['key']>;
} & { [H in SectionsAt<P>]: SettingsTree<`${P}${H}.`> };
