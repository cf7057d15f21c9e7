// The compiled configuration every service receives: validated once at the edge, durations in ms.

export interface QueueConfig {
  name: string;
  max_concurrency: number;
}

export interface Config {
  /** Absolute DAGU_HOME. */
  home: string;
  paths: {
    /** Absolute path of config.yaml (may not exist). */
    config_file: string;
    dags_dir: string;
    data_dir: string;
    log_dir: string;
  };
  /** Console/API bind address and port. */
  host: string;
  port: number;
  log: { level: 'debug' | 'info' | 'warn' | 'error'; format: 'json' | 'text' | 'auto' };
  scheduler: {
    lock_stale_threshold_ms: number;
    lock_retry_interval_ms: number;
    failover_recovery_window_ms: number;
    /** Health endpoint port; 0 disables it. */
    port: number;
    /** How often running runs' heartbeats are checked. */
    zombie_check_interval_ms: number;
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
}
