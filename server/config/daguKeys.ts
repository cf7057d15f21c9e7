// The keys of Dagu's own config.yaml (2.x spelling; 1.x's camelCase and Go's case-blind reading match them too)
// and what each means here, so that a Dagu home can be used as it is: a key that has a meaning in this product
// is read as the setting named, the others are named in one warning at start instead of stopping the program.

import type { SettingKey, STRUCTURED_KEYS } from './settings';

/** How a Dagu key is read here. */
export type DaguKeyUse =
  /** The value is this product's setting of that key (converted by the loader where the forms differ). */
  | { setting: SettingKey | (typeof STRUCTURED_KEYS)[number] }
  /** The loader reads it with other keys (see loadConfig's Dagu section). */
  | { special: true }
  /** No meaning here: named in the start-up warning; a mapping value is named once, as a whole. */
  | { unused: true };

const S = (setting: SettingKey | (typeof STRUCTURED_KEYS)[number]): DaguKeyUse => ({ setting });
const SPECIAL: DaguKeyUse = { special: true };
const UNUSED: DaguKeyUse = { unused: true };

/**
 * Every key of Dagu's config.yaml (1.30.2 and 2.x) by its 2.x name. Where several Dagu keys set the same
 * setting, the first one listed that the file has is used; this product's own key wins over all of them.
 */
export const DAGU_KEYS: Readonly<Record<string, DaguKeyUse>> = {
  // Web server.
  host: S('host'),
  port: S('port'),
  base_path: UNUSED,
  public_url: UNUSED,
  api_base_path: UNUSED,
  api_base_url: UNUSED,
  headless: UNUSED,
  check_updates: UNUSED,
  tls: UNUSED,
  cors_allowed_origins: UNUSED,
  ip_access: UNUSED,
  access_log_mode: UNUSED,
  // Logging and runs.
  debug: SPECIAL,
  log_format: S('log.format'),
  tz: S('tz'),
  default_shell: S('default_shell'),
  skip_examples: S('skip_examples'),
  env_passthrough: S('env_passthrough'),
  env_passthrough_prefixes: S('env_passthrough_prefixes'),
  default_execution_mode: S('default_execution_mode'),
  opencode: UNUSED,
  // Access control.
  'auth.mode': SPECIAL,
  'auth.basic.username': S('auth.basic.username'),
  'auth.basic.password': S('auth.basic.password'),
  'auth.token.value': S('auth.token'),
  'auth.oidc': UNUSED,
  'auth.proxy': UNUSED,
  'auth.builtin': UNUSED,
  basic_auth_username: S('auth.basic.username'),
  basic_auth_password: S('auth.basic.password'),
  auth_token: S('auth.token'),
  // 1.x switches of the two legacy keys above: their credentials are enough here.
  is_basic_auth: SPECIAL,
  is_auth_token: SPECIAL,
  'permissions.write_dags': S('server.permissions.write_dags'),
  'permissions.run_dags': UNUSED,
  permission_write_dags: S('server.permissions.write_dags'),
  permission_run_dags: UNUSED,
  remote_nodes: UNUSED,
  // Directories.
  'paths.dags_dir': S('paths.dags_dir'),
  'paths.log_dir': S('paths.log_dir'),
  'paths.data_dir': S('paths.data_dir'),
  'paths.base_config': S('paths.base_config'),
  'paths.suspend_flags_dir': S('paths.suspend_flags_dir'),
  dags_dir: S('paths.dags_dir'),
  dags: S('paths.dags_dir'),
  log_dir: S('paths.log_dir'),
  data_dir: S('paths.data_dir'),
  base_config: S('paths.base_config'),
  executable: UNUSED,
  artifact_dir: UNUSED,
  suspend_flags_dir: S('paths.suspend_flags_dir'),
  admin_logs_dir: UNUSED,
  event_store_dir: UNUSED,
  ...Object.fromEntries(
    [
      'executable',
      'wiki_dir',
      'docs_dir',
      'artifact_dir',
      'dag_state_dir',
      'tools_dir',
      'admin_logs_dir',
      'event_store_dir',
      'alt_dags_dir',
      'dag_runs_dir',
      'dag_run_work_dir',
      'queue_dir',
      'proc_dir',
      'service_registry_dir',
      'users_dir',
      'api_keys_dir',
      'webhooks_dir',
      'contexts_dir',
      'remote_nodes_dir',
      'workspaces_dir',
      'views_dir',
    ].map((k) => [`paths.${k}`, UNUSED]),
  ),
  dag_discovery: UNUSED,
  secrets: UNUSED,
  // Console.
  log_encoding_charset: UNUSED,
  navbar_color: UNUSED,
  navbar_title: UNUSED,
  max_dashboard_page_limit: UNUSED,
  latest_status_today: UNUSED,
  'ui.log_encoding_charset': UNUSED,
  'ui.navbar_color': UNUSED,
  'ui.navbar_title': UNUSED,
  'ui.max_dashboard_page_limit': UNUSED,
  'ui.dags': UNUSED,
  metrics: UNUSED,
  cache: UNUSED,
  terminal: UNUSED,
  monitoring: UNUSED,
  // Scheduler and run heartbeats.
  'scheduler.port': S('scheduler.port'),
  'scheduler.lock_stale_threshold': S('scheduler.lock_stale_threshold'),
  'scheduler.lock_retry_interval': S('scheduler.lock_retry_interval'),
  'scheduler.zombie_detection_interval': SPECIAL,
  'scheduler.retry_failure_window': S('scheduler.retry_failure_window'),
  'scheduler.failure_threshold': UNUSED,
  'proc.heartbeat_interval': S('run.heartbeat_interval'),
  'proc.stale_threshold': S('run.heartbeat_stale_threshold'),
  'proc.heartbeat_sync_interval': UNUSED,
  'scheduler.heartbeat_interval': S('run.heartbeat_interval'),
  'scheduler.stale_threshold': S('run.heartbeat_stale_threshold'),
  'scheduler.heartbeat_sync_interval': UNUSED,
  'queues.enabled': S('queues.enabled'),
  'queues.config': S('queues.config'),
  // Coordinator and workers.
  'coordinator.host': S('coordinator.host'),
  'coordinator.port': S('coordinator.port'),
  'coordinator.advertise': SPECIAL,
  'coordinator.enabled': UNUSED,
  'coordinator.health_port': UNUSED,
  'worker.id': S('worker.id'),
  'worker.max_active_runs': S('worker.max_active_runs'),
  'worker.labels': S('worker.labels'),
  'worker.coordinators': SPECIAL,
  'worker.health_port': UNUSED,
  'worker.postgres_pool': UNUSED,
  peer: UNUSED,
  // Features of Dagu this product does not have.
  audit: UNUSED,
  event_store: UNUSED,
  webhooks: UNUSED,
  sse: UNUSED,
  git_sync: UNUSED,
  tunnel: UNUSED,
  license: UNUSED,
};

/** A key path as Go's config reader sees it: case and `_` do not matter (`dagsDir`, `dags_dir`, `DAGSDIR`). */
export function foldKey(key: string): string {
  return key
    .split('.')
    .map((part) => part.toLowerCase().replace(/_/g, ''))
    .join('.');
}

const FOLDED = new Map(Object.entries(DAGU_KEYS).map(([k, use]) => [foldKey(k), { key: k, use }]));
const FOLDED_SECTIONS = new Set(
  [...FOLDED.keys()].flatMap((k) =>
    k
      .split('.')
      .slice(0, -1)
      .map((_, i, a) => a.slice(0, i + 1).join('.')),
  ),
);

/** The Dagu key a config.yaml key path is (in any spelling), with its use; null if Dagu has no such key. */
export function daguKey(path: string): { key: string; use: DaguKeyUse } | null {
  return FOLDED.get(foldKey(path)) ?? null;
}

/** Whether Dagu has keys under this path (`scheduler`, `auth.basic`), in any spelling. */
export function isDaguSection(path: string): boolean {
  return FOLDED_SECTIONS.has(foldKey(path));
}
