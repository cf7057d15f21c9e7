// The keys of Dagu 2.x's DAG file (the root and step properties of its JSON schema,
// internal/cmn/schema/dag.schema.json of dagucloud/dagu), and the key rows docs/dag-reference.md has, so a test
// can hold the page to the language it documents.

/** Root keys of Dagu's DAG schema (v2.15), in the schema's order. */
export const DAGU_ROOT_KEYS: readonly string[] = [
  'name',
  'description',
  'group',
  'dotenv',
  'working_dir',
  'consts',
  'schedule',
  'skip_if_successful',
  'catchup_window',
  'overlap_policy',
  'labels',
  'tags',
  'type',
  'tasks',
  'env',
  'secrets',
  'tools',
  'defaults',
  'retry_policy',
  'log_dir',
  'artifacts',
  'log_output',
  'handler_on',
  'step_types',
  'actions',
  'smtp',
  'mail_on',
  'error_mail',
  'info_mail',
  'timeout_sec',
  'delay_sec',
  'restart_wait_sec',
  'hist_retention_days',
  'hist_retention_runs',
  'max_active_runs',
  'queue',
  'max_active_steps',
  'max_clean_up_time_sec',
  'max_output_size',
  'preconditions',
  'params',
  'container',
  'resources',
  'registry_auths',
  'ssh',
  's3',
  'llm',
  'harness',
  'harnesses',
  'steps',
  'otel',
  'run_config',
  'webhook',
  'worker_selector',
  'shell',
  'shell_args',
  'redis',
  'kubernetes',
];

/** Step keys of Dagu's DAG schema (v2.15), in the schema's order. */
export const DAGU_STEP_KEYS: readonly string[] = [
  'name',
  'id',
  'description',
  'working_dir',
  'run',
  'action',
  'command',
  'exec',
  'shell',
  'shell_args',
  'shell_packages',
  'script',
  'stdout',
  'stderr',
  'log_output',
  'output',
  'output_schema',
  'outputs',
  'inputs',
  'dependencies',
  'depends',
  'continue_on',
  'retry_policy',
  'repeat_policy',
  'mail_on_error',
  'preconditions',
  'signal_on_stop',
  'timeout_sec',
  'call',
  'params',
  'parallel',
  'foreach',
  'worker_selector',
  'env',
  'container',
  'type',
  'with',
  'config',
  'llm',
  'approval',
  'messages',
  'tools',
  'value',
  'routes',
];

/** `handler_on` keys of Dagu's DAG schema. */
export const DAGU_HANDLER_KEYS: readonly string[] = ['init', 'failure', 'success', 'abort', 'exit', 'wait'];

/**
 * Root keys the page documents that the schema lacks: Dagu's loader reads `wait_mail`, and `signal_handling` is
 * this product's own.
 */
export const EXTRA_ROOT_KEYS: readonly string[] = ['wait_mail', 'signal_handling'];

/**
 * The key rows of a Markdown page: each table row whose first cell is one code span, as the cell's text mapped to
 * the rest of the row (`steps[].run` → `| supported | ... |`).
 */
export function keyRows(markdown: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of markdown.split('\n')) {
    const m = /^\|\s*`([^`]+)`\s*\|(.*)$/.exec(line);
    if (m && !rows.has(m[1])) rows.set(m[1], m[2]);
  }
  return rows;
}
