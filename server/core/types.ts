// The shared vocabulary of dagu: DAG definitions as parsed, and run records as persisted and served.
// Field names of persisted/served records are snake_case; states are string unions shown verbatim.

import type { BuildInputSpec, StepBuildStatus } from './build/types';

/** How a run came to be. Shown verbatim in the API and the console. */
export type TriggerType = 'scheduler' | 'manual' | 'catchup' | 'retry' | 'subdag' | 'queue';

/**
 * Life-cycle of one run attempt. `queued` runs have a queue item; the others are terminal except `running`.
 * `waiting`: the attempt ended at open human tasks or step approvals (Dagu's waiting checkpoint); completing
 * or approving them resumes the run in a new attempt, and stopping it aborts it.
 */
export type RunState =
  | 'queued'
  | 'running'
  | 'waiting'
  | 'succeeded'
  | 'partially_succeeded'
  | 'failed'
  | 'aborted'
  /** A step approval was rejected while the run waited (Dagu's `rejected`): the run is over. */
  | 'rejected';

/** Life-cycle of one step inside a run. */
export type StepState =
  | 'not_started'
  | 'running'
  | 'retrying'
  /** An open human task or a step waiting for its approval (`dagu human-task complete`, `dagu approval`). */
  | 'waiting'
  /** A step whose approval was rejected (`dagu approval reject`). */
  | 'rejected'
  | 'succeeded'
  | 'partially_succeeded'
  | 'failed'
  | 'skipped'
  | 'aborted';

/** States in which no process runs the attempt (`waiting` too: its run process has exited). */
export const TERMINAL_RUN_STATES: readonly RunState[] = [
  'waiting',
  'succeeded',
  'partially_succeeded',
  'failed',
  'aborted',
  'rejected',
];

export type OverlapPolicy = 'skip' | 'all' | 'latest';

/** A step-level retry policy. Intervals are in seconds as in the DAG file. */
export interface StepRetryPolicy {
  limit: number;
  interval_sec: number;
  /** Multiplier applied to the interval after each attempt; 1 (or false) means a constant interval. */
  backoff: number;
  max_interval_sec: number | null;
  /** Counts written as text with a reference (`limit: "${RETRIES}"`), resolved when the step starts. */
  deferred?: DeferredCounts;
}

/**
 * Counts of a step's retry or repeat policy written as text with a `$` reference, by key: Dagu resolves them
 * when the step starts (the run scope and the host environment, no command substitution) and reads the
 * result as a whole number. The numeric field beside each is a placeholder until then.
 */
export type DeferredCounts = Partial<Record<'limit' | 'interval_sec' | 'max_interval_sec', string>>;

/**
 * What a step executes besides a shell command (issue 14). `command` covers `run:`, legacy `command`/`script`
 * and `action: exec`-less shell steps; the others are Dagu's named actions this product runs itself.
 */
export type StepAction =
  | { kind: 'command' }
  /** `action: exec` / legacy `exec:`: argv run directly, no shell. */
  | { kind: 'exec'; command: string; args: string[] }
  /** `call` / `action: dag.run` (wait) or `dag.enqueue` (queue and go on); `parallel` fans out. */
  | { kind: 'dag'; mode: 'run' | 'enqueue'; queue: string | null }
  /** `action: http.request` / `type: http`; `with` keeps Dagu's keys as written (value-resolved at run). */
  | { kind: 'http'; with: Record<string, unknown> }
  /** `action: jq.filter` / `type: jq`. */
  | { kind: 'jq'; with: Record<string, unknown> }
  /** `action: mail.send` / `type: mail`; uses the DAG's `smtp`. */
  | { kind: 'mail'; with: Record<string, unknown> }
  /** `action: log.write` / `type: log`. */
  | { kind: 'log'; with: Record<string, unknown> }
  /** `action: noop` / `type: noop`, or a step with only an output declaration. */
  | { kind: 'noop' }
  /** `action: file.<op>` (stat, read, write, copy, move, delete, mkdir, list) / `type: file`. */
  | { kind: 'file'; op: string; with: Record<string, unknown> }
  /** `action: wait.<op>` (duration, until, file, http) / `type: wait`. */
  | { kind: 'wait'; op: string; with: Record<string, unknown> }
  /**
   * `action: router.route` / `type: router`: its targets run only when `value` matches their route's pattern
   * (preconditions the reader adds to them); the step itself only prints its routes, in Dagu's order.
   */
  | { kind: 'router'; value: string; routes: RouteSpec[] }
  /**
   * `action: data.convert` / `data.pick` / `type: data` (the operation in `command`): converts or picks from
   * structured data (json, yaml, csv, tsv, text) and prints the result; `with` keeps Dagu's keys as written.
   */
  | { kind: 'data'; op: 'convert' | 'pick'; with: Record<string, unknown> }
  /** `action: outputs.write` / `type: outputs` (`command: write`): publishes `with.values` as the step's outputs. */
  | { kind: 'outputs'; with: Record<string, unknown> }
  /**
   * `action: template.render` / `type: template`: the step's `script` (never value-resolved) rendered as a Go
   * text/template with `with.data` as dot; `with.template_ref` (resolved at run) stands in for a missing script.
   */
  | { kind: 'template'; with: Record<string, unknown> }
  /**
   * `action: git.checkout` / `git.worktree.add` / `git.worktree.remove` / `type: git` (the operation in
   * `command`): run with the `git` program; `with` keeps Dagu's keys as written (value-resolved at run).
   */
  | { kind: 'git'; op: 'checkout' | 'worktree.add' | 'worktree.remove'; with: Record<string, unknown> }
  /**
   * `action: state.get` / `state.set` / `state.delete` / `state.list` / `state.diff` / `type: state` (the
   * operation in `command`): reads or writes the state store; `with` keeps Dagu's keys as written.
   */
  | { kind: 'state'; op: 'get' | 'set' | 'delete' | 'list' | 'diff'; with: Record<string, unknown> }
  /**
   * `action: archive.create` / `archive.extract` / `archive.list` / `type: archive` (the operation in
   * `command`): zip, tar and tar.gz files; `with` keeps Dagu's keys as written (value-resolved at run).
   */
  | { kind: 'archive'; op: 'create' | 'extract' | 'list'; with: Record<string, unknown> }
  /**
   * `action: artifact.write` / `artifact.read` / `artifact.list`: files in the run's artifacts directory
   * (DAG_RUN_ARTIFACTS_DIR); `with` keeps Dagu's keys as written (value-resolved at run).
   */
  | { kind: 'artifact'; op: 'write' | 'read' | 'list'; with: Record<string, unknown> }
  /**
   * `action: human.task`: runs nothing; the step waits (`waiting`) until `dagu human-task complete` gives it
   * its input. `prompt` is value-resolved when the step opens; `form` is the normalized flat object schema.
   */
  | { kind: 'human'; prompt: string; form: HumanTaskForm | null }
  /** `foreach:`: the body steps run once per item inside the run process, as Dagu's inline loop does. */
  | { kind: 'foreach'; foreach: ForeachSpec };

/**
 * A human task's form after loading: a flat object schema of scalar properties. `properties` and
 * `additionalProperties` are always present; each property carries its scalar `type`.
 */
export interface HumanTaskForm {
  type: 'object';
  title?: string;
  description?: string;
  properties: Record<string, Record<string, unknown> & { type: 'string' | 'integer' | 'number' | 'boolean' }>;
  required?: string[];
  additionalProperties: boolean;
}

/** What a human task step recorded: the prompt as resolved when it opened, its form, and its completion. */
export interface HumanTaskStatus {
  /** The step's explicit id, which the completion names. */
  id: string;
  prompt: string;
  /** The DAG's max_output_size when the task opened: the most its canonical input and outputs may take. */
  max_size: number;
  form: HumanTaskForm | null;
  /** The canonical input it was completed with; absent while it is open. */
  input?: Record<string, unknown>;
  completed_at?: string;
}

/**
 * A `foreach` step after parsing. Each item runs the body graph with `${foreach.<as>}`, `${foreach.index}` and
 * `${foreach.key}` in scope; the step prints one JSON summary (`summary`, `items`, `outputs`) as its stdout.
 */
export interface ForeachSpec {
  /** Literal items (JSON values, their strings value-resolved at run time); null when `items_text` is used. */
  items: unknown[] | null;
  /** `items` written as text: value-resolved at run time, it must give a JSON array. */
  items_text: string | null;
  /** The item's name under `foreach.` [item]. */
  as: string;
  /** Text giving each item's key (unique); null = the index. */
  key: string | null;
  max_concurrent: number;
  /** The body: a graph of steps (no implicit chain), named apart from the DAG's own steps. */
  steps: StepSpec[];
  /** Output name → text resolved in an item's body scope once it succeeded; sorted by name. */
  collect: Array<[string, string]>;
}

/** One route of a router step: a pattern (exact text, or `re:<regexp>`) and the steps it starts. */
export interface RouteSpec {
  pattern: string;
  targets: string[];
}

/** One declared output of a step (`outputs:`), written by the step to `$DAGU_OUTPUT_FILE`. */
export interface DeclaredOutputSpec {
  name: string;
  type: 'string' | 'json';
  /**
   * A build DAG's path output: the file the step makes, as written (resolved when the run starts). A step has
   * at most one; its `type` is then meaningless and stays `string`.
   */
  path?: string;
}

/**
 * Where one entry of an object-form `output:` (or of `stdout.outputs.fields`) gets its value: a literal
 * (value-resolved at run time, strings inside it too), or the step's trimmed stdout/stderr or a file, read as
 * text (trimmed) or decoded as JSON/YAML, with an optional jq `select` applied to the decoded value.
 */
export type StructuredOutputEntry =
  | { kind: 'value'; value: unknown }
  | {
      kind: 'source';
      from: 'stdout' | 'stderr' | 'file';
      /** For `from: file`: the path (value-resolved, relative to the step's working dir); else null. */
      path: string | null;
      /** Null = text (trimmed). */
      decode: 'text' | 'json' | 'yaml' | null;
      /** A jq expression applied after decoding; only with decode json or yaml. */
      select: string | null;
    };

/**
 * `stdout: {outputs: ...}`: the step's stdout published as its outputs. Either `fields` (each an entry read
 * from stdout or a literal), or one `field` receiving the whole stdout (text, or decoded), or, with no field,
 * the decoded object itself (decode defaults to json then).
 */
export interface StdoutOutputsSpec {
  field: string | null;
  decode: 'text' | 'json' | 'yaml' | null;
  select: string | null;
  /** Entries by name in file order; null when `fields` is not used. */
  fields: Array<[string, StructuredOutputEntry]> | null;
}

/** One precondition entry (`preconditions:` at DAG or step level). */
export interface ConditionSpec {
  /** Value-resolved text: compared with `expected`, or run as a shell command when `expected` is null. */
  condition: string | null;
  /** Command-substituted text (`eval:`); needs `expected`. Exactly one of condition/eval is set. */
  eval: string | null;
  /** Exact line match, or a regular expression when it starts with `re:`; null means "command check". */
  expected: string | null;
  negate: boolean;
  /**
   * A Dagu 1.x backtick condition read with 1.x meaning (an `eval` made by dagu1.ts): its command
   * substitution has no time limit, as in 1.x, rather than 2.x's 2 s.
   */
  unbounded?: boolean;
}

/** `continue_on` after parsing: what lets dependents run past this step's failure or skip. */
export interface ContinueOnSpec {
  failure: boolean;
  skipped: boolean;
  /** Exit codes that count as "continue"; empty = none. */
  exit_code: number[];
  /** Stdout patterns (substring, or `re:` regexp) that count as "continue"; empty = none. */
  output: string[];
  mark_success: boolean;
}

/** `repeat_policy` after parsing; `mode: null` means no repeat. Counts and intervals may be run-time text. */
export interface RepeatPolicySpec {
  mode: 'while' | 'until' | null;
  condition: string | null;
  /**
   * A Dagu 1.x file's condition with backticks and `expected`: 1.x runs the backticks (an unbounded `eval`),
   * where 2.x compares the text.
   */
  condition_eval?: boolean;
  expected: string | null;
  exit_code: number[];
  interval_sec: number;
  /** Total executions, including the first; null = no limit. */
  limit: number | null;
  backoff: number;
  max_interval_sec: number | null;
  /** Counts written as text with a reference, resolved when the step starts (see DeferredCounts). */
  deferred?: DeferredCounts;
}

/** `parallel`: items (a variable reference or a literal list) and the fan-out width. */
export interface ParallelSpec {
  /** A reference to resolve at run time (e.g. `${ITEMS}`), or null when `items` is literal. */
  variable: string | null;
  /** Literal items: a scalar becomes `ITEM`; an object gives named params. */
  items: Array<string | Record<string, string>>;
  max_concurrent: number;
}

/**
 * A step's `approval:` (Dagu's human approval gate): after its command succeeds the step waits for an
 * approval. `input` names the values an approver may give (`required` those that must be given);
 * `rewind_to` is the step (a name, ids resolved) a push-back reruns from; null: the step itself.
 */
export interface ApprovalSpec {
  prompt: string;
  input: string[];
  required: string[];
  rewind_to: string | null;
}

/** One push-back of a step approval, as `DAG_PUSHBACK`'s history shows it. */
export interface PushBackEntry {
  iteration: number;
  at: string;
  inputs?: Record<string, string>;
}

/** What a step approval recorded: its gate as it opened, and the approval or rejection it got. */
export interface ApprovalStatus {
  prompt: string;
  input: string[];
  required: string[];
  rewind_to: string | null;
  approved_at?: string;
  /** The values the approver gave, by name (also the step's output variables). */
  inputs?: Record<string, string>;
  rejected_at?: string;
  reason?: string;
}

/**
 * The push-back a step reruns under: the iteration (1 for the first push-back), the approver's inputs, every
 * push-back so far, and the stdout log of the step's run before it (relative to the logs directory).
 */
export interface PushBackStatus {
  iteration: number;
  inputs?: Record<string, string>;
  history: PushBackEntry[];
  previous_stdout?: string | null;
}

/** One step of a DAG, after parsing and defaulting. */
export interface StepSpec {
  name: string;
  /** `approval:`: the step waits for an approval after its command succeeds; absent when none. */
  approval?: ApprovalSpec;
  /** `id`, for `${id.stdout}` and `${steps.id.outputs.x}` references; null when none. */
  id?: string | null;
  description?: string;
  /** What the step executes; absent on specs built by older code, which means `command`. */
  action?: StepAction;
  /** Extra shell arguments (`shell_args`, or the split of a string `shell`); the step's own only. */
  shell_args?: string[];
  /** True when the step itself set a shell (then no `-e` is added, and a shebang is not honoured). */
  shell_explicit?: boolean;
  /** True for legacy `command: interpreter` + `script:` (runs `interpreter [args] <file>`, no shell). */
  script_interpreter?: boolean;
  preconditions?: ConditionSpec[];
  repeat_policy?: RepeatPolicySpec | null;
  /** Retry only on these exit codes (empty: any non-zero). */
  retry_exit_codes?: number[];
  /** A signal name such as SIGINT; null = SIGTERM. */
  signal_on_stop?: string | null;
  /** Paths (value-resolved, relative to the step's working dir) that also receive stdout / stderr. */
  stdout_file?: string | null;
  stderr_file?: string | null;
  /**
   * `stdout: {artifact: …}` / `stderr: {artifact: …}`: a path inside the run's artifacts directory (clean and
   * relative as read; value-resolved when the step starts) that also receives the stream.
   */
  stdout_artifact?: string;
  stderr_artifact?: string;
  log_output?: 'separate' | 'merged';
  mail_on_error?: boolean;
  parallel?: ParallelSpec | null;
  /** The command; a list runs its entries one after another, stopping at the first failure. */
  command: string[] | null;
  /** A multi-line script run by the shell; exclusive with `command`. */
  script: string | null;
  shell: string | null;
  dir: string | null;
  env: Record<string, string>;
  /**
   * Names of `env` entries whose backtick parts run as commands when the step starts (their output takes
   * their place), as Dagu 1.x does; set only for a file read with 1.x meaning. Absent = none.
   */
  env_eval?: string[];
  /** Names of steps this step waits for; empty for the first step of a chain. */
  depends: string[];
  timeout_sec: number | null;
  retry_policy: StepRetryPolicy | null;
  continue_on: { failure: boolean } & Partial<ContinueOnSpec>;
  /** Name of a variable that receives the step's trimmed stdout for later steps. */
  output: string | null;
  /**
   * Declared `outputs:` (needs an `id`): `name=value` lines or heredoc blocks the step writes to
   * `$DAGU_OUTPUT_FILE`, published as `${steps.<id>.outputs.<name>}` when the step succeeds; absent = none.
   */
  outputs?: DeclaredOutputSpec[];
  /** A build DAG's declared input files (`inputs:`), read by `${inputs.<name>}`; absent = none. */
  inputs?: BuildInputSpec[];
  /**
   * Object-form `output:` (Dagu 2.x structured output), entries in file order; absent when `output` is a name
   * or not given. Published after the step ends as `${id.output}` (compact JSON) and `${id.outputs.<key>}`.
   */
  structured_output?: Array<[string, StructuredOutputEntry]>;
  /** `stdout: {outputs: ...}`, published as `${id.outputs.<name>}`; absent when not given. */
  stdout_outputs?: StdoutOutputsSpec;
  /**
   * `output_schema`: an inline JSON Schema (draft 2020-12) object. Stdout must be one JSON value it accepts,
   * else the step fails; the value (compact JSON) is the step's `${id.output}` unless an object `output:`
   * publishes one. Absent when not given.
   */
  output_schema?: Record<string, unknown>;
  /** Run another DAG as a sub-run (issue 4). */
  call: string | null;
  /** Parameters passed to the `call`ed DAG; the parser always fills it (empty when none). */
  params?: ParamSpec[];
  worker_selector: Record<string, string> | null;
}

/** A DAG-level retry policy used by the scheduler to re-run failed runs. */
export interface DagRetryPolicy {
  limit: number;
  interval_sec: number;
  backoff: number;
  max_interval_sec: number | null;
}

/** A schedule entry: the expression as written plus what the parser understood of it. */
export interface ScheduleSpec {
  /** The expression as written, including any `CRON_TZ=` prefix. */
  expression: string;
  /** The cron fields without prefix (5 or 6 fields). */
  cron: string;
  /** IANA time zone from `CRON_TZ=`, or null for UTC. */
  timezone: string | null;
  /** True when the expression has a leading seconds field. */
  has_seconds: boolean;
  /**
   * Set on a one-off entry (Dagu's `{at: <RFC 3339 time>}`): the single slot, ms since the epoch. `expression`
   * then holds the time as written, `cron` is empty, and the entry has no other slot.
   */
  at_ms?: number;
}

export interface ParamSpec {
  /** Null for a positional parameter. */
  name: string | null;
  value: string;
  /**
   * Dagu's rich parameter definition (`- name: X` with more keys); absent on plain params. `value` holds the
   * `default` ('' when none). The run checks the value against `type`/`enum`/`required`/bounds and, when the
   * caller did not supply it, runs `eval` (command-substituted) before any step.
   */
  rich?: ParamRichSpec;
  /**
   * A positional word of a sub-DAG step's string-form params that needs no quotes (no blank, no `"`, not
   * empty): once its references are filled in, its text is read again as params text, so `${ITEM.extra}`
   * holding `A=1 B=2` gives two params (Dagu writes such a word unquoted into the child's params).
   */
  split?: boolean;
}

/** A JSON Schema (draft 2020-12) that a DAG's params must satisfy (DagSpec.param_schema). */
export interface ParamSchemaSpec {
  /** The schema: an object or a boolean; null when it is in `file`. */
  schema: Record<string, unknown> | boolean | null;
  /** `params.schema` as a file path, read when a run starts: absolute, or from the DAG's folder. */
  file: string | null;
}

/** The checks and dynamic default of a rich parameter definition. */
export interface ParamRichSpec {
  has_default: boolean;
  eval: string | null;
  description: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | null;
  required: boolean;
  enum: string[] | null;
  minimum: number | null;
  maximum: number | null;
  min_length: number | null;
  max_length: number | null;
  pattern: string | null;
  /** A Dagu 1.x backtick param read with 1.x meaning: its `eval` has no time limit (2.x: 10 s). */
  unbounded?: boolean;
}

export interface HandlerSpecs {
  /** `init`: runs before the steps; absent on specs built by older code. */
  init?: StepSpec | null;
  success: StepSpec | null;
  failure: StepSpec | null;
  abort: StepSpec | null;
  exit: StepSpec | null;
  /** `wait`: runs when an attempt ends `waiting` at human tasks (DAG_WAITING_STEPS names them); absent on older specs. */
  wait?: StepSpec | null;
}

/** `artifacts:` after loading: whether the run gets an artifacts directory, and a base folder for it. */
export interface ArtifactsSpec {
  enabled: boolean;
  /** `artifacts.dir` as written (absolute after load, `~` kept); null: the run's own data directory. */
  dir: string | null;
}

/** One `secrets` entry: the variable `name` gets what `provider` finds under `key`. */
export interface SecretRef {
  name: string;
  /** `env`: a variable of the DAG's env (dotenv included), else of the host; `file`: a file's whole content. */
  provider: 'env' | 'file';
  key: string;
}

/** A DAG as parsed from its YAML file, with defaults applied. */
export interface DagSpec {
  name: string;
  description: string;
  tags: string[];
  schedule: ScheduleSpec[];
  steps: StepSpec[];
  params: ParamSpec[];
  env: Record<string, string>;
  /**
   * Names of `env` entries whose backtick parts run as commands when the run starts (their output takes
   * their place), as Dagu 1.x does; set only for a file read with 1.x meaning. Absent = none.
   */
  env_eval?: string[];
  /** Queue name; defaults to the DAG name. */
  queue: string;
  max_active_runs: number;
  overlap_policy: OverlapPolicy;
  /** Milliseconds, or 0 when catch-up is off. */
  catchup_window_ms: number;
  retry_policy: DagRetryPolicy | null;
  timeout_sec: number | null;
  worker_selector: Record<string, string> | null;
  /** `worker_selector: local`: this DAG always runs on the host that starts it, whatever the execution mode. */
  force_local?: boolean;
  handler_on: HandlerSpecs;
  /**
   * The `handler_on` entries the DAG has only from `base.yaml` (by handler name): a sub-DAG run does not run
   * them, as in Dagu. Absent when none.
   */
  base_handlers?: string[];
  signal_handling: { enable_propagation: boolean };
  /** Path of the file the DAG was loaded from, or null when it came from elsewhere. */
  file: string | null;
  /**
   * Set when `file` is a copy: a local DAG (a later document of a file) runs from a temp file holding it, and
   * its relative paths are the ones of the file it was written in, this one (as in Dagu).
   */
  source_file?: string;
  /**
   * Dagu's schema-backed params (a top-level inline JSON Schema, or `{schema, values}`); absent for every other
   * form. `params` then holds the explicit values (from `values`, or the properties' `default`s) as named
   * params; the run checks the final values against the schema when it starts.
   */
  param_schema?: ParamSchemaSpec;
  /** Issue 14 keys; absent on specs built by older code (then the defaults in brackets apply). */
  /** `consts`: named values fixed at load, read as `${consts.name}`; in declaration order. */
  consts?: Record<string, string>;
  /** `group` (UI grouping) [''] and `labels` (lowercased `key=value` or `key`) [tags]. */
  group?: string;
  /**
   * `run_config`: what the console's start dialog lets an operator change, as in Dagu's (which checks it in
   * its console only; so does this product). Absent: both allowed.
   */
  run_config?: { disable_param_edit: boolean; disable_run_id_edit: boolean };
  labels?: string[];
  /**
   * `type` [graph]; chain dependencies are already in each step's `depends`. `build`: a graph whose steps may
   * declare the files they read and make, and are reused when those match (core/build/types.ts).
   */
  type?: 'graph' | 'chain' | 'build';
  shell?: string | null;
  shell_args?: string[];
  /** DAG `working_dir`, absolute after load, or null for the per-run work directory. */
  working_dir?: string | null;
  /** `dotenv` files in load order (`.env` first). */
  dotenv?: string[];
  /** `secrets`: resolved when the run starts, after env and dotenv; their values are masked in what it shows. */
  secrets?: SecretRef[];
  preconditions?: ConditionSpec[];
  delay_sec?: number;
  max_clean_up_time_sec?: number;
  /** 0 = no limit. */
  max_active_steps?: number;
  max_output_size?: number;
  hist_retention_days?: number | null;
  hist_retention_runs?: number | null;
  log_dir?: string | null;
  log_output?: 'separate' | 'merged';
  /** `artifacts`, after Dagu's auto-enable rules; absent: the runs get no artifacts directory. */
  artifacts?: ArtifactsSpec;
  skip_if_successful?: boolean;
  /** `schedule: {stop, restart}` entries. */
  stop_schedule?: ScheduleSpec[];
  restart_schedule?: ScheduleSpec[];
  restart_wait_sec?: number;
  smtp?: SmtpSpec | null;
  mail_on?: { failure: boolean; success: boolean; wait?: boolean };
  error_mail?: MailSpec | null;
  info_mail?: MailSpec | null;
  /** Sent when an attempt ends `waiting` and `mail_on.wait` is set. */
  wait_mail?: MailSpec | null;
  /** Later documents of the same file: sub-DAGs `call`able by name. Keyed by name. */
  local_dags?: Record<string, DagSpec>;
  /** The parser's warnings (deprecated spellings, ...), printed by `dagu validate`. */
  warnings?: string[];
}

export interface SmtpSpec {
  host: string;
  port: number;
  username: string;
  password: string;
}

export interface MailSpec {
  from: string;
  to: string[];
  prefix: string;
  attach_logs: boolean;
}

/** A condition on a queued run, as in seed 002 (`Runnable=False`, `WorkerReady=False`, ...). */
export interface RunCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  /** RFC 3339 time the condition was observed. */
  checked_at: string;
}

/** One run of a step's command: the first try, a retry or a repeat. */
export interface StepExecution {
  kind: 'first' | 'retry' | 'repeat';
  started_at: string;
  /** Null while it runs. */
  finished_at: string | null;
  exit_code: number | null;
}

/** How many executions a step's status keeps (a step repeating every second for a day would not fit). */
export const MAX_RECORDED_EXECUTIONS = 100;

export interface StepStatus {
  name: string;
  status: StepState;
  started_at: string | null;
  finished_at: string | null;
  exit_code: number | null;
  error: string | null;
  /** Retries done so far (0 on the first try). */
  retry_count: number;
  /** Log file paths, relative to the logs directory. */
  stdout: string | null;
  stderr: string | null;
  /** Captured output variable, when the step declares `output`. */
  output: Record<string, string> | null;
  /**
   * Declared `outputs:` the step published (name to emitted text; a `json` output keeps its JSON text), read
   * from `$DAGU_OUTPUT_FILE` after its successful attempt; absent/null when it published none.
   */
  outputs?: Record<string, string> | null;
  /**
   * An object-form `output:` as published: its compact JSON (`${id.output}`, `${id.output.key}`); absent/null
   * when the step has no object-form output or it was not evaluated.
   */
  output_value?: string | null;
  /**
   * Values published by an object-form `output:` or `stdout.outputs` (Dagu's step outputs payload), by name:
   * `${id.outputs.<name>}` reads them when the step declared no `outputs:`; absent/null when none.
   */
  published_outputs?: Record<string, unknown> | null;
  /** Executions of a `repeat_policy` step so far, after the first (0 when it ran once). */
  repeat_count?: number;
  /**
   * Each time the step's command ran (its first try, every retry, every repeat) with its start, end and exit
   * code, oldest first; the newest {@link MAX_RECORDED_EXECUTIONS} are kept. Absent on older records.
   */
  executions?: StepExecution[];
  /** Why a step was skipped or aborted without running (`precondition not met: ...`, `upstream failed`). */
  skip_reason?: string | null;
  /** A foreach step's items, in item order, with how each one's body went; absent for other steps. */
  foreach_items?: ForeachItemStatus[];
  /** A human task's prompt, form and completion (absent for other steps). */
  human_task?: HumanTaskStatus;
  /** A step approval's gate and how it was answered (absent until the step waits for one). */
  approval?: ApprovalStatus;
  /** The push-back this step (re)runs under; absent when none. */
  push_back?: PushBackStatus;
  /** Child runs started by this step (`call`, `parallel`), in start order. */
  sub_runs?: Array<{ dag_name: string; run_id: string; status: RunState | null; item?: string }>;
  /**
   * The steps this one waited for, as the run's DAG had them when the attempt began (a chain DAG's steps
   * depend on the one before); absent on records written by older versions.
   */
  depends?: string[];
  /**
   * A build DAG's step (`type: build`): how it was satisfied (reused, executed, ...) apart from its status,
   * and why. Absent for the steps of other DAGs and before the step was reached.
   */
  build?: StepBuildStatus;
}

/** One item of a foreach step (Dagu's status details: a label and a status per item). */
export interface ForeachItemStatus {
  index: number;
  key: string;
  /** The key when `foreach.key` is set; else the item (text as it is, other values as JSON). */
  label: string;
  status: 'not_started' | 'running' | 'succeeded' | 'failed';
  error?: string;
}

/** The status of one attempt of a run; written atomically as a whole on every change. */
export interface RunStatus {
  version: 1;
  dag_name: string;
  run_id: string;
  /** 1 for the first attempt, 2 for the first retry, ... */
  attempt: number;
  status: RunState;
  trigger_type: TriggerType;
  /** RFC 3339 UTC slot time of a scheduled or catch-up run; null otherwise. */
  schedule_time: string | null;
  queue: string;
  /** Parameters as `KEY=value` or positional values, in order. */
  params: string[];
  /**
   * The caller's params text when it was one JSON object or array: DAG_PARAMS_JSON and `${params}` are this
   * text, as in Dagu (core/params.ts rawJsonParams). Absent otherwise: they are then written from `params`.
   */
  params_json?: string | null;
  /**
   * How many of the run's attempts the scheduler started under the DAG's retry_policy (Dagu's AutoRetryCount):
   * carried to every later attempt, one more for each such retry; a retry or resume by hand keeps it. The
   * policy's limit counts these. Absent: none.
   */
  auto_retry_count?: number;
  created_at: string;
  queued_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  pid: number | null;
  host: string | null;
  worker_id: string | null;
  error: string | null;
  steps: StepStatus[];
  /** Handler steps that ran, by event (`init` runs before the steps; absent on older records). */
  handlers: Partial<Record<'init' | 'success' | 'failure' | 'abort' | 'exit' | 'wait', StepStatus>>;
  /** Only while `queued`; cleared when the run leaves the queue. */
  conditions: RunCondition[];
  worker_selector: Record<string, string> | null;
  /** Directory of this attempt's logs, relative to the logs directory. */
  log_dir: string;
  /** Scheduler instance that created this run of a slot (scheduler and catch-up runs), else absent/null. */
  dispatched_by?: string | null;
  /** The run that started this one through a `call`/`parallel` step, else absent/null. */
  parent?: { dag_name: string; run_id: string; step: string } | null;
  /**
   * The DAG file of a run started under another name (Dagu's `dagu start -N NAME file`), which no DAG file
   * has; absent/null for every other run, whose DAG is found by `dag_name`.
   */
  dag_file?: string | null;
  /**
   * For a run of a local DAG (a later document of a multi-document file, called by a step of that file): the
   * file it was written in, whose document named `dag_name` is its DAG. Retry, resume and restart load it
   * from there, as no DAG file has its name. Absent/null for every other run.
   */
  local_dag_file?: string | null;
  /**
   * The working directory Dagu's `--default-working-dir` gave a DAG that sets no `working_dir` (absolute): a
   * retry of the run works there again, as Dagu's does. Absent/null for every other run.
   */
  default_working_dir?: string | null;
  /**
   * The run's labels (`key` or `key=value`, lowercased): its DAG's `labels` when the run was made, and those
   * `dagu start/enqueue --labels` added (Dagu's DAGRunStatus.Labels); a retry, resume or restart keeps them.
   * `dagu history --labels` filters on them. Absent when there were none, and on records of older versions.
   */
  labels?: string[];
  /**
   * `dagu start/enqueue --no-reuse`: a build DAG's steps execute even where a committed output matches (its
   * staging and commit still apply). Absent when not asked for; a retry keeps it.
   */
  no_reuse?: true;
}
