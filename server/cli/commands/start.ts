// `dagu start`: runs one DAG run in the foreground; SIGINT/SIGTERM abort it (steps get the signal first).
// A DAG that belongs on the workers is dispatched to them instead and followed to its end.

import { localMaterializations } from '../localMaterializations';
import { hostname } from 'node:os';
import path from 'node:path';
import { randomHex } from '../../store/randomHex';
import { systemClock, systemTimers } from '../../core/clock';
import type { Config } from '../../config/types';
import { claimOwnerText } from '../../core/claimOwner';
import { isoUtc } from '../../core/runStatus';
import { assertRunId } from '../../core/names';
import {
  formatParam,
  parseParamArgs,
  parseParamString,
  rawJsonParams,
  resolveRunParams,
} from '../../core/params';
import { checkSchemaParams } from '../../runner/schemaParams';
import { labelsFlagText, readLabelsFlag, withExtraLabels } from '../../core/runLabels';
import { newRunId } from '../../core/runId';
import type { DagSpec, ParamSpec, TriggerType } from '../../core/types';
import { endedStatus } from '../../core/endedStatus';
import { isDistributed, resolveSelector } from '../../core/dispatcherApi';
import { RunConflictError } from '../../runner/errors';
import type { AttemptContext } from '../../runner/runAttempt';
import { newRunParams, startRun } from '../../runner/startRun';
import type { SubDagRunner } from '../../runner/subDag';
import { cliContext, type GlobalOptions } from '../context';
import type { CreateLoggerOptions } from '../../log/createLogger';
import { UsageError } from '../exit';
import { dagFileOf, overrideDagName } from '../dagNameOverride';
import { loadDagOrThrow } from '../loadDagOrThrow';
import {
  cliSubDagRunner,
  dispatchAndFollow,
  exitCodeOf,
  printSummary,
  runCommandStores,
  type RunCommandStores,
} from './dispatchClient';
import { cliControlPlane } from '../openControlPlane';
import { cliDagsInStep } from '../dagsInStep';
import { runOfDag } from './target';

export { printSummary } from './dispatchClient';

/** How the command line gave params: `--params "<text>"` and how many words followed `--` (main.ts). */
export interface ParamFlags {
  params?: string;
  /** Number of command-line words after the first `--`; absent or null when there was none. */
  argsAfterDash?: number | null;
}

/**
 * The caller's params of `dagu start`/`dagu enqueue`: the words after `--` (each one param, or a single JSON
 * object or array), or the `--params` text (Dagu's tokens, or JSON). Words after the DAG without `--` are
 * refused, as Dagu does, and so are both forms at once.
 */
export function cliParams(
  command: string,
  dagArg: string,
  words: readonly string[],
  flags: ParamFlags,
): ParamSpec[] {
  const afterDash = flags.argsAfterDash ?? 0;
  const stray = words.slice(0, Math.max(0, words.length - afterDash));
  if (stray.length > 0) {
    const shown = stray.join(' ');
    throw new UsageError(
      `unexpected words after the DAG ${JSON.stringify(dagArg)}: ${shown}; parameters go after '--' ` +
        `(dagu ${command} ${dagArg} -- ${shown}) or in --params`,
    );
  }
  if (flags.params !== undefined && words.length > 0) {
    throw new UsageError(`give parameters either with --params or after '--', not both`);
  }
  if (flags.params !== undefined) return parseParamString(unquote(flags.params));
  return parseParamArgs(words);
}

/** The caller's params text when it is one JSON object or array (`--params` or a single word after `--`). */
export function cliParamsJson(words: readonly string[], flags: ParamFlags): string | null {
  if (flags.params !== undefined) return rawJsonParams(unquote(flags.params));
  return words.length === 1 ? rawJsonParams(words[0]) : null;
}

/** The caller's params as words for a command line or the API list (`NAME=value` or a value). */
export function paramWords(params: readonly ParamSpec[]): string[] {
  return params.map(formatParam);
}

/**
 * Throws a UsageError when `params` would be refused for `dag`, before anything is recorded: by the DAG's
 * declared params, and for a schema-backed DAG by its JSON Schema too (Dagu refuses such values before a run
 * exists).
 */
export async function checkCallerParams(dag: DagSpec, params: readonly ParamSpec[]): Promise<void> {
  const resolved = resolveRunParams(dag.params, params, dag.param_schema);
  if (!resolved.ok) throw new UsageError(`DAG ${dag.name}: ${resolved.error}`);
  if (dag.param_schema) {
    const checked = await checkSchemaParams(dag, dag.param_schema, resolved.list);
    if (!checked.ok) throw new UsageError(`DAG ${dag.name}: ${checked.error}`);
  }
}

/**
 * Dagu's `--default-working-dir`: a DAG that sets no `working_dir` gets this one (taken from the directory
 * the command runs in when relative); a DAG that sets one keeps it.
 */
export function withDefaultWorkingDir(dag: DagSpec, dir: string | undefined): DagSpec {
  if (dir === undefined) return dag;
  if (dir.trim() === '') throw new UsageError('--default-working-dir: the directory is empty');
  if (dag.working_dir !== undefined && dag.working_dir !== null && dag.working_dir !== '') return dag;
  return { ...dag, working_dir: path.resolve(dir) };
}

/** Dagu's `--labels` of `dagu start`/`dagu enqueue`, or its deprecated alias `--tags`. */
export interface LabelFlags {
  labels?: string;
  tags?: string;
}

/**
 * The labels `--labels` (or `--tags`) gives a run besides its DAG's: `key` or `key=value` separated by
 * commas, lowercased; refused (exit 2) with Dagu's text when one is invalid or both flags are given.
 */
export function cliLabels(flags: LabelFlags): string[] {
  const given = labelsFlagText(flags);
  if (!given.ok) throw new UsageError(given.error);
  if (given.text === undefined) return [];
  const read = readLabelsFlag(given.text);
  if (!read.ok) throw new UsageError(read.error);
  return read.labels;
}

/** Dagu drops one pair of quotes around the whole `--params` text. */
function unquote(text: string): string {
  const t = text.trim();
  return t.length >= 2 && (t[0] === '"' || t[0] === "'") && t.endsWith(t[0]) ? t.slice(1, -1) : t;
}

interface StartOptions extends GlobalOptions, ParamFlags, LabelFlags {
  runId?: string;
  /** Dagu's `-N/--name`: run the DAG under this name. */
  name?: string;
  /** Dagu's `--from-run-id`: a new run with the params of this earlier run of the DAG. */
  fromRunId?: string;
  /** Dagu's `--default-working-dir`: the working_dir of a DAG that sets none. */
  defaultWorkingDir?: string;
  triggerType: TriggerType;
  scheduleTime?: string;
  /** Hidden: the file a local DAG run from a temp copy was written in (see ParseDagOptions.sourceFile). */
  localDagSource?: string;
  /** A dispatched run: return once it is handed over instead of waiting for its end. */
  detach?: boolean;
  /** `--no-reuse` (commander's negated flag: false when given). */
  reuse?: boolean;
  /**
   * Set by a run host (cli/runHost.ts), which runs several runs in one process: the run is stopped by this
   * signal (its reason the signal name the steps get) rather than by signals to the process, which belong to
   * the host, and its log lines go to `logStream`, its own process log.
   */
  hosted?: { signal: AbortSignal; logStream: NonNullable<CreateLoggerOptions['stream']> };
}

/**
 * What a run attempt on this host gets: AttemptContext and the sub-DAG runner for its call steps (runAttempt
 * hands `subDag` to the engine).
 */
export type LocalRunContext = AttemptContext & { subDag?: SubDagRunner };

export async function startCommand(dagArg: string, words: string[], opts: StartOptions): Promise<number> {
  const params = cliParams('start', dagArg, words, opts);
  const labels = cliLabels(opts);
  const { config, logger } = cliContext(
    opts,
    { component: 'runner' },
    {},
    { logStream: opts.hosted?.logStream },
  );
  if (opts.runId !== undefined) assertRunId(opts.runId);
  const scheduleTime = opts.scheduleTime ? normalizeTime(opts.scheduleTime) : null;
  await cliDagsInStep(config, logger);
  const loaded = await loadDagOrThrow(
    config,
    dagArg,
    opts.localDagSource ? { sourceFile: path.resolve(opts.localDagSource) } : {},
  );
  const named = opts.name !== undefined ? overrideDagName(loaded, opts.name) : loaded;
  const placed = withDefaultWorkingDir(named, opts.defaultWorkingDir);
  // The run's labels: the DAG's and those of `--labels`, recorded with the run (core/runStatus.ts).
  const dag = withExtraLabels(placed, labels);
  const dagFile = opts.name !== undefined ? dagFileOf(loaded, dagArg) : null;
  const stores = runCommandStores(config, logger, await cliControlPlane(config, logger));
  // A queued run taken over (`--run-id` from the scheduler or the queue) has its params in its record, and
  // a scheduled slot starts as before (its failure recorded, not lost). A start by hand has its params
  // checked before anything is recorded, a new `--run-id` too (as Dagu does): only then is the record read.
  const takesOver =
    opts.runId !== undefined &&
    params.length === 0 &&
    (opts.triggerType !== 'manual' || (await stores.runs.readStatus(opts.runId)).kind !== 'missing');
  if (opts.fromRunId === undefined && !takesOver) await checkCallerParams(dag, params);
  const recordParams = await templateParams(stores, loaded.name, params, opts);
  if (isDistributed(dag, config.default_execution_mode)) {
    // Workers find a DAG by its name, which a renamed run's DAG file does not have.
    if (opts.name !== undefined)
      throw new UsageError(`--name is not supported for DAG ${loaded.name}, which runs on workers`);
    // Following a dispatched run takes the process's signals and output: a run host never gets one (the
    // scheduler queues such DAGs for the workers rather than starting them).
    if (opts.hosted) throw new UsageError(`DAG ${loaded.name} runs on workers, not in a run host`);
    return startDistributed({ config, stores, dag, params, recordParams, scheduleTime, opts });
  }

  const controller = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    logger.warn('Stopping the run', { signal: sig, dag: dag.name });
    controller.abort(sig);
  };
  const stop = opts.hosted?.signal;
  const onStop = () => onSignal(stop!.reason as NodeJS.Signals);
  if (stop) {
    if (stop.aborted) onStop();
    else stop.addEventListener('abort', onStop, { once: true });
  } else {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  try {
    const ctx: LocalRunContext = {
      dag,
      runStore: stores.runs,
      config,
      clock: systemClock,
      timers: systemTimers,
      env: process.env,
      logger: logger.child({ dag: dag.name }),
      signal: controller.signal,
      subDag: cliSubDagRunner(config, logger.child({ dag: dag.name }), stores),
      logStore: stores.logShipping ?? undefined,
      artifactStore: stores.artifactShipping ?? undefined,
      stateStore: stores.state,
      materializations: localMaterializations(config),
    };
    // One attempt, as Dagu's `start`: a DAG-level retry_policy is carried out by the active scheduler
    // (scheduler/dagRetries.ts), which survives this process.
    const final = await startRun({
      ...ctx,
      runId: opts.runId,
      triggerType: opts.triggerType,
      scheduleTime,
      params,
      recordParams,
      newRunId: () => newRunId(Date.now(), randomHex(4)),
      dagFile,
      defaultWorkingDir: placed === named ? null : placed.working_dir,
      paramsJson: cliParamsJson(words, opts),
      noReuse: opts.reuse === false,
    });
    if (!opts.quiet) printSummary(final);
    return exitCodeOf(final);
  } finally {
    stop?.removeEventListener('abort', onStop);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/**
 * A DAG that goes to the workers: a new run is dispatched (held while no worker matches). A queued run the
 * scheduler created and started this process for is handed over as it is; since nothing else holds it, a
 * refusal ends it `failed` rather than leave it queued with nobody to start it.
 */
async function startDistributed(a: {
  config: Config;
  stores: RunCommandStores;
  dag: DagSpec;
  params: ParamSpec[];
  recordParams: readonly string[] | undefined;
  scheduleTime: string | null;
  opts: StartOptions;
}): Promise<number> {
  const { config, stores, dag, opts } = a;
  const follow = { config, stores, detach: opts.detach, quiet: opts.quiet };
  const base = {
    dag,
    operation: 'start',
    selector: resolveSelector(dag),
    previous: null,
    parent: null,
  } as const;
  const existing = opts.runId !== undefined ? await stores.runs.readStatus(opts.runId) : null;
  if (existing?.kind === 'corrupt') throw new RunConflictError(opts.runId!, 'corrupt', existing.error);
  if (existing?.kind !== 'ok') {
    return dispatchAndFollow({
      ...follow,
      params: {
        ...base,
        runId: opts.runId ?? newRunId(Date.now(), randomHex(4)),
        triggerType: opts.triggerType,
        params: newRunParams({ dag, params: a.params, recordParams: a.recordParams }),
        scheduleTime: a.scheduleTime,
        fromQueue: false,
      },
    });
  }
  const queued = existing.status;
  if (queued.status !== 'queued') throw new RunConflictError(queued.run_id, queued.status);
  // The scheduler may offer one queued run twice: exactly one process hands it over.
  const owner = claimOwnerText(hostname(), process.pid, Date.now());
  if (!(await stores.runs.claimAttempt(queued.run_id, queued.attempt, owner)))
    throw new RunConflictError(queued.run_id, 'claimed');
  return dispatchAndFollow({
    ...follow,
    params: {
      ...base,
      runId: queued.run_id,
      triggerType: queued.trigger_type,
      params: queued.params,
      scheduleTime: queued.schedule_time,
      fromQueue: true,
    },
    onRefused: async (refused) => {
      await stores.runs.writeStatus(
        endedStatus(refused.status ?? queued, 'failed', refused.error, isoUtc(Date.now())),
      );
      await stores.runs.unmarkActive(queued.run_id);
    },
  });
}

/**
 * Dagu's `--from-run-id`: the params of an earlier run of the DAG, for a new run (Dagu takes that run's DAG
 * snapshot too; here the DAG file as it is now runs). Params of the caller cannot be given as well.
 */
async function templateParams(
  stores: RunCommandStores,
  dagName: string,
  params: readonly ParamSpec[],
  opts: StartOptions,
): Promise<string[] | undefined> {
  if (opts.fromRunId === undefined) return undefined;
  if (params.length > 0 || opts.params !== undefined)
    throw new UsageError(
      'parameters cannot be given with --from-run-id: the run takes those of the earlier run',
    );
  return (await runOfDag(stores.runs, dagName, assertRunId(opts.fromRunId))).params;
}

function normalizeTime(text: string): string {
  const ms = Date.parse(text);
  if (Number.isNaN(ms))
    throw new UsageError(`--schedule-time: ${JSON.stringify(text)} is not an RFC 3339 time`);
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}
