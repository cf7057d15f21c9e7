// The compiled configuration every service receives: validated once at the edge, durations in ms.

export interface QueueConfig {
  name: string;
  max_concurrency: number;
}

/** The configured protection of the web server: one mode, with its credentials. */
export type AuthConfig =
  { mode: 'none' } | { mode: 'basic'; username: string; password: string } | { mode: 'token'; token: string };

export interface Config {
  /** Absolute DAGU_HOME. */
  home: string;
  paths: {
    /** Absolute path of config.yaml (may not exist). */
    config_file: string;
    dags_dir: string;
    data_dir: string;
    log_dir: string;
    /** Absolute path of Dagu's base config, merged under every DAG (may not exist). Unset: no base config. */
    base_config?: string;
  };
  /** Console/API bind address and port. */
  host: string;
  port: number;
  /** Who may use the console, the API and /metrics; `none` unless auth.basic or auth.token is set. */
  auth: AuthConfig;
  log: { level: 'debug' | 'info' | 'warn' | 'error'; format: 'json' | 'text' | 'auto' };
  scheduler: {
    lock_stale_threshold_ms: number;
    lock_retry_interval_ms: number;
    failover_recovery_window_ms: number;
    /** Health endpoint port; 0 disables it. */
    port: number;
    /** How often running runs' heartbeats are checked. */
    zombie_check_interval_ms: number;
    /** How often old runs are removed by their DAG's retention keys. */
    history_retention_interval_ms: number;
  };
  run: {
    /** How often a run process refreshes its heartbeat file. */
    heartbeat_interval_ms: number;
    /** A running run whose heartbeat is older than this is marked failed. */
    heartbeat_stale_threshold_ms: number;
    /** Time between SIGTERM and SIGKILL when a run is stopped. */
    kill_grace_ms: number;
    /** Keep a pre-started run process ready while active. */
    prestart: boolean;
  };
  queues: { enabled: boolean; config: QueueConfig[] };
  /** `distributed`: DAGs without a selector are dispatched too (matching any worker). */
  default_execution_mode: 'local' | 'distributed';
  /** Host environment variables step processes get besides the built-in list (exact names). */
  env_passthrough: string[];
  /** Host environment variable name prefixes step processes get besides the built-in ones. */
  env_passthrough_prefixes: string[];
  coordinator: {
    host: string;
    port: number;
    /** Base URL clients use, without a trailing slash. */
    url: string;
    /** Bearer token required on every request when set. */
    token: string | null;
    tls: { cert_file: string | null; key_file: string | null; ca_file: string | null };
    /** How long a dispatch no healthy worker matches is held; 0 refuses it at once. */
    worker_wait_timeout_ms: number;
    /** Period of the detector that fails expired holds and runs of silent workers. */
    detection_interval_ms: number;
    /** A worker heartbeat older than this makes the worker unhealthy. */
    worker_stale_threshold_ms: number;
    /** A claim not acknowledged within this goes back to pending. */
    reservation_ttl_ms: number;
    /** A worker record silent for longer than this (and owning no runs) is removed; 0 keeps it. */
    worker_retention_ms: number;
  };
  worker: {
    /** Null: `<hostname>-<pid>`. */
    id: string | null;
    labels: Record<string, string>;
    max_active_runs: number;
    heartbeat_interval_ms: number;
    /** Absolute local directory for the runs a worker executes. */
    work_dir: string;
  };
  /** IANA time zone of schedules without `CRON_TZ=`; null or unset: UTC. */
  tz?: string | null;
  /** Shell of DAGs that set none, themselves or in the base config; null or unset: the built-in choice. */
  default_shell?: string | null;
  /** Do not seed a new DAGs directory with the example DAGs. */
  skip_examples?: boolean;
  /** Lines to log once at start: Dagu settings in config.yaml that have no meaning here. */
  warnings?: string[];
}
