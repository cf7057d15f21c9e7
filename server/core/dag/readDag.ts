// Reads one YAML document of a DAG file (the entrypoint or a local sub-DAG) into a DagSpec with Dagu's
// defaults filled in; problems go to the reader.

import { checkBuildPaths } from './readBuild';
import { isMap, isScalar, isSeq } from 'yaml';
import type { Node } from 'yaml';
import { parseDuration } from '../duration';
import { InvalidNameError, isValidDagName } from '../names';
import type {
  DagSpec,
  HandlerSpecs,
  ParamSchemaSpec,
  MailSpec,
  OverlapPolicy,
  SmtpSpec,
  StepSpec,
} from '../types';
import type { DagReader, Entry } from './dagReader';
import { describe, isNull, writtenKey } from './dagReader';
import { envEvalNames } from './dagu1';
import { deprecation } from './deprecations';
import { isLocalSelector, readEnv, readParams, readWorkerSelector } from './readFields';
import { readShell } from './readAction';
import { readCount, readDagRetryPolicy, readPreconditions } from './readPolicies';
import { readSchedule } from './readSchedule';
import { DEFAULTS_KEYS, readLogOutput, readNonEmpty, readStep } from './readStep';
import type { StepDefaults } from './readStep';
import { readArtifacts } from './readArtifacts';
import { readConsts } from './readConsts';
import { readCustomDefinitions, type BaseDefinitions } from './customSteps';
import { readSecrets } from './readSecrets';
import { readSteps } from './readSteps';
import { UNSUPPORTED_ROOT_KEYS } from './unsupported';

export const ROOT_KEYS = [
  'name',
  'group',
  'description',
  'type',
  'labels',
  'tags',
  'params',
  'consts',
  'env',
  'dotenv',
  'secrets',
  'shell',
  'shell_args',
  'working_dir',
  'steps',
  'defaults',
  'handler_on',
  'step_types',
  'actions',
  'preconditions',
  'timeout_sec',
  'delay_sec',
  'restart_wait_sec',
  'max_clean_up_time_sec',
  'schedule',
  'skip_if_successful',
  'catchup_window',
  'overlap_policy',
  'queue',
  'max_active_runs',
  'max_active_steps',
  'worker_selector',
  'retry_policy',
  'log_dir',
  'log_output',
  'artifacts',
  'hist_retention_days',
  'hist_retention_runs',
  'max_output_size',
  'smtp',
  'mail_on',
  'error_mail',
  'info_mail',
  'wait_mail',
  'run_config',
  // Ours, not Dagu's: whether a stop is passed on to sub-DAG runs.
  'signal_handling',
] as const;

const HANDLERS = [
  ['init', 'onInit'],
  ['success', 'onSuccess'],
  ['failure', 'onFailure'],
  ['abort', 'onAbort'],
  ['exit', 'onExit'],
  ['wait', 'onWait'],
] as const;
const OVERLAP_POLICIES: readonly OverlapPolicy[] = ['skip', 'all', 'latest'];
const DEFAULT_HIST_RETENTION_DAYS = 30;
const DEFAULT_MAX_OUTPUT_SIZE = 1024 * 1024;
const DEFAULT_MAX_CLEAN_UP_TIME_SEC = 5;
const MAX_SECONDS = 2 ** 31 - 1;

export interface ReadDagOptions {
  /** The file the document is in, for `working_dir` and messages. */
  file: string | null;
  /** The file it was written in, when `file` is a copy (see ParseDagOptions.sourceFile). */
  sourceFile?: string | null;
  /** The name when the document has none (the file name's stem); null for a local DAG, which needs one. */
  defaultName: string | null;
  /** Custom step definitions base.yaml gives every document (customSteps.ts). */
  baseDefinitions?: BaseDefinitions | null;
}

/** Reads one document's root map. */
export function readDag(r: DagReader, root: Node, opts: ReadDagOptions): DagSpec | null {
  const rootEntry: Entry = { key: '', field: '', value: root, keyNode: root };
  const map = r.map(rootEntry, ROOT_KEYS, 'a DAG document', UNSUPPORTED_ROOT_KEYS, true);
  if (!map) return null;

  const name = readName(r, map.get('name'), opts.defaultName, root);
  const type = readType(r, map.get('type'));
  const defaults = readDefaults(r, map.get('defaults'));
  readCustomDefinitions(r, map, opts.baseDefinitions ?? null);
  const steps = readSteps(r, map.get('steps'), root, type, defaults);
  const shell = readShell(r, map.get('shell'), map.get('shell_args'));
  const schedules = readSchedule(r, map.get('schedule'));
  const labels = readLabels(r, map);
  const queue = readQueue(r, map.get('queue'));
  const maxActiveRuns = readMaxActiveRuns(r, map.get('max_active_runs'), queue !== undefined);
  const retention = readRetention(r, map);
  const timeout = readCount(r, map.get('timeout_sec'), 0, MAX_SECONDS);
  const secrets = readSecrets(r, map.get('secrets'));
  let paramSchema: ParamSchemaSpec | undefined;
  const dag: DagSpec = {
    name,
    description: r.string(map.get('description'))?.trim() ?? '',
    tags: labels,
    schedule: schedules.start,
    steps: steps.map((s) => s.spec),
    params: readParams(r, map.get('params'), (spec) => (paramSchema = spec)),
    env: readEnv(r, map.get('env')),
    queue: queue ?? name,
    max_active_runs: maxActiveRuns,
    overlap_policy: readOverlapPolicy(r, map.get('overlap_policy')),
    catchup_window_ms: readCatchupWindow(r, map.get('catchup_window')),
    retry_policy: readDagRetryPolicy(r, map.get('retry_policy')),
    timeout_sec: timeout === undefined || timeout === 0 ? null : timeout,
    worker_selector: readWorkerSelector(r, map.get('worker_selector')),
    force_local: isLocalSelector(map.get('worker_selector')),
    handler_on: readHandlers(
      r,
      map.get('handler_on'),
      steps.map((s) => s.spec),
    ),
    signal_handling: readSignalHandling(r, map.get('signal_handling')),
    file: opts.file,
    ...(opts.sourceFile ? { source_file: opts.sourceFile } : {}),
    group: r.string(map.get('group'))?.trim() ?? '',
    labels,
    type,
    shell: shell.shell,
    shell_args: shell.args,
    working_dir: readWorkingDir(r, map.get('working_dir'), opts.sourceFile ?? opts.file),
    dotenv: readDotenv(r, map.get('dotenv')),
    ...(secrets.length > 0 ? { secrets } : {}),
    preconditions: readPreconditions(r, map.get('preconditions')),
    delay_sec: readCount(r, map.get('delay_sec'), 0, MAX_SECONDS) ?? 0,
    // Dagu fills in its defaults for these when the file leaves them 0, as for hist_retention_days: 0 is not
    // "no cleanup time" or "no output", but "the default".
    max_clean_up_time_sec:
      readCount(r, map.get('max_clean_up_time_sec'), 0, MAX_SECONDS) || DEFAULT_MAX_CLEAN_UP_TIME_SEC,
    max_active_steps: readCount(r, map.get('max_active_steps'), 0, MAX_SECONDS) ?? 0,
    max_output_size: readCount(r, map.get('max_output_size'), 0, MAX_SECONDS) || DEFAULT_MAX_OUTPUT_SIZE,
    hist_retention_days: retention.days,
    hist_retention_runs: retention.runs,
    log_dir: readNonEmpty(r, map.get('log_dir')) ?? null,
    log_output: readLogOutput(r, map.get('log_output')) ?? 'separate',
    skip_if_successful: r.boolean(map.get('skip_if_successful')) ?? false,
    stop_schedule: schedules.stop,
    restart_schedule: schedules.restart,
    restart_wait_sec: readCount(r, map.get('restart_wait_sec'), 0, MAX_SECONDS) ?? 0,
    smtp: readSmtp(r, map.get('smtp')),
    mail_on: readMailOn(r, map.get('mail_on')),
    error_mail: readMail(r, map.get('error_mail')),
    info_mail: readMail(r, map.get('info_mail')),
    wait_mail: readMail(r, map.get('wait_mail')),
  };
  if (paramSchema) dag.param_schema = paramSchema;
  // As in Dagu: a run that may stop for an approval is not handed to the workers.
  const selectorEntry = map.get('worker_selector');
  if (selectorEntry && Object.keys(dag.worker_selector ?? {}).length > 0 && dag.steps.some((s) => s.approval))
    r.errorAt(selectorEntry, 'DAG with approval steps cannot be dispatched to workers');
  const runConfig = readRunConfig(r, map.get('run_config'));
  if (runConfig) dag.run_config = runConfig;
  const consts = readConsts(r, map.get('consts'));
  if (consts) dag.consts = consts;
  checkBuildPaths(r, dag, steps, root, { handlers: map.get('handler_on'), selector: selectorEntry });
  const artifacts = readArtifacts(r, map.get('artifacts'), root, dag);
  if (artifacts) dag.artifacts = artifacts;
  const envEval = envEvalNames(r.evalEnv, map.get('env')?.value);
  if (envEval.length > 0) dag.env_eval = envEval;
  return dag;
}

function readName(r: DagReader, entry: Entry | undefined, defaultName: string | null, root: Node): string {
  const name = r.string(entry);
  if (name !== undefined) {
    if (!isValidDagName(name.trim())) r.errorAt(entry!, new InvalidNameError('DAG name', name).message);
    return name.trim();
  }
  if (entry && isNull(entry.value)) r.errorAt(entry, 'must not be empty');
  if (defaultName === null) {
    if (!entry) r.error(root, 'name', 'a local DAG (a later document of the file) needs a name');
    return '';
  }
  if (!entry && !isValidDagName(defaultName)) {
    r.errors.push({
      file: r.file,
      line: null,
      column: null,
      field: 'name',
      message: `the file name gives ${new InvalidNameError('DAG name', defaultName).message}; set name in the file`,
    });
  }
  return defaultName;
}

/**
 * `type`: graph (the default), chain, or build (a graph whose steps may declare the files they read and make,
 * core/build/types.ts); Dagu's LLM-driven types are not run here.
 */
function readType(r: DagReader, entry: Entry | undefined): 'graph' | 'chain' | 'build' {
  const text = r.string(entry, 'graph, chain or build');
  if (text === undefined) return 'graph';
  const type = text.trim().toLowerCase();
  if (type === 'graph' || type === 'chain' || type === 'build' || type === '') return type || 'graph';
  if (type === 'controller') r.warnings.push(deprecation('type: controller', 'use type: agent'));
  if (type === 'agent' || type === 'controller') {
    r.unsupported(
      entry!.value,
      entry!.field,
      `Dagu's agent DAGs are not supported by this product (it calls no language models)`,
    );
  } else {
    r.errorAt(entry!, `must be graph, chain or build, got ${JSON.stringify(text)}`);
  }
  return 'graph';
}

function readDefaults(r: DagReader, entry: Entry | undefined): StepDefaults {
  if (!entry || isNull(entry.value)) return null;
  return r.map(entry, DEFAULTS_KEYS, 'defaults', undefined, true);
}

/** `labels` (or its old name `tags`): a string, a list or a map, lowercased; `k: v` becomes `k=v`. */
function readLabels(r: DagReader, map: Map<string, Entry>): string[] {
  const labels = map.get('labels');
  const tags = map.get('tags');
  if (labels && tags && !isNull(labels.value) && !isNull(tags.value)) {
    r.errorAt(tags, 'use labels or its old name tags, not both');
  }
  const entry = labels && !isNull(labels.value) ? labels : tags;
  if (!entry || isNull(entry.value)) return [];
  const raw: string[] = [];
  const addPair = (k: string, v: string | undefined) =>
    raw.push(v === undefined || v === '' ? k : `${k.trim()}=${v.trim()}`);
  if (isMap(entry.value)) {
    for (const item of r.map(entry, null, entry.key)?.values() ?? []) addPair(item.key, r.scalarText(item));
  } else if (isSeq(entry.value)) {
    for (const item of r.list(entry, entry.key) ?? []) {
      if (isMap(item.value)) {
        for (const pair of r.map(item, null, 'a label')?.values() ?? [])
          addPair(pair.key, r.scalarText(pair));
      } else {
        const text = r.scalarText(item);
        if (text !== undefined) raw.push(text);
      }
    }
  } else {
    const text = r.scalarText(entry, 'a string, a list or a map');
    if (text !== undefined) raw.push(...text.split(/[,\s]+/));
  }
  return [...new Set(raw.map((t) => t.trim().toLowerCase()).filter((t) => t !== ''))];
}

function readQueue(r: DagReader, entry: Entry | undefined): string | undefined {
  const queue = r.string(entry);
  if (queue !== undefined && !isValidDagName(queue)) {
    return r.errorAt(entry!, new InvalidNameError('queue name', queue).message);
  }
  return queue;
}

/** Dagu ignores `max_active_runs` at run time and warns about it; this product still uses it for the local queue. */
function readMaxActiveRuns(r: DagReader, entry: Entry | undefined, hasQueue: boolean): number {
  if (!entry || isNull(entry.value)) return 1;
  const v = isScalar(entry.value) ? entry.value.value : undefined;
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    r.errorAt(entry, `must be an integer, got ${describe(entry.value)}`);
    return 1;
  }
  if ((v > 1 || v < 0) && !hasQueue) {
    r.warnings.push(
      `max_active_runs=${v} is deprecated; use a global queue (queue: NAME) to bound concurrent runs`,
    );
  }
  return v < 1 ? 1 : v;
}

function readRetention(r: DagReader, map: Map<string, Entry>): { days: number | null; runs: number | null } {
  const days = readCount(r, map.get('hist_retention_days'), 0, 100_000);
  const runs = readCount(r, map.get('hist_retention_runs'), 0, MAX_SECONDS);
  if (days !== undefined && runs !== undefined && (days > 0 || runs > 0)) {
    r.errorAt(map.get('hist_retention_runs')!, 'set hist_retention_days or hist_retention_runs, not both');
  }
  if (runs !== undefined && runs > 0) return { days: null, runs };
  return { days: days === undefined || days === 0 ? DEFAULT_HIST_RETENTION_DAYS : days, runs: null };
}

function readOverlapPolicy(r: DagReader, entry: Entry | undefined): OverlapPolicy {
  const text = r.string(entry, 'skip, all or latest');
  if (text === undefined) return 'skip';
  const policy = text.trim().toLowerCase();
  if (policy === '') return 'skip';
  if ((OVERLAP_POLICIES as readonly string[]).includes(policy)) return policy as OverlapPolicy;
  r.errorAt(entry!, `must be skip, all or latest, got ${JSON.stringify(text)}`);
  return 'skip';
}

function readCatchupWindow(r: DagReader, entry: Entry | undefined): number {
  if (!entry || isNull(entry.value)) return 0;
  const text = r.string(entry, 'a duration like 6h or 2d');
  if (text === undefined) return 0;
  const parsed = parseDuration(text);
  if (!parsed.ok) return r.errorAt(entry, parsed.error) ?? 0;
  if (parsed.ms <= 0) return r.errorAt(entry, `must be greater than 0, got ${JSON.stringify(text)}`) ?? 0;
  return parsed.ms;
}

/** DAG `working_dir`: a relative path is taken from the DAG file's directory; `~` and `$` are left for the run. */
function readWorkingDir(r: DagReader, entry: Entry | undefined, file: string | null): string | null {
  const dir = readNonEmpty(r, entry);
  if (dir === undefined) return null;
  const text = dir.trim();
  if (text.startsWith('/') || text.startsWith('~') || text.startsWith('$') || file === null) return text;
  const slash = file.lastIndexOf('/');
  return normalizePath(`${slash < 0 ? '.' : file.slice(0, slash) || '/'}/${text}`);
}

/** Removes `.` segments, empty segments and `x/..` pairs from a path (no file system access). */
function normalizePath(path: string): string {
  const absolute = path.startsWith('/');
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..' && parts.length > 0 && parts[parts.length - 1] !== '..') parts.pop();
    else if (part !== '..' || !absolute) parts.push(part);
  }
  const joined = parts.join('/');
  return absolute ? `/${joined}` : joined === '' ? '.' : joined;
}

/** `dotenv`: a path or a list of them; `.env` is always read first. */
function readDotenv(r: DagReader, entry: Entry | undefined): string[] {
  const files = ['.env'];
  if (!entry || isNull(entry.value)) return files;
  const items = isSeq(entry.value) ? (r.list(entry, 'dotenv') ?? []) : [entry];
  for (const item of items) {
    const path = readNonEmpty(r, item);
    if (path !== undefined && !files.includes(path.trim())) files.push(path.trim());
  }
  return files;
}

/** `handler_on`: steps run around the others, named onInit, onSuccess, ... whatever their `name` says. */
function readHandlers(r: DagReader, entry: Entry | undefined, steps: readonly StepSpec[]): HandlerSpecs {
  const handlers: HandlerSpecs = {
    init: null,
    success: null,
    failure: null,
    abort: null,
    exit: null,
    wait: null,
  };
  if (!entry || isNull(entry.value)) return handlers;
  const map = r.map(entry, ['init', 'success', 'failure', 'abort', 'exit', 'wait'], 'handler_on', {}, true);
  // Dagu looks for legacy syntax in handlers under the key handler_on in lower case only.
  const warnings = r.warnings.length;
  for (const [key, name] of HANDLERS) {
    const handler = map?.get(key);
    if (!handler || isNull(handler.value)) continue;
    const read = readStep(r, handler, null, 0, name);
    const clash = read && steps.find((s) => s.name === name);
    if (read && clash) r.errorAt(handler, `${JSON.stringify(name)} is already the name of a step`);
    handlers[key] = read?.spec ?? null;
  }
  if (writtenKey(entry) !== 'handler_on') {
    const own = r.warnings.splice(warnings);
    r.warnings.push(...own.filter((w) => !w.startsWith('Deprecated DAG syntax:')));
  }
  return handlers;
}

function readSignalHandling(r: DagReader, entry: Entry | undefined): { enable_propagation: boolean } {
  if (!entry || isNull(entry.value)) return { enable_propagation: false };
  const map = r.map(entry, ['enable_propagation'], 'signal_handling', undefined, true);
  return { enable_propagation: r.boolean(map?.get('enable_propagation')) ?? false };
}

function readSmtp(r: DagReader, entry: Entry | undefined): SmtpSpec | null {
  if (!entry || isNull(entry.value)) return null;
  const firstError = r.errors.length;
  const map = r.map(
    entry,
    ['host', 'port', 'username', 'password'],
    'smtp',
    {
      oauth: "Dagu's SMTP OAuth is not supported by this product (use username and password)",
    },
    true,
  );
  if (!map) return null;
  const host = r.string(map.get('host'))?.trim() ?? '';
  if (host === '') {
    const at = map.get('host') ?? entry;
    r.followOn(isNull(at.value) ? at.keyNode : at.value, at.field, 'smtp needs a host');
  }
  r.dropFollowOns(firstError);
  return {
    host,
    port: readCount(r, map.get('port'), 1, 65535, true) ?? 587,
    username: r.scalarText(map.get('username')) ?? '',
    password: r.scalarText(map.get('password')) ?? '',
  };
}

function readMailOn(
  r: DagReader,
  entry: Entry | undefined,
): { failure: boolean; success: boolean; wait: boolean } {
  if (!entry || isNull(entry.value)) return { failure: false, success: false, wait: false };
  const map = r.map(entry, ['failure', 'success', 'wait'], 'mail_on', undefined, true);
  return {
    failure: r.boolean(map?.get('failure')) ?? false,
    success: r.boolean(map?.get('success')) ?? false,
    wait: r.boolean(map?.get('wait')) ?? false,
  };
}

function readMail(r: DagReader, entry: Entry | undefined): MailSpec | null {
  if (!entry || isNull(entry.value)) return null;
  const map = r.map(entry, ['from', 'to', 'prefix', 'attach_logs'], entry.key, undefined, true);
  if (!map) return null;
  const to: string[] = [];
  const toEntry = map.get('to');
  if (toEntry && !isNull(toEntry.value)) {
    const items = isSeq(toEntry.value) ? (r.list(toEntry, 'to') ?? []) : [toEntry];
    for (const item of items) {
      const address = r.string(item, 'an email address');
      if (address !== undefined)
        to.push(
          ...address
            .split(',')
            .map((a) => a.trim())
            .filter((a) => a !== ''),
        );
    }
  }
  return {
    from: r.string(map.get('from'))?.trim() ?? '',
    to,
    prefix: r.string(map.get('prefix')) ?? '',
    attach_logs: r.boolean(map.get('attach_logs')) ?? false,
  };
}

/** `run_config` only changes what the console's start dialog offers (as in Dagu, whose API ignores it too). */
function readRunConfig(r: DagReader, entry: Entry | undefined): DagSpec['run_config'] | undefined {
  if (!entry || isNull(entry.value)) return undefined;
  const map = r.map(entry, ['disable_param_edit', 'disable_run_id_edit'], 'run_config', undefined, true);
  const params = r.boolean(map?.get('disable_param_edit')) ?? false;
  const runId = r.boolean(map?.get('disable_run_id_edit')) ?? false;
  return params || runId ? { disable_param_edit: params, disable_run_id_edit: runId } : undefined;
}
