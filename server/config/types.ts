// The compiled configuration every service receives: validated once at the edge, durations in ms. Its type
// follows from the settings table (settings.ts).

import type { SettingsTree } from './settings';

export interface QueueConfig {
  name: string;
  max_concurrency: number;
}

/** The configured protection of the web server: one mode, with its credentials. */
export type AuthConfig =
  { mode: 'none' } | { mode: 'basic'; username: string; password: string } | { mode: 'token'; token: string };

/** `A` with the fields of `B` in place of its own. */
type Replace<A, B> = Omit<A, keyof B> & B;

type Tree = SettingsTree;

/**
 * Every setting of the table as a field (see `SettingsTree`: `scheduler.zombie_check_interval` is
 * `scheduler.zombie_check_interval_ms`), with these compiled from several settings or from the file alone.
 */
export type Config = Replace<
  Tree,
  {
    /** Absolute DAGU_HOME. */
    home: string;
    paths: {
      /** Absolute path of config.yaml (may not exist). */
      config_file: string;
      dags_dir: string;
      data_dir: string;
      log_dir: string;
      /** Absolute directory of the suspend flags (`<dag>.suspend`); default `<data_dir>/suspend`. */
      suspend_flags_dir: string;
      /** Absolute path of Dagu's base config, merged under every DAG (may not exist). Unset: no base config. */
      base_config?: string;
    };
    /** Who may use the console, the API and /metrics; `none` unless auth.basic or auth.token is set. */
    auth: AuthConfig;
    queues: Tree['queues'] & { config: QueueConfig[] };
    /** Host environment variables step processes get besides the built-in list (exact names). */
    env_passthrough: string[];
    /** Host environment variable name prefixes step processes get besides the built-in ones. */
    env_passthrough_prefixes: string[];
    coordinator: Replace<
      Tree['coordinator'],
      {
        /** Base URL clients use, without a trailing slash. */
        url: string;
      }
    >;
    worker: Replace<
      Tree['worker'],
      {
        labels: Record<string, string>;
        /** Absolute local directory for the runs a worker executes. */
        work_dir: string;
      }
    >;
    /** Lines to log once at start: Dagu settings in config.yaml that have no meaning here. */
    warnings?: string[];
  }
>;
