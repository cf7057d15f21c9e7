// The engine of one run attempt: starts steps as the graph allows, stops them on abort or DAG timeout,
// runs the handlers and reports every change. It knows nothing about where the status is stored.

import { hostname } from 'node:os';
import { dirname, resolve } from 'node:path';
import { formatDuration } from '../core/duration';
import type { Clock, Logger } from '../core/ports';
import type { DagSpec, RunState, RunStatus, StepSpec, StepStatus } from '../core/types';
import { SECOND } from '../core/units';
import { mkdir } from '../store/fileCalls';
import { LogFileNames } from './logFiles';
import { blockedSteps, nextRunnable } from '../core/graph';
import { finalRunState } from './runOutcome';
import { isoNow, runStep, type StopReason } from './runStep';
import { errorText, type StatusReporter } from './statusReporter';
import { buildStepEnv, splitParams } from './stepEnv';
import { runCallStep, type SubDagRunner } from './subDag';

/** Inputs of one run attempt. The run record already exists; `status` is its initial state. */
export interface ExecuteRunOptions {
  dag: DagSpec;
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
  /** Time between the stop signal and SIGKILL. */
  killGraceMs: number;
  heartbeatIntervalMs: number;
  /** The runner's environment; DAG env, step env, params and outputs are layered on top. */
  baseEnv: NodeJS.ProcessEnv;
  /** Working directory of steps when the DAG has no file (its file's directory otherwise). */
  dagsDir?: string;
  /** Starts the child runs of `call:` steps; without it a call step fails with NO_SUB_DAG_RUNNER. */
  subDag?: SubDagRunner;
  /**
   * Resume: the steps of the attempt being resumed. Each step that succeeded there (and whose dependencies
   * all did too) keeps its status and output and does not run again; every other step runs.
   */
  resumeFrom?: readonly StepStatus[];
}

type HandlerKind = 'success' | 'failure' | 'abort' | 'exit';

/** Which handlers run, in order, for a run ending in `state`; a partial success counts as a success. */
function handlerKinds(state: RunState): HandlerKind[] {
  if (state === 'aborted') return ['abort', 'exit'];
  if (state === 'failed') return ['failure', 'exit'];
  return ['success', 'exit'];
}

/** Runs the attempt to its end and returns the final status. Never throws for a step or storage failure. */
export async function executeRun(opts: ExecuteRunOptions): Promise<RunStatus> {
  const { dag, clock } = opts;
  // Callers name the component and DAG; the run ID is what only the engine knows for sure.
  const logger = opts.logger.child({ run_id: opts.status.run_id });
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
    steps: initialSteps(dag.steps, opts.resumeFrom ?? []),
  } satisfies Partial<RunStatus>);
  const report = () => {
    opts.reporter
      .write(status)
      .catch((err) => logger.warn('Status report failed', { error: errorText(err) }));
  };

  const stopper = new AbortController();
  const onAbort = () => stopper.abort(abortReason(opts.signal.reason));
  if (opts.signal.aborted) onAbort();
  else opts.signal.addEventListener('abort', onAbort, { once: true });
  const dagTimeout =
    dag.timeout_sec !== null && dag.timeout_sec > 0
      ? setTimeout(() => {
          const message = `run timed out after ${formatDuration(dag.timeout_sec! * SECOND)}`;
          stopper.abort({ kind: 'timed_out', message } satisfies StopReason);
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

  const params = splitParams(status.params);
  // Null prototype: an output variable named __proto__ must stay a variable.
  const outputs: Record<string, string> = Object.create(null);
  // Steps kept from a resumed attempt hand their outputs on as if they had just run (in step order).
  for (const s of status.steps) if (s.status === 'succeeded' && s.output) Object.assign(outputs, s.output);
  const logNames = new LogFileNames(opts.logDir, status.log_dir);
  const baseDir = dag.file ? dirname(dag.file) : (opts.dagsDir ?? process.cwd());

  const runOne = async (spec: StepSpec, stepStatus: StepStatus, stop: AbortSignal, isHandler = false) => {
    const files = logNames.allocate(spec.name);
    stepStatus.stdout = files.stdoutRelative;
    stepStatus.stderr = files.stderrRelative;
    const env = buildStepEnv({
      base: opts.baseEnv,
      dagEnv: dag.env,
      stepEnv: spec.env,
      params: params.named,
      outputs,
      vars: {
        dagName: dag.name,
        runId: status.run_id,
        stepName: spec.name,
        stdoutLogFile: files.stdout,
        scheduleTime: status.schedule_time,
      },
    });
    const state =
      spec.call !== null
        ? await runCallStep({
            step: spec,
            status: stepStatus,
            parent: { run_id: status.run_id, dag_name: dag.name, step: spec.name },
            attempt: status.attempt,
            runner: opts.subDag,
            files,
            clock,
            stop,
            onChange: report,
          })
        : await runStep({
            step: spec,
            status: stepStatus,
            env,
            positional: params.positional,
            cwd: resolve(baseDir, spec.dir ?? '.'),
            files,
            killGraceMs: opts.killGraceMs,
            clock,
            stop,
            onChange: report,
          });
    if (state === 'succeeded' && stepStatus.output) Object.assign(outputs, stepStatus.output);
    if (state === 'failed' && status.error === null && !isHandler) {
      status.error = `step ${JSON.stringify(spec.name)} failed: ${stepStatus.error}`;
    }
    logger.info('Step finished', { step: spec.name, state, exit_code: stepStatus.exit_code });
  };

  let logDirError: string | null = null;
  await mkdir(opts.logDir, true).catch((err) => {
    logDirError = `cannot create log directory ${JSON.stringify(opts.logDir)}: ${errorText(err)}`;
  });

  if (logDirError === null) await runGraph(dag.steps, status, stopper.signal, runOne, report);
  if (dagTimeout) clearTimeout(dagTimeout);
  const stopReason = stopper.signal.aborted ? (stopper.signal.reason as StopReason) : null;
  skipRemaining(status, logDirError ?? stopReason?.message ?? 'run stopped');

  // The run stays `running` while handlers run: a terminal state would tell the queue and the overlap
  // check that the run is over while its handlers still execute.
  let finalState: RunState;
  let finalError = status.error;
  if (logDirError !== null) {
    finalState = 'failed';
    finalError = logDirError;
  } else if (stopReason?.kind === 'aborted') {
    finalState = 'aborted';
    finalError ??= stopReason.message;
  } else {
    finalState = finalRunState(dag.steps, status.steps, stopReason?.kind === 'timed_out');
    if (stopReason) finalError = stopReason.message;
  }
  report();

  // Handlers are not stopped by the run's stop signal (the abort handler runs *because* of it).
  if (logDirError === null) {
    const handlerStop = new AbortController().signal;
    for (const kind of handlerKinds(finalState)) {
      const spec = dag.handler_on[kind];
      if (!spec) continue;
      const handlerStatus = freshStepStatus(spec.name);
      status.handlers[kind] = handlerStatus;
      await runOne(spec, handlerStatus, handlerStop, true).catch((err) =>
        markRunnerError(handlerStatus, err),
      );
      if (
        handlerStatus.status !== 'succeeded' &&
        (finalState === 'succeeded' || finalState === 'partially_succeeded')
      ) {
        finalState = 'failed';
        finalError = `handler ${JSON.stringify(spec.name)} failed: ${handlerStatus.error}`;
      }
    }
  }

  status.status = finalState;
  status.error = finalError;
  clearInterval(heartbeatTimer);
  opts.signal.removeEventListener('abort', onAbort);
  status.finished_at = isoNow(clock);
  logger.info('Run finished', { state: status.status, error: status.error });
  await opts.reporter
    .write(status)
    .catch((err) => logger.error('Final status write failed', { error: errorText(err) }));
  return status;
}

/** Starts every runnable step, marks blocked ones skipped, and returns when nothing runs any more. */
async function runGraph(
  specs: readonly StepSpec[],
  status: RunStatus,
  stop: AbortSignal,
  runOne: (spec: StepSpec, s: StepStatus, stop: AbortSignal) => Promise<void>,
  report: () => void,
): Promise<void> {
  const byName = new Map(status.steps.map((s) => [s.name, s]));
  const statesNow = () => Object.fromEntries(status.steps.map((s) => [s.name, s.status]));
  const running = new Map<string, Promise<string>>();
  for (;;) {
    const states = statesNow();
    const blocked = blockedSteps(specs, states);
    for (const step of blocked) {
      const s = byName.get(step.name)!;
      const dependency = step.depends.find((d) => states[d] !== 'succeeded') ?? '?';
      s.status = 'skipped';
      s.error = `dependency ${JSON.stringify(dependency)} did not succeed`;
    }
    if (blocked.length > 0) report();
    if (!stop.aborted) {
      for (const spec of nextRunnable(specs, statesNow())) {
        // runStep marks the step `running` synchronously, so the next pass does not start it again.
        running.set(
          spec.name,
          runOne(spec, byName.get(spec.name)!, stop)
            .catch((err) => markRunnerError(byName.get(spec.name)!, err))
            .then(() => spec.name),
        );
      }
    }
    if (running.size === 0) return;
    running.delete(await Promise.race(running.values()));
  }
}

/** Steps that never started because the run stopped (or could not start) are skipped with the reason. */
function skipRemaining(status: RunStatus, reason: string): void {
  for (const s of status.steps) {
    if (s.status === 'not_started') {
      s.status = 'skipped';
      s.error = reason;
    }
  }
}

/** A bug in the runner must end the step, not hang the graph or crash the run. */
function markRunnerError(s: StepStatus, err: unknown): void {
  s.status = 'failed';
  s.error = `runner error: ${errorText(err)}`;
}

function abortReason(reason: unknown): StopReason {
  const signal =
    typeof reason === 'string' && /^SIG[A-Z0-9]+$/.test(reason) ? (reason as NodeJS.Signals) : 'SIGTERM';
  return { kind: 'aborted', signal, message: `run aborted (${signal})` };
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
  // `depends` as this attempt runs them (the graph the console draws), even for a step kept from before.
  return specs.map((s) => ({
    ...(kept.has(s.name) ? structuredClone(previous.get(s.name)!) : freshStepStatus(s.name)),
    depends: [...(s.depends ?? [])],
  }));
}

function freshStepStatus(name: string): StepStatus {
  return {
    name,
    status: 'not_started',
    started_at: null,
    finished_at: null,
    exit_code: null,
    error: null,
    retry_count: 0,
    stdout: null,
    stderr: null,
    output: null,
  };
}
