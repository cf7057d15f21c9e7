// The engine of one run attempt, in Dagu 2.x's order: DAG preconditions, the `init` handler, the steps as
// the graph allows, then one of the success / failure / abort handlers and the exit handler. It stops steps
// on a stop request or the DAG timeout, decides the run's state by Dagu's rules and reports every change.
// It knows nothing about where the status is stored.

import { hostname, tmpdir } from 'node:os';
import { basename, dirname, join, relative as relativePath, resolve as resolvePath } from 'node:path';
import { pushBackEnv } from '../core/approval';
import { formatDuration } from '../core/duration';
import { resolveValue, type StepRefInfo, type ValueScope } from '../core/dag/values';
import type { Clock, Logger } from '../core/ports';
import type { DagSpec, RunState, RunStatus, StepSpec, StepStatus } from '../core/types';
import { SECOND } from '../core/units';
import * as files from '../store/fileCalls';
import { checkConditions } from './checkConditions';
import { runEnvBackticks } from './dagu1Env';
import { loadDotenv } from './dotenv';
import { evaluateRunParams } from './evalParams';
import { filterHostEnv, type HostEnvPassthrough } from './hostEnv';
import { LogFileNames, RUN_LOG_FILE, RunLogWriter, teeLogger, type StepLogFiles } from './logFiles';
import { markRunnerError, runGraph } from './runGraph';
import { failureContinues, finalRunState, type RunFacts } from './runOutcome';
import { isoNow, runStep, type StopReason } from './runStep';
import { DEFAULT_MAX_OUTPUT_BYTES } from './outputCapture';
import { errorText, type StatusReporter } from './statusReporter';
import { chooseShell, defaultShellOf } from './stepCommand';
import {
  buildStepEnv,
  evaluateDagEnv,
  scopeOf,
  withDotenv,
  withSecrets,
  type RunEnv,
  type StepEnv,
  type StepEnvInput,
} from './stepEnv';
import { maskingLogger, SecretMask } from './secretMask';
import { resolveSecrets } from './secrets';
import { nextLevel, type RetryPath } from '../core/retryPath';
import { runCallStep, type LoopItem, type SubDagRunner } from './subDag';
import { actionFailed } from './actions/types';
import { runForeach, type BodyResult } from './foreachStep';
import { resolveWith, type ActionRunner } from './runStepAction';
import type { StateAccess } from './actions/stateAction';
import type { ArtifactsAccess } from './workDir';
import type { ArtifactShipping } from './artifactShipper';
import { ARTIFACTS_DIR_VAR } from '../core/dag/artifactPath';
import { ensureDir, expandHome, stepDirPath } from './workDir';
import { autoRetriesOf, freshStepStatus } from '../core/runStatus';
import type { MaterializationStore } from '../core/build/types';
import { buildPathBase, planBuild, type BuildPlan } from './buildPlan';
import { BuildStep, stepRecipe } from './buildStep';

/** Inputs of one run attempt. The run record already exists; `status` is its initial state. */
export interface ExecuteRunOptions {
  dag: DagSpec;
  /**
   * The manifests and path locks of build DAGs on this host (`type: build`); absent or null: a build DAG's
   * steps with declared paths fail (the store is unavailable), as on a worker, where build DAGs never go.
   */
  materializations?: MaterializationStore | null;
  /** Initial status (run already created); it is copied, set running, and reported on every change. */
  status: RunStatus;
  reporter: StatusReporter;
  /** Absolute directory for this attempt's step logs. */
  logDir: string;
  clock: Clock;
  /** Should already carry `component` and `dag`; the engine adds `run_id`. */
  logger: Logger;
  /** Abort = stop the run. A signal name as the reason (`'SIGINT'`) is forwarded to steps; else SIGTERM. */
  signal: AbortSignal;
  /** Time between the stop signal and SIGKILL when the DAG sets no `max_clean_up_time_sec`. */
  killGraceMs: number;
  heartbeatIntervalMs: number;
  /** The dagu process's environment: DAG `env` may read all of it; steps get its filtered part. */
  baseEnv: NodeJS.ProcessEnv;
  /** Host variables steps get besides the built-in list (config `env_passthrough*`). */
  envPassthrough?: HostEnvPassthrough;
  /**
   * The run's work directory (DAG_RUN_WORK_DIR), where steps run when the DAG has no `working_dir`;
   * created if missing. Absent: one under the OS temp directory.
   */
  workDir?: string;
  /** Starts the child runs of `call:` steps; without it a call step fails with NO_SUB_DAG_RUNNER. */
  subDag?: SubDagRunner;
  /**
   * Resume: the steps of the attempt being resumed. Each step that succeeded there (and whose dependencies
   * all did too) keeps its status and output and does not run again; every other step runs.
   */
  resumeFrom?: readonly StepStatus[];
  /**
   * Dagu's `retry --step`: with `resumeFrom`, every step keeps its status from the attempt before (whatever
   * it was), and only this one runs again; its dependents keep theirs too, as in Dagu.
   */
  retryStep?: string;
  /** With `retryStep`: the steps downstream of it (depending on it, directly or not) start fresh too. */
  retryDownstream?: boolean;
  /**
   * Dagu's `retry --sub-run-id` (with `retryStep`, its first hop's step): that call step retries its child of the
   * previous attempt named by the path, instead of starting new ones.
   */
  retryPath?: RetryPath;
  /**
   * Dagu's plain `retry`: with `resumeFrom`, the steps that failed, were aborted or rejected, and every step
   * downstream of one of them, run again; every other step keeps what it had (succeeded, skipped, ...).
   */
  retryFailed?: boolean;
  /** Sends the run's `mail_on` notification; a failure is logged and changes nothing. */
  notify?: (dag: DagSpec, status: RunStatus) => Promise<void>;
  /**
   * Sends the error mail for a step with `mail_on_error` that failed (the run still running); a failure is
   * logged and changes nothing. The run waits for it before it ends.
   */
  notifyStepFailure?: (dag: DagSpec, status: RunStatus, step: StepStatus) => Promise<void>;
  /**
   * The run process's own log (`process.log`, where its output goes when the server or a scheduler started
   * it). When that file exists it is the run's log file (DAG_RUN_LOG_FILE, `${context.paths.log_file}`);
   * otherwise the engine writes its own lines to `_run.log` in `logDir` and that is the run's log file.
   */
  processLog?: string;
  /**
   * Where the run's log files go besides the local disk (a database backend): told of each file as it is
   * made and of each step's end, and waited for before the final status is written.
   */
  logShipping?: LogShipping;
  /** The state store the `state.*` steps use, or why this process has none; absent: none. */
  state?: StateAccess;
  /**
   * Where the run's artifacts go when its DAG has them on (DAG_RUN_ARTIFACTS_DIR), or why this process keeps
   * none (the run then fails before its first step); absent: a folder beside the default work directory.
   */
  artifacts?: ArtifactsAccess;
  /** Where the run's artifacts are copied besides the local disk (a database backend); absent: none. */
  artifactShipping?: ArtifactShipping;
}

/** What the engine tells the shipping of its logs (runner/logShipper.ts, adapted by runAttempt). */
export interface LogShipping {
  /** A log file of the run (it may not exist yet). */
  watch(file: string): void;
  /** A step or handler ended: its logs are complete. */
  stepEnded(): void;
  /** Ships what is left before the final status is written; bounded, never throws. */
  beforeFinalStatus(): Promise<void>;
}

type HandlerKind = 'init' | 'success' | 'failure' | 'abort' | 'exit' | 'wait';

/**
 * The steps one graph runs and what they see: the run's own steps, or one item of a foreach body (whose steps
 * see the foreach step's scope, the item, and each other's outputs, not the run's other steps).
 */
interface Frame {
  specs: readonly StepSpec[];
  specsByName: ReadonlyMap<string, StepSpec>;
  /** The steps' statuses, in `specs` order; the run's are `status.steps`. */
  steps: StepStatus[];
  /** Each step's log files, once it started. */
  files: Map<string, StepLogFiles>;
  logNames: LogFileNames;
  /** Absolute, and relative to the logs root (as StepStatus.stdout is). */
  logDir: string;
  logDirRelative: string;
  /** Whether a failed step's continue_on matched, worked out when it ends (its stdout log may be read). */
  continuesMemo: Map<string, boolean>;
  run: RunEnv;
  /** A foreach body's item scope (`${foreach.*}`); null for the run's own steps. */
  foreach: Readonly<Record<string, unknown>> | null;
  /** The foreach item a body frame runs: where its steps' child runs are listed. Null for the run's own steps. */
  loop: LoopItem | null;
  addError(message: string): void;
  /** Stops the frame's graph (the whole run for the run's own steps, one item for a body). */
  cancel(reason: StopReason): void;
}

/** Runs the attempt to its end and returns the final status. Never throws for a step or storage failure. */
export async function executeRun(opts: ExecuteRunOptions): Promise<RunStatus> {
  const { clock } = opts;
  const dag = withoutBaseHandlersInChild(opts.dag, opts.status);
  // Callers name the component and DAG; the run ID is what only the engine knows for sure. The engine's
  // lines also go to the run's own log file when it has no process log (decided below).
  const runLog = new RunLogWriter(() => isoNow(clock));
  // The run's secrets, once resolved: masked in its log lines, its step logs and every status it reports.
  let secretMask: SecretMask | null = null;
  const shown = <T>(s: T): T => (secretMask === null ? s : secretMask.deep(s));
  const logger = maskingLogger(
    teeLogger(opts.logger.child({ run_id: opts.status.run_id }), runLog),
    () => secretMask,
  );
  const status: RunStatus = structuredClone(opts.status);
  Object.assign(status, {
    status: 'running',
    started_at: isoNow(clock),
    finished_at: null,
    pid: process.pid,
    host: hostname(),
    error: null,
    conditions: [],
    handlers: {},
    steps:
      opts.retryStep !== undefined
        ? stepRetrySteps(dag.steps, opts.resumeFrom ?? [], opts.retryStep, opts.retryDownstream === true)
        : opts.retryFailed
          ? failedRetrySteps(dag.steps, opts.resumeFrom ?? [])
          : initialSteps(dag.steps, opts.resumeFrom ?? []),
  } satisfies Partial<RunStatus>);
  const report = () => {
    opts.reporter
      .write(shown(status))
      .catch((err) => logger.warn('Status report failed', { error: errorText(err) }));
  };

  // Dagu's run facts (research note §8.2): `failed` only for a DAG precondition that could not be
  // evaluated, `cancelled` for anything that stops the run early, `errors` for the run error.
  const facts = { failed: false, cancelled: false, errors: [] as string[] };
  const addError = (message: string) => facts.errors.push(message);

  const stopper = new AbortController();
  const cancel = (reason: StopReason) => {
    if (stopper.signal.aborted) return;
    if (reason.kind === 'aborted') facts.cancelled = true;
    stopper.abort(reason);
  };
  const onAbort = () => cancel(abortReason(opts.signal.reason));
  if (opts.signal.aborted) onAbort();
  else opts.signal.addEventListener('abort', onAbort, { once: true });
  let timedOut = false;
  const dagTimeout =
    dag.timeout_sec !== null && dag.timeout_sec > 0
      ? setTimeout(() => {
          timedOut = true;
          const message = `run timed out after ${formatDuration(dag.timeout_sec! * SECOND)} (context deadline exceeded)`;
          addError(message);
          cancel({ kind: 'timed_out', message });
        }, dag.timeout_sec * SECOND)
      : null;
  const heartbeat = () => {
    opts.reporter
      .heartbeat(clock.nowMs())
      .catch((err) => logger.warn('Heartbeat failed', { error: errorText(err) }));
  };
  const heartbeatTimer = setInterval(heartbeat, Math.max(1, opts.heartbeatIntervalMs));
  heartbeatTimer.unref();

  // The first heartbeat comes after one interval: until then the reaper goes by the run's start time, which
  // is as fresh (the stale threshold is at least twice the interval), and a short run writes none at all.
  report();
  logger.info('Run started', { attempt: status.attempt, pid: status.pid });

  const killGraceMs =
    dag.max_clean_up_time_sec !== undefined && dag.max_clean_up_time_sec >= 0
      ? dag.max_clean_up_time_sec * SECOND
      : opts.killGraceMs;
  // Whether a failed step's continue_on matched, worked out when it ends (its stdout log may be read).
  const continues = (frame: Frame, spec: StepSpec, s: StepStatus): boolean =>
    s.status === 'failed' && (frame.continuesMemo.get(spec.name) ?? failureContinues(spec, s, () => ''));
  const settleContinues = async (frame: Frame, spec: StepSpec, s: StepStatus): Promise<void> => {
    if (s.status !== 'failed') return;
    const file = frame.files.get(spec.name)?.stdout;
    const stdout = (spec.continue_on.output ?? []).length > 0 && file ? await readHead(file) : '';
    frame.continuesMemo.set(
      spec.name,
      failureContinues(spec, s, () => stdout),
    );
  };

  // --- Preparation: log directory, work directory, run environment, dotenv. A failure here fails the run.
  let setupError: string | null = null;
  await files.mkdir(opts.logDir, true).catch((err) => {
    setupError = `cannot create log directory ${JSON.stringify(opts.logDir)}: ${errorText(err)}`;
  });
  let runLogFile = join(opts.logDir, RUN_LOG_FILE);
  if (opts.processLog !== undefined && (await isFile(opts.processLog))) {
    runLogFile = opts.processLog;
    runLog.discard();
  } else if (setupError === null) {
    runLog.open(runLogFile);
  } else {
    runLog.discard();
  }
  opts.logShipping?.watch(runLogFile);
  const stepEnded = () => {
    opts.logShipping?.stepEnded();
    if (artifactsDir !== null) opts.artifactShipping?.stepEnded();
  };
  const hostEnv = filterHostEnv(opts.baseEnv, opts.envPassthrough);
  const runWorkDir = opts.workDir ?? join(tmpdir(), `dagu_${dag.name}_${status.run_id}`);
  const workDirError = setupError === null ? await ensureDir(runWorkDir) : null;
  if (workDirError) setupError = workDirError;
  let artifactsDir: string | null = null;
  if (dag.artifacts?.enabled) {
    const access = opts.artifacts ?? { dir: join(tmpdir(), `dagu_${dag.name}_${status.run_id}_artifacts`) };
    if (access.dir === null) setupError ??= access.reason;
    else {
      artifactsDir = access.dir;
      const dirError = setupError === null ? await ensureDir(artifactsDir) : null;
      if (dirError) setupError = `cannot create the artifacts directory: ${dirError}`;
      if (setupError === null && opts.artifactShipping) {
        const restored = await opts.artifactShipping.restore().then(
          () => null,
          (err: unknown) => errorText(err),
        );
        if (restored !== null) setupError = `cannot restore the run's artifacts: ${restored}`;
      }
    }
  }
  // Params: pending `eval`s and the rich definitions' checks, before anything reads them.
  if (setupError === null) {
    const laid = await evaluateRunParams(dag, status.params, {
      baseEnv: opts.baseEnv,
      cwd: runWorkDir,
      signal: stopper.signal,
    });
    if (laid.ok) status.params = laid.list;
    else setupError = laid.error;
  }
  // A Dagu 1.x file: the backtick parts of the entries it names run now, in the DAG file's directory.
  let dagEnv = dag.env;
  if (setupError === null && (dag.env_eval ?? []).length > 0) {
    const ran = await runEnvBackticks(dag.env, dag.env_eval, {
      shell: ['sh'],
      cwd: dag.file ? dirname(dag.file) : runWorkDir,
      env: { ...hostEnv, ...paramVars(status.params) } as NodeJS.ProcessEnv,
      signal: stopper.signal,
    });
    if (ran.ok) dagEnv = ran.env;
    else setupError = ran.error;
  }
  let run: RunEnv = evaluateDagEnv(
    {
      processEnv: opts.baseEnv,
      filteredHost: hostEnv,
      params: status.params,
      paramsJson: status.params_json,
      managed: {
        DAG_NAME: dag.name,
        DAG_RUN_ID: status.run_id,
        DAG_RUN_WORK_DIR: runWorkDir,
        DAG_RUN_SCHEDULE_TIME: status.schedule_time ?? '',
        DAG_RUN_LOG_FILE: runLogFile,
        ...(artifactsDir !== null ? { [ARTIFACTS_DIR_VAR]: artifactsDir } : {}),
      },
      // `run.status` is only for handlers (Dagu: status-aware scopes); steps leave the reference as it is.
      context: {
        'dag.name': dag.name,
        'run.id': status.run_id,
        'attempt.id': String(status.attempt),
        'attempt.started_at': rfc3339Seconds(status.started_at!),
        'trigger.type': status.trigger_type,
        'paths.work_dir': runWorkDir,
        'paths.log_file': runLogFile,
        ...(artifactsDir !== null ? { 'paths.artifacts_dir': artifactsDir } : {}),
        ...(status.schedule_time ? { 'run.scheduled_at': rfc3339Seconds(status.schedule_time) } : {}),
      },
      consts: dag.consts,
    },
    dagEnv,
  );
  // Root fields resolve against the run scope (params, consts, context, DAG env) and the host environment.
  const rootValue = (text: string) =>
    resolveValue(text, scopeOf(run, run.vars, { hostEnv: definedEnv(opts.baseEnv) }), 'hostValue');
  // An explicit DAG working_dir (absolute after load; `~` and references are resolved now, and it is created
  // when missing, as Dagu does), else the work dir.
  const dagDir =
    dag.working_dir !== undefined && dag.working_dir !== null && dag.working_dir !== ''
      ? resolvePath(
          dag.file ? dirname(dag.file) : runWorkDir,
          expandHome(rootValue(dag.working_dir), hostEnv.HOME),
        )
      : runWorkDir;
  if (setupError === null && dagDir !== runWorkDir) {
    const dirError = await ensureDir(dagDir);
    if (dirError) setupError = dirError;
  }
  if (setupError === null) {
    const dotenvPaths = (dag.dotenv ?? []).map(rootValue);
    // A local DAG run from a temp copy looks in its temp directory, as Dagu's does (dag.file, not source_file).
    const fileDir = dag.file ? dirname(dag.file) : dagDir;
    const bases = dag.working_dir ? [dagDir, fileDir] : [fileDir];
    const loaded = await loadDotenv(dotenvPaths, bases);
    for (const w of loaded.warnings) logger.warn('Dotenv file not loaded', { error: w });
    run = withDotenv(run, loaded.values);
    if ((dag.secrets ?? []).length > 0) {
      const envNames = [...Object.keys(dagEnv), ...loaded.values.map(([name]) => name)];
      const resolved = await resolveSecrets(dag.secrets!, {
        dagEnv: Object.fromEntries(
          envNames.flatMap((n) => (run.vars[n] !== undefined ? [[n, run.vars[n]!]] : [])),
        ),
        hostEnv: opts.baseEnv,
        baseDirs: dag.file ? [dagDir, dirname(dag.file)] : [dagDir],
      });
      if (resolved.ok) {
        secretMask = new SecretMask(resolved.values.map(([, v]) => v));
        run = withSecrets(run, resolved.values);
      } else setupError = resolved.error;
    }
  }
  // The DAG shell and its args are resolved once the run scope is complete; steps get them resolved.
  const shellDag: DagSpec = {
    ...dag,
    shell: dag.shell ? rootValue(dag.shell) : dag.shell,
    shell_args: dag.shell_args?.map(rootValue),
  };
  const dagShell = chooseShell({
    stepShell: null,
    stepShellArgs: [],
    dagShell: shellDag.shell ?? null,
    dagShellArgs: shellDag.shell_args ?? [],
    defaultShell: defaultShellOf(hostEnv),
  }).words;

  // A build DAG: its steps' declared paths, resolved and compared now; a step that reads a file another makes
  // depends on it (the status records those dependencies too, for the console's graph).
  let buildPlan: BuildPlan | null = null;
  let graphSpecs: readonly StepSpec[] = dag.steps;
  if (setupError === null && dag.type === 'build') {
    try {
      const base = buildPathBase(dag, dag.working_dir ? dagDir : null);
      buildPlan = await planBuild(
        dag,
        base,
        (text) => resolveValue(text, scopeOf(run, run.vars, {}), 'value'),
        // Where a step opens a relative stdout/stderr file; null when its directory is only known later.
        (spec) => {
          const dir = spec.dir ? rootValue(spec.dir) : null;
          return dir?.includes('${') ? null : stepDirPath(dagDir, dir, hostEnv.HOME);
        },
      );
      graphSpecs = buildPlan.specs;
      for (const spec of graphSpecs) {
        const s = status.steps.find((x) => x.name === spec.name);
        if (s) s.depends = [...spec.depends];
      }
    } catch (err) {
      setupError = errorText(err);
    }
  }

  const top: Frame = {
    specs: graphSpecs,
    specsByName: new Map(graphSpecs.map((s) => [s.name, s])),
    steps: status.steps,
    files: new Map(),
    logNames: new LogFileNames(opts.logDir, status.log_dir),
    logDir: opts.logDir,
    logDirRelative: status.log_dir,
    continuesMemo: new Map(),
    run,
    foreach: null,
    loop: null,
    addError,
    cancel,
  };

  /** The call step `name` the retry path goes through, and what it does there (see CallStepRun). */
  const retryThrough = (name: string, inLoop: boolean) => {
    const path = opts.retryPath;
    const hop = path?.hops[0];
    if (!path || !hop || inLoop || hop.step !== name) return undefined;
    const next = nextLevel(path);
    return {
      runId: hop.run_id,
      step: next.step,
      rest: next.rest,
      // As in Dagu, --downstream holds in the run whose step is retried, not in the runs on the way to it.
      downstream: next.rest === null && path.downstream,
      previous: opts.resumeFrom?.find((s) => s.name === name)?.sub_runs ?? [],
    };
  };

  // --- One step or handler.
  /** `mail_on_error` mails under way; the run waits for them before it ends. */
  const mails: Promise<void>[] = [];
  const outputsOf = (frame: Frame, names: Iterable<string>): Record<string, string> => {
    const out: Record<string, string> = Object.create(null);
    for (const name of names) {
      const s = frame.steps.find((x) => x.name === name);
      if (s?.output) Object.assign(out, s.output);
    }
    return out;
  };
  /**
   * Step references by id. Published declared outputs (`${steps.<id>.outputs.<name>}`) only of the steps in
   * `upstream` (the ones this step depends on, directly or not); a handler gets none (Dagu spec 007).
   */
  const stepRefs = (frame: Frame, upstream: ReadonlySet<string>, handler: boolean) => {
    const refs: Record<string, StepRefInfo> = {};
    for (const spec of frame.specs) {
      if (!spec.id) continue;
      const s = frame.steps.find((x) => x.name === spec.name);
      const f = frame.files.get(spec.name);
      const out = s?.output && spec.output ? (s.output[spec.output] ?? null) : null;
      const outputs = upstream.has(spec.name) ? (s?.outputs ?? null) : null;
      // Structured outputs (object output, stdout.outputs): for the steps upstream, and every step in handlers.
      const sees = handler || upstream.has(spec.name);
      refs[spec.id] = {
        stdout: f?.stdout,
        stderr: f?.stderr,
        exit_code: s?.exit_code ?? null,
        output: (sees ? s?.output_value : null) ?? out,
        outputs,
        published_outputs: sees ? (s?.published_outputs ?? null) : null,
      };
    }
    return refs;
  };

  /** Runs one step (or handler) to its end; its status is set `running` before the first await. */
  const runOne = async (
    frame: Frame,
    spec: StepSpec,
    stepStatus: StepStatus,
    stop: AbortSignal,
    handler: { kind: HandlerKind; runState: RunState | 'running' } | null,
  ): Promise<void> => {
    const { run } = frame;
    Object.assign(stepStatus, { status: 'running', started_at: isoNow(clock), error: null });
    report();
    const f = frame.logNames.allocate(spec.name, (spec.log_output ?? dag.log_output) === 'merged');
    frame.files.set(spec.name, f);
    opts.logShipping?.watch(f.stdout);
    if (f.stderr !== f.stdout) opts.logShipping?.watch(f.stderr);
    stepStatus.stdout = f.stdoutRelative;
    stepStatus.stderr = f.stderrRelative;
    const fail = (message: string) => {
      Object.assign(stepStatus, { status: 'failed', error: message, finished_at: isoNow(clock) });
      if (!handler) frame.addError(`step ${JSON.stringify(spec.name)} failed: ${message}`);
      report();
    };

    let env: StepEnv;
    let envInput: StepEnvInput;
    let cwd: string;
    // A build DAG's step: its planned paths (the run's own steps only; handlers and bodies declare none).
    const planned = !handler && frame.loop === null ? (buildPlan?.steps.get(spec.name) ?? null) : null;
    const inputPaths = planned ? Object.fromEntries(planned.inputs.map((i) => [i.name, i.path])) : undefined;
    try {
      // Steps see the outputs of the steps they depend on, directly or not; handlers see every output.
      const upstream = handler ? [] : upstreamOrder(spec.name, frame.specsByName);
      const visible = handler ? frame.specs.map((s) => s.name) : upstream;
      const refs = stepRefs(frame, new Set(upstream), handler !== null);
      // Dagu: `context.step.id` for a step with an id (not for handlers); `run.status` only in handlers.
      const stepContext: Record<string, string> = {};
      if (!handler && spec.id) stepContext['step.id'] = spec.id;
      if (handler) stepContext['run.status'] = handler.runState;
      const pwdGuess = dagDir;
      const partial = buildStepEnv(run, {
        name: spec.name,
        pwd: pwdGuess,
        outputs: outputsOf(frame, visible),
        env: {},
        files: null,
        steps: refs,
        context: stepContext,
      });
      if (frame.foreach) partial.scope.foreach = frame.foreach;
      const dirText = spec.dir
        ? resolveValue(spec.dir, { ...partial.scope, hostEnv: definedEnv(opts.baseEnv) }, 'hostValue')
        : null;
      cwd = stepDirPath(dagDir, dirText, hostEnv.HOME);
      let ownEnv = spec.env;
      if ((spec.env_eval ?? []).length > 0) {
        const ran = await runEnvBackticks(spec.env, spec.env_eval, {
          shell: ['sh'],
          cwd: dagDir,
          env: partial.processEnv,
          signal: stopper.signal,
        });
        if (!ran.ok) return fail(ran.error);
        ownEnv = ran.env;
      }
      envInput = {
        name: spec.name,
        pwd: cwd,
        outputs: outputsOf(frame, visible),
        env: ownEnv,
        files: handler ? null : { stdout: f.stdout, stderr: f.stderr, outputFile: f.output },
        extra: handler
          ? {
              DAG_RUN_STATUS: handler.runState,
              // Dagu's onWait handler learns which steps wait (their names, comma-separated).
              ...(handler.kind === 'wait'
                ? {
                    DAG_WAITING_STEPS: status.steps
                      .filter((s) => s.status === 'waiting')
                      .map((s) => s.name)
                      .join(','),
                  }
                : {}),
            }
          : stepStatus.push_back
            ? pushBackEnv(stepStatus.push_back, spec.approval?.input ?? [], previousStdoutPath(stepStatus))
            : {},
        handler: handler !== null,
        steps: refs,
        context: stepContext,
        ...(inputPaths ? { buildPaths: { inputs: inputPaths } } : {}),
      };
      env = buildStepEnv(run, envInput);
      if (frame.foreach) env.scope.foreach = frame.foreach;
    } catch (err) {
      return fail(`cannot prepare the step: ${errorText(err)}`);
    }
    if (cwd !== dagDir) {
      const dirError = await ensureDir(cwd);
      if (dirError) return fail(dirError);
    }

    // A build DAG's step takes its path locks before its preconditions run, and holds them to its end.
    let build: BuildStep | null = null;
    if (planned) {
      build = await BuildStep.prepare(
        {
          store: opts.materializations ?? null,
          dag,
          step: spec,
          plan: planned,
          runId: status.run_id,
          attempt: status.attempt,
          noReuse: status.no_reuse === true,
          dry: false,
          deferred: false,
          ...controlFacts(spec.name),
        },
        stop,
      );
      stepStatus.build = { ...build.metadata };
      if (build.failure) return fail(build.failure.message);
      report();
    }
    try {
      // Step preconditions: checked once, when the step becomes ready (handlers have them too).
      // The step's shell: its preconditions run in it, and a build step's recipe records it.
      const shell = chooseShell({
        stepShell: spec.shell,
        stepShellArgs: spec.shell_args ?? [],
        dagShell: shellDag.shell ?? null,
        dagShellArgs: shellDag.shell_args ?? [],
        defaultShell: defaultShellOf(hostEnv),
      }).words;
      if ((spec.preconditions ?? []).length > 0) {
        const outcome = await checkConditions(spec.preconditions ?? [], {
          shell,
          env: env.processEnv,
          cwd,
          scope: env.scope,
          signal: stop,
          maxOutputBytes: dag.max_output_size,
        });
        if (outcome.status === 'not_met') {
          build?.preconditionEnded('precondition_not_met', outcome.reason);
          Object.assign(stepStatus, {
            status: 'skipped',
            skip_reason: outcome.reason,
            finished_at: isoNow(clock),
            ...(build ? { build: { ...build.metadata } } : {}),
          });
          report();
          logger.info('Step skipped', { step: spec.name, reason: outcome.reason });
          return;
        }
        if (outcome.status === 'error') {
          build?.preconditionEnded('precondition_error', outcome.error);
          if (build) stepStatus.build = { ...build.metadata };
          fail(outcome.error);
          // Dagu cancels the rest of the run: it ends aborted, with the error.
          if (!handler) {
            frame.cancel({ kind: 'aborted', signal: 'SIGTERM', message: `run cancelled: ${outcome.error}` });
          }
          return;
        }
      }

      // A build step is evaluated once its preconditions passed: reused (it succeeds without running), or it
      // executes, each attempt staging a fresh file that only a successful attempt publishes.
      let staging: string | null = null;
      if (build) {
        try {
          await build.evaluate(
            stepRecipe(spec, {
              shell,
              cwd,
              params: status.params,
              processEnv: env.processEnv,
              run: { id: status.run_id, workDir: runWorkDir },
            }),
          );
        } catch (err) {
          stepStatus.build = { ...build.metadata };
          return fail(errorText(err));
        }
        stepStatus.build = { ...build.metadata };
        if (build.reused) {
          stepStatus.outputs = { ...(stepStatus.outputs ?? {}), ...build.published() };
          Object.assign(stepStatus, { status: 'succeeded', finished_at: isoNow(clock) });
          report();
          logger.info('Step reused', { step: spec.name, reason: build.metadata.reason });
          return;
        }
        report();
      }
      const buildAttempts =
        build && build.hasOutput
          ? {
              begin: (retry: number) => {
                const a = build.newAttempt(retry)!;
                staging = a.staging;
                const attemptEnv = buildStepEnv(run, {
                  ...envInput,
                  buildPaths: { inputs: inputPaths ?? {}, outputs: a.outputs },
                });
                return { env: attemptEnv.processEnv, scope: attemptEnv.scope };
              },
              end: async (ok: boolean): Promise<string | null> => {
                const file = staging;
                staging = null;
                if (!ok || file === null) {
                  await build.discard(file);
                  return null;
                }
                try {
                  await build.commit(file);
                  stepStatus.outputs = { ...(stepStatus.outputs ?? {}), ...build.published() };
                  return null;
                } catch (err) {
                  await build.discard(file);
                  return errorText(err);
                } finally {
                  stepStatus.build = { ...build.metadata };
                }
              },
            }
          : undefined;

      if (spec.action?.kind === 'human') {
        // A human task runs nothing: it opens (its prompt resolved now, and fixed) and waits for its completion.
        let prompt: string;
        try {
          prompt = resolveValue(spec.action.prompt, env.scope, 'value');
        } catch (err) {
          return fail(`cannot resolve the human task's prompt: ${errorText(err)}`);
        }
        Object.assign(stepStatus, {
          status: 'waiting',
          human_task: {
            id: spec.id ?? spec.name,
            prompt,
            form: spec.action.form,
            max_size: dag.max_output_size ?? DEFAULT_MAX_OUTPUT_BYTES,
          },
          stdout: null,
          stderr: null,
        });
        report();
        logger.info('Human task waiting', { step: spec.name });
        return;
      }
      let state =
        spec.call !== null || spec.action?.kind === 'dag'
          ? await runCallStep({
              step: spec,
              status: stepStatus,
              // A body step's children belong to its foreach step, the step the run's status shows.
              parent: { run_id: status.run_id, dag_name: dag.name, step: frame.loop?.stepName ?? spec.name },
              loop: frame.loop ?? undefined,
              attempt: status.attempt,
              runner: opts.subDag,
              retryThrough: retryThrough(spec.name, frame.loop !== null),
              files: f,
              clock,
              stop,
              onChange: report,
              dag,
              resolve: (text, extra) =>
                resolveValue(text, { ...env.scope, vars: { ...env.scope.vars, ...extra } }, 'value'),
            })
          : await runStep({
              step: spec,
              status: stepStatus,
              env: env.processEnv,
              mask: secretMask,
              positional: run.params.positional,
              cwd,
              files: f,
              killGraceMs,
              clock,
              stop,
              onChange: report,
              dag: shellDag,
              defaultShell: defaultShellOf(hostEnv),
              scope: env.scope,
              hostEnv: definedEnv(opts.baseEnv),
              once: handler !== null,
              outputFile: handler ? undefined : f.output,
              runAction:
                spec.action?.kind === 'foreach' ? foreachRunner(frame, spec, stepStatus, f, env) : undefined,
              state: opts.state,
              buildAttempts,
            });
      const declared = spec.outputs ?? [];
      if (
        state === 'succeeded' &&
        declared.length > 0 &&
        (spec.call !== null || spec.action?.kind === 'dag')
      ) {
        // A sub-DAG step writes no output file: what it declares is never emitted (Dagu fails it the same way).
        state = 'failed';
        Object.assign(stepStatus, {
          status: 'failed',
          error: `failed to parse DAGU_OUTPUT_FILE: declared step output ${JSON.stringify(declared[0]!.name)} was not emitted`,
        });
        report();
      }
      if (state === 'failed' && !handler) {
        await settleContinues(frame, spec, stepStatus);
        const stepTimedOut = stepStatus.exit_code === 124 && /timed out/.test(stepStatus.error ?? '');
        if (spec.continue_on.mark_success && frame.continuesMemo.get(spec.name) && !stepTimedOut) {
          // mark_success: a matched continue rule rewrites the failure to a success; no run error.
          stepStatus.status = 'succeeded';
          report();
        } else {
          frame.addError(`step ${JSON.stringify(spec.name)} failed: ${stepStatus.error}`);
        }
      }
      if (stepStatus.status === 'failed' && spec.mail_on_error && opts.notifyStepFailure) {
        // Dagu mails a step's failure when it happens (the run still running), from the side.
        const failed = structuredClone(stepStatus);
        mails.push(
          opts
            .notifyStepFailure(dag, shown(structuredClone(status)), shown(failed))
            .catch((err) =>
              logger.warn('Step failure mail failed', { step: spec.name, error: errorText(err) }),
            ),
        );
      }
      if (!handler && spec.approval && stepStatus.status === 'succeeded') {
        // Dagu's approval gate: the step's command succeeded; it waits for an approval (or a push-back). Its
        // prompt is shown as written: Dagu does not resolve it.
        Object.assign(stepStatus, {
          status: 'waiting',
          approval: {
            prompt: spec.approval.prompt,
            input: [...spec.approval.input],
            required: [...spec.approval.required],
            rewind_to: spec.approval.rewind_to,
          },
        } satisfies Partial<StepStatus>);
        report();
        logger.info('Step waiting for approval', { step: spec.name });
      }
      logger.info('Step finished', { step: spec.name, state, exit_code: stepStatus.exit_code });
    } finally {
      if (build) {
        await build
          .close()
          .catch((err: unknown) =>
            logger.warn('Build path locks not released', { step: spec.name, error: errorText(err) }),
          );
        stepStatus.build = { ...build.metadata };
      }
    }
  };

  /**
   * A build step's control dependencies (its `depends` as written, not those its inputs implied): whether one
   * of them executed in this run rather than being reused, and their fingerprints (part of its own).
   */
  const controlFacts = (name: string) => {
    const controlTokens: Record<string, string> = {};
    let controlDependencyRan = false;
    for (const dep of dag.steps.find((s) => s.name === name)?.depends ?? []) {
      const b = status.steps.find((s) => s.name === dep)?.build;
      if (b?.fingerprint) controlTokens[dep] = b.fingerprint;
      if (b?.decision !== 'reuse') controlDependencyRan = true;
    }
    return { controlTokens, controlDependencyRan };
  };

  /** The absolute path of the stdout log of a pushed-back step's run before, or null. */
  const previousStdoutPath = (s: StepStatus): string | null => {
    const prev = s.push_back?.previous_stdout;
    if (!prev) return null;
    return resolvePath(opts.logDir, relativePath(status.log_dir, prev));
  };

  /** The in-process runner of a foreach step: the loop of foreachStep.ts, each item's body a graph here. */
  const foreachRunner =
    (frame: Frame, spec: StepSpec, stepStatus: StepStatus, f: StepLogFiles, env: StepEnv): ActionRunner =>
    (action, ctx) => {
      if (action.kind !== 'foreach') return Promise.resolve(actionFailed(`${action.kind}: not a foreach`));
      // A retried or repeated foreach step logs each execution's bodies apart.
      const executions = (stepStatus.retry_count ?? 0) + (stepStatus.repeat_count ?? 0);
      const base = basename(f.stdout).replace(/\.[a-z]+$/, '') + (executions > 0 ? `.${executions}` : '');
      // The child runs of this execution's bodies (a retry lists its own).
      delete stepStatus.sub_runs;
      return runForeach(action.foreach, ctx, {
        resolve: (text, item) =>
          resolveValue(text, item ? { ...env.scope, foreach: item } : env.scope, 'value'),
        resolveItems: (items) => resolveWith(items, env.scope) as unknown[],
        onItems: (items) => {
          stepStatus.foreach_items = items.map((i) => ({ ...i }));
          report();
        },
        runBody: (index, item, signal) => {
          const path = `foreach/${base}/${index}`;
          const loop: LoopItem = {
            stepName: spec.name,
            path,
            label: stepStatus.foreach_items?.[index]?.label ?? String(index),
            owner: stepStatus,
          };
          return runForeachBody(frame, action.foreach.steps, env, loop, item, signal);
        },
      });
    };

  /** Runs one item of a foreach body to its end, in a frame of its own. */
  const runForeachBody = async (
    parent: Frame,
    specs: readonly StepSpec[],
    env: StepEnv,
    loop: LoopItem,
    item: Readonly<Record<string, unknown>>,
    signal: AbortSignal,
  ): Promise<BodyResult> => {
    const subDir = loop.path;
    const logDir = join(parent.logDir, subDir);
    const logDirRelative = parent.logDirRelative ? `${parent.logDirRelative}/${subDir}` : subDir;
    await files.mkdir(logDir, true);
    const stop = new AbortController();
    let timedOutBody = false;
    const onAbort = () => {
      const reason = signal.reason as StopReason | Error | undefined;
      if (reason && 'kind' in reason) {
        timedOutBody = reason.kind === 'timed_out';
        stop.abort(reason);
      } else {
        // The foreach step's own timeout: its body ends as a run that timed out.
        timedOutBody = true;
        stop.abort({ kind: 'timed_out', message: 'step timed out' } satisfies StopReason);
      }
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    const errors: string[] = [];
    let cancelled = false;
    const frame: Frame = {
      specs,
      specsByName: new Map(specs.map((s) => [s.name, s])),
      steps: specs.map((s) => freshStepStatus(s.name)),
      files: new Map(),
      logNames: new LogFileNames(logDir, logDirRelative),
      logDir,
      logDirRelative,
      continuesMemo: new Map(),
      // The body starts from the foreach step's scope: the run's, its upstream outputs and its own env.
      run: { ...parent.run, vars: env.scope.vars as Record<string, string> },
      foreach: item,
      loop,
      addError: (message) => errors.push(message),
      cancel: (reason) => {
        cancelled = true;
        stop.abort(reason);
      },
    };
    try {
      await runGraph({
        specs,
        steps: frame.steps,
        maxActive: 0,
        delayMs: 0,
        stop: stop.signal,
        timedOut: () => timedOutBody,
        continues: (spec, s) => continues(frame, spec, s),
        start: (spec, s) => runOne(frame, spec, s, stop.signal, null).finally(stepEnded),
        report,
      });
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
    const state = finalRunState(frame.steps, {
      failed: false,
      cancelled: cancelled || stop.signal.aborted,
      error: errors.length > 0,
      continues: new Map(specs.map((spec, i) => [spec.name, continues(frame, spec, frame.steps[i])])),
    });
    if (state !== 'succeeded') return { ok: false, state, error: errors[0] ?? state };
    // `collect` sees every body step: output variables by name, and references by id.
    const names = specs.map((s) => s.name);
    const scope: ValueScope = {
      ...env.scope,
      vars: { ...frame.run.vars, ...outputsOf(frame, names) },
      steps: stepRefs(frame, new Set(names), true),
      foreach: item,
    };
    return { ok: true, collect: (text) => resolveValue(text, scope, 'value') };
  };

  // Handlers are not stopped by the run's stop signal (the abort handler runs *because* of it).
  const handlerStop = new AbortController().signal;
  const runHandler = async (kind: HandlerKind, runState: RunState | 'running'): Promise<boolean> => {
    const spec = dag.handler_on[kind];
    if (!spec) return true;
    const handlerStatus = freshStepStatus(spec.name);
    status.handlers[kind] = handlerStatus;
    await runOne(top, spec, handlerStatus, handlerStop, { kind, runState })
      .catch((err) => markRunnerError(handlerStatus, err))
      .finally(stepEnded);
    // A failed wait handler is logged only, as in Dagu: it does not keep the run from waiting.
    if (handlerStatus.status === 'failed' && kind === 'wait') {
      logger.warn('Wait handler failed', { error: handlerStatus.error });
      return false;
    }
    if (handlerStatus.status === 'failed') {
      addError(`handler ${JSON.stringify(spec.name)} failed: ${handlerStatus.error}`);
      return false;
    }
    return true;
  };

  // Human tasks wait only in a root run: a child run with one fails before any step starts.
  const humanTask = dag.steps.find((s) => s.action?.kind === 'human');
  if (setupError === null && status.parent && humanTask) {
    setupError = `human tasks are not permitted in child DAGs (step ${JSON.stringify(humanTask.name)} of DAG ${dag.name})`;
  }
  // Step approvals wait as human tasks do: in a root run on this host only.
  const approvalStep = dag.steps.find((s) => s.approval);
  if (setupError === null && status.parent && approvalStep) {
    setupError = `step approvals are not permitted in child DAGs (step ${JSON.stringify(approvalStep.name)} of DAG ${dag.name})`;
  }
  if (setupError === null && status.worker_id !== null && approvalStep) {
    setupError = `step approvals are not supported in runs on workers by this product (step ${JSON.stringify(approvalStep.name)}); run DAG ${dag.name} locally`;
  }
  // --- The run, in Dagu's order.
  if (setupError !== null) {
    addError(setupError);
    facts.failed = true;
  } else {
    const pre = await checkConditions(dag.preconditions ?? [], {
      shell: dagShell,
      env: buildStepEnv(run, { name: dag.name, pwd: dagDir, outputs: {}, env: {}, files: null }).processEnv,
      cwd: dagDir,
      scope: buildStepEnv(run, { name: dag.name, pwd: dagDir, outputs: {}, env: {}, files: null }).scope,
      signal: stopper.signal,
      maxOutputBytes: dag.max_output_size,
    });
    if (pre.status === 'error') {
      facts.failed = true;
      addError(pre.error);
    } else if (pre.status === 'not_met') {
      // No step runs and init neither; the run ends aborted without an error (dagu start exits 0).
      facts.cancelled = true;
      status.error = `DAG ${pre.reason}`;
      for (const s of status.steps) if (s.status === 'not_started') s.skip_reason = `DAG ${pre.reason}`;
    } else if (await runHandler('init', 'running')) {
      if (!stopper.signal.aborted || timedOut) {
        await runGraph({
          specs: graphSpecs,
          steps: status.steps,
          maxActive: dag.max_active_steps ?? 0,
          delayMs: (dag.delay_sec ?? 0) * SECOND,
          stop: stopper.signal,
          timedOut: () => timedOut,
          continues: (spec, s) => continues(top, spec, s),
          start: (spec, s) => runOne(top, spec, s, stopper.signal, null).finally(stepEnded),
          report,
        });
      }
    } else {
      // A failed init: no steps; the run ends aborted with the error (dagu start exits 1).
      facts.cancelled = true;
    }
  }
  if (dagTimeout) clearTimeout(dagTimeout);

  // Steps that never started because the run stopped stay not_started, with the reason.
  const stopReason = stopper.signal.aborted ? (stopper.signal.reason as StopReason) : null;
  for (const s of status.steps) {
    if (s.status === 'not_started' && !s.skip_reason && (stopReason || setupError)) {
      s.skip_reason = setupError ?? stopReason!.message;
    }
  }

  const decide = (): RunState => {
    const continuesByName = new Map(
      dag.steps.map((spec, i) => [spec.name, continues(top, spec, status.steps[i])]),
    );
    const f: RunFacts = { ...facts, error: facts.errors.length > 0, continues: continuesByName };
    return finalRunState(status.steps, f);
  };

  // The run stays `running` while handlers run: a terminal state would tell the queue and the overlap
  // check that the run is over while its handlers still execute.
  let finalState = decide();
  report();
  // A run that stops at open human tasks has not ended: only the wait handler runs (Dagu's checkpoint).
  if (setupError === null && finalState === 'waiting') await runHandler('wait', finalState);
  if (setupError === null && finalState !== 'waiting') {
    const retriesRemain =
      dag.retry_policy !== null && !status.parent && autoRetriesOf(status) < dag.retry_policy.limit;
    const kind: HandlerKind | null =
      finalState === 'aborted'
        ? 'abort'
        : finalState === 'failed'
          ? retriesRemain
            ? null
            : 'failure'
          : 'success';
    if (kind) {
      await runHandler(kind, finalState);
      finalState = decide();
    }
    await runHandler('exit', finalState);
    finalState = decide();
  }

  if (opts.artifactShipping && artifactsDir !== null) {
    // Artifacts that could not be stored (over the size cap) fail the run: on this backend they would be lost.
    const failure = await opts.artifactShipping.beforeFinalStatus();
    if (failure !== null) {
      logger.error('Run artifacts could not be stored', { error: failure });
      facts.errors.push(failure);
      if (finalState !== 'aborted' && finalState !== 'waiting') finalState = 'failed';
    }
  }
  status.status = finalState;
  if (finalState !== 'succeeded' || facts.errors.length > 0) {
    status.error = facts.errors[0] ?? status.error ?? stopReason?.message ?? null;
  }
  if (finalState === 'succeeded' && facts.errors.length === 0) status.error = null;
  await Promise.all(mails);
  clearInterval(heartbeatTimer);
  opts.signal.removeEventListener('abort', onAbort);
  status.finished_at = isoNow(clock);
  logger.info('Run finished', { state: status.status, error: status.error });
  if (opts.logShipping) {
    // Every log line up to this one is shipped before the status says the run is over.
    await runLog.flush();
    await opts.logShipping.beforeFinalStatus();
  }
  const final = shown(status);
  await opts.reporter
    .write(final)
    .catch((err) => logger.error('Final status write failed', { error: errorText(err) }));
  if (opts.notify) {
    await opts
      .notify(dag, final)
      .catch((err) => logger.warn('Run notification failed', { error: errorText(err) }));
  }
  await runLog.flush();
  return final;
}

/**
 * The steps `name` depends on, directly or not, in breadth-first upstream order (Dagu merges their
 * outputs in this order, so a later one wins).
 */
export function upstreamOrder(name: string, specs: ReadonlyMap<string, StepSpec>): string[] {
  const order: string[] = [];
  const seen = new Set<string>([name]);
  const queue = [...(specs.get(name)?.depends ?? [])];
  while (queue.length > 0) {
    const next = queue.shift()!;
    if (seen.has(next)) continue;
    seen.add(next);
    order.push(next);
    queue.push(...(specs.get(next)?.depends ?? []));
  }
  return order;
}

/**
 * The stop of a run from its abort reason. SIGTERM is how `dagu stop` and the API stop a run process, so it
 * counts as a stop request (steps get their `signal_on_stop`); any other signal the process got (Ctrl-C)
 * is forwarded to the steps as it is.
 */
function abortReason(reason: unknown): StopReason {
  const signal =
    typeof reason === 'string' && /^SIG[A-Z0-9]+$/.test(reason) ? (reason as NodeJS.Signals) : 'SIGTERM';
  return { kind: 'aborted', signal, message: `run aborted (${signal})`, forwarded: signal !== 'SIGTERM' };
}

/** An RFC 3339 UTC time to the second (`2026-03-13T01:00:00Z`), as Dagu gives its context times. */
function rfc3339Seconds(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
}

async function isFile(path: string): Promise<boolean> {
  return files.stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}

function definedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

/** The first MiB of a step's stdout log (continue_on.output looks at it); empty when unreadable. */
async function readHead(file: string): Promise<string> {
  let fd: number | null = null;
  try {
    fd = await files.open(file, 'r');
    const buf = Buffer.alloc(1024 * 1024);
    const n = await files.readAt(fd, buf, 0);
    return buf.subarray(0, n).toString('utf8');
  } catch {
    return '';
  } finally {
    if (fd !== null) await files.close(fd).catch(() => undefined);
  }
}

/**
 * The steps' statuses at the start: fresh, except steps that succeeded in the attempt being resumed. A kept
 * step whose dependency runs again (the DAG changed since) runs again too, so nothing runs on stale inputs.
 */
function initialSteps(specs: readonly StepSpec[], resumeFrom: readonly StepStatus[]): StepStatus[] {
  const previous = new Map(resumeFrom.filter((s) => s.status === 'succeeded').map((s) => [s.name, s]));
  const kept = new Set(specs.filter((s) => previous.has(s.name)).map((s) => s.name));
  for (let changed = true; changed;) {
    changed = false;
    for (const spec of specs) {
      if (kept.has(spec.name) && !spec.depends.every((d) => kept.has(d))) {
        kept.delete(spec.name);
        changed = true;
      }
    }
  }
  return carryOver(specs, resumeFrom, new Map([...previous].filter(([name]) => kept.has(name))));
}

/**
 * The DAG as a run executes it: a sub-DAG run does not run the handlers its DAG only has from `base.yaml`,
 * as Dagu skips the base handlers for sub-DAG runs (cmd/start.go WithSkipBaseHandlers); its own stay.
 */
function withoutBaseHandlersInChild(dag: DagSpec, status: RunStatus): DagSpec {
  const fromBase = dag.base_handlers ?? [];
  if (fromBase.length === 0 || (status.parent == null && status.trigger_type !== 'subdag')) return dag;
  const handlers = { ...dag.handler_on };
  for (const kind of fromBase) delete handlers[kind as keyof typeof handlers];
  return { ...dag, handler_on: handlers };
}

/**
 * What Dagu's retry plan keeps (runtime/plan.go setupRetry clears failed, retrying, aborted and rejected
 * steps; one that never ended runs anyway).
 */
const KEPT_ON_RETRY: ReadonlySet<StepStatus['status']> = new Set([
  'succeeded',
  'partially_succeeded',
  'skipped',
  'waiting',
]);

/**
 * The steps' statuses at the start of a plain retry, as Dagu's retry plan has them: a step that failed, was
 * aborted or rejected, or did not end in the attempt before (or that it did not have), starts fresh, and so
 * does every step downstream of one; every other step keeps its status and output (a success is not run
 * twice, a skip stays a skip).
 */
function failedRetrySteps(specs: readonly StepSpec[], previous: readonly StepStatus[]): StepStatus[] {
  const before = new Map(previous.map((s) => [s.name, s]));
  const fresh = new Set(
    specs
      .filter((s) => {
        const was = before.get(s.name);
        return !was || !KEPT_ON_RETRY.has(was.status);
      })
      .map((s) => s.name),
  );
  addDownstream(specs, fresh);
  return carryOver(specs, previous, new Map([...before].filter(([name]) => !fresh.has(name))));
}

/**
 * The steps at the start of an attempt: a copy of the status the attempt before left for each step `kept`
 * names, else a fresh one, keeping the push-back it was reset under (its DAG_PUSHBACK* variables); `depends`
 * as this attempt runs them (the graph the console draws), even for a kept step.
 */
function carryOver(
  specs: readonly StepSpec[],
  previous: readonly StepStatus[],
  kept: ReadonlyMap<string, StepStatus>,
): StepStatus[] {
  const pushBacks = new Map(previous.filter((s) => s.push_back).map((s) => [s.name, s.push_back!]));
  return specs.map((s) => {
    const k = kept.get(s.name);
    const pushBack = k ? undefined : pushBacks.get(s.name);
    return {
      ...(k ? structuredClone(k) : freshStepStatus(s.name)),
      ...(pushBack ? { push_back: structuredClone(pushBack) } : {}),
      depends: [...(s.depends ?? [])],
    };
  });
}

/** Adds to `names` every step that depends on one of them, directly or not. */
function addDownstream(specs: readonly StepSpec[], names: Set<string>): void {
  for (let grew = true; grew;) {
    grew = false;
    for (const s of specs) {
      if (!names.has(s.name) && (s.depends ?? []).some((d) => names.has(d))) {
        names.add(s.name);
        grew = true;
      }
    }
  }
}

/**
 * The steps' statuses at the start of a one-step retry: as the attempt before left them, except `retryStep`
 * (and with `downstream`, every step that depends on it, directly or not), which starts fresh. A step the
 * attempt before did not have (the DAG changed since) starts fresh as well.
 */
function stepRetrySteps(
  specs: readonly StepSpec[],
  previous: readonly StepStatus[],
  retryStep: string,
  downstream: boolean,
): StepStatus[] {
  const before = new Map(previous.map((s) => [s.name, s]));
  const fresh = new Set([retryStep]);
  if (downstream) addDownstream(specs, fresh);
  return specs.map((s) => {
    const kept = fresh.has(s.name) ? undefined : before.get(s.name);
    return { ...(kept ? structuredClone(kept) : freshStepStatus(s.name)), depends: [...(s.depends ?? [])] };
  });
}

/** Named params (`KEY=value`) as variables, for the commands a Dagu 1.x env runs. */
function paramVars(params: readonly string[]): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const p of params) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(p);
    if (m) out[m[1]] = m[2];
  }
  return out;
}
