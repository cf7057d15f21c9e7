// Executes one step (or handler) to its end with Dagu 2.x semantics: the command, script, exec or
// in-process action; the step timeout (SIGKILL to the whole process group, exit code 124, no retry);
// `output` capture and the `stdout`/`stderr` copies; retries; repeats; and stopping when the run is
// stopped (signal_on_stop, resent, then SIGKILL) or times out (SIGKILL at once).

import { tmpdir } from 'node:os';
import { dirname, join, resolve as resolvePath } from 'node:path';
import {
  backoffDelayMs,
  decideFailedAttempt,
  decideRepeat,
  repeatCondition,
  repeatNeedsCondition,
  type RepeatFacts,
} from '../core/dag/outcome';
import { PolicyCountError, resolvePolicyCounts } from '../core/dag/policyCounts';
import { resolveValue, type ValuePolicy, type ValueScope } from '../core/dag/values';
import { formatDuration } from '../core/duration';
import { isoTime } from '../core/isoTime';
import type { Clock } from '../core/ports';
import { MAX_RECORDED_EXECUTIONS } from '../core/types';
import type { ConditionSpec, DagSpec, StepExecution, StepSpec, StepStatus } from '../core/types';
import { SECOND } from '../core/units';
import * as files from '../store/fileCalls';
import { runStepAction, type ActionRunner } from './runStepAction';
import type { StateAccess } from './actions/stateAction';
import { ARTIFACTS_DIR_VAR } from '../core/dag/artifactPath';
import { artifactTarget, StepSetupError } from './artifactFiles';
import { checkConditions } from './checkConditions';
import { DEFAULT_MAX_OUTPUT_BYTES, OutputCapture, readTail } from './outputCapture';
import { readsStream } from '../core/structuredOutput';
import { hasStructuredOutputs, publishStructuredOutputs, readStepOutputs } from './stepOutputs';
import type { SecretMask } from './secretMask';
import { spawnShell, type ShellHandle } from './spawnShell';
import {
  chooseShell,
  planStepCommand,
  type Invocation,
  type TextPolicy,
  type TextResolver,
} from './stepCommand';
import { abortableSleep } from './abortableSleep';
import { randomHex } from '../store/randomHex';

/**
 * Why the whole run is stopping; carried as the `reason` of the run's stop signal. `forwarded`: the signal
 * came to the run process itself (Ctrl-C, kill), so it goes to steps as it is and `signal_on_stop` is not
 * used; otherwise (`dagu stop`) a step's `signal_on_stop` replaces it.
 */
export type StopReason =
  | { kind: 'aborted'; signal: NodeJS.Signals; message: string; forwarded?: boolean }
  | { kind: 'timed_out'; message: string };

/** Everything one step execution needs; `status` is updated in place and `onChange` called after each update. */
export interface StepRun {
  step: StepSpec;
  status: StepStatus;
  env: NodeJS.ProcessEnv;
  /** The run's secret values, masked in what the step writes to its logs; absent: none. */
  mask?: SecretMask | null;
  /** Positional params: substituted for `$1`, `$2`, ... in the step text (as `scope.vars["1"]`, ...). */
  positional: string[];
  /** The step's working directory, absolute; created when missing. */
  cwd: string;
  /**
   * Absolute paths of the stdout and stderr logs; the same path for both writes one merged log
   * (`log_output: merged`). `script` is no longer used (scripts go to a temp file); kept for callers.
   */
  files: { stdout: string; stderr: string; script?: string };
  /** Time between the stop signal and SIGKILL when `dag.max_clean_up_time_sec` is not given. */
  killGraceMs: number;
  clock: Clock;
  /** Aborted (with a StopReason) when the run stops; a step that is running gets stopped or killed. */
  stop: AbortSignal;
  onChange(): void;
  /**
   * DAG-level settings that shape a step: its shell, the output cap, the clean-up time, SMTP for mail, the
   * declared params (a template step sees an omitted one as empty).
   */
  dag?: Partial<
    Pick<DagSpec, 'shell' | 'shell_args' | 'max_output_size' | 'max_clean_up_time_sec' | 'smtp' | 'params'>
  >;
  /** The default shell: `defaultShellOf(hostEnv)` (DAGU_DEFAULT_SHELL, $SHELL, sh). Absent: `sh`. */
  defaultShell?: string;
  /**
   * What `${...}`/`$VAR` in the step's fields resolve against (run scope, params, step refs, ...). Absent:
   * the positional params and `env`. The step's own captured output is added for its repeat condition.
   */
  scope?: ValueScope;
  /**
   * The host environment a retry or repeat count written as text may read (`limit: "${RETRIES}"`), as Dagu
   * reads the process's environment there. Absent: none.
   */
  hostEnv?: Readonly<Record<string, string>>;
  /** A handler: runs once, without retries or repeats (Dagu's rule for `handler_on`). */
  once?: boolean;
  /** Runs http/jq/mail/log/noop actions; absent: the built-in dispatcher of `./actions`. */
  runAction?: ActionRunner;
  /** The state store the `state.*` actions use; absent: none in this process. */
  state?: StateAccess;
  /**
   * The step's `$DAGU_OUTPUT_FILE` (the caller puts it in `env`): created empty before each attempt, read after
   * a successful one against `step.outputs` (see stepOutputs.ts), removed after each attempt. A file that does
   * not parse fails the attempt; what it declares goes to `status.outputs`. Absent: no output file.
   */
  outputFile?: string;
  /** Bytes this process may still write on the file system of a log file; absent: statfs (tests fake it). */
  logSpaceLeft?: (file: string) => Promise<number>;
  /**
   * A build DAG step's attempts (buildStep.ts): `begin` gives an attempt the environment and scope of its own
   * staging path (`${outputs.<name>}`), or null when the step stages nothing; `end` publishes a successful
   * attempt's file (a text returned is the error that fails the attempt) and discards a failed one's.
   */
  buildAttempts?: {
    begin(retry: number): { env: NodeJS.ProcessEnv; scope: ValueScope } | null;
    end(ok: boolean): Promise<string | null>;
  };
}

/** Bytes this process may still write on the file system of `file` (root may use the reserved blocks too). */
async function logSpaceLeft(file: string): Promise<number> {
  const s = await files.statfs(dirname(file));
  return (process.getuid?.() === 0 ? s.bfree : s.bavail) * s.bsize;
}

/** How one execution attempt ended. */
type AttemptResult =
  | { kind: 'ok'; outputs?: Record<string, unknown>; declaredOutputs?: Record<string, string> }
  | { kind: 'failed'; exitCode: number | null; error: string; retryable: boolean; timedOut?: boolean }
  | { kind: 'stopped'; exitCode: number | null; reason: StopReason };

/** Bytes of stderr appended to a failure message. */
const STDERR_TAIL_BYTES = 1024;

const POLICY_OF: Record<TextPolicy, ValuePolicy> = {
  posix_shell: 'shellText',
  other_shell: 'nonPosixScript',
  exec: 'directCommand',
};

export async function runStep(run: StepRun): Promise<StepStatus['status']> {
  const { status, clock } = run;
  Object.assign(status, {
    status: 'running',
    started_at: isoNow(clock),
    finished_at: null,
    exit_code: null,
    error: null,
    retry_count: 0,
    repeat_count: 0,
    output: null,
  } satisfies Partial<StepStatus>);
  delete status.executions;
  delete status.outputs;
  delete status.output_value;
  delete status.published_outputs;
  run.onChange();

  // The step's end is reported after its files are closed: then the report, the run's end and the final
  // status go out in one turn of the event loop, which the reporter coalesces into one write.
  const opened: number[] = [];
  let end: () => StepStatus['status'];
  try {
    end = await execute(run, opened);
  } catch (e) {
    const message = `runner error: ${e instanceof Error ? e.message : String(e)}`;
    end = () => finish(run, 'failed', message);
  } finally {
    await Promise.all(opened.map((fd) => files.close(fd).catch(() => {})));
  }
  return end();
}

/** The descriptors one step writes to. */
interface StepFds {
  out: number;
  err: number;
  outTee: number[];
  errTee: number[];
}

/** The step's scope with the positional params in it (a scope from the caller wins). */
function scopeOf(run: StepRun): ValueScope {
  const positional = Object.fromEntries(run.positional.map((v, i) => [String(i + 1), v]));
  if (run.scope) return { ...run.scope, vars: { ...positional, ...run.scope.vars } };
  const env = Object.fromEntries(
    Object.entries(run.env).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
  return { vars: { ...env, ...positional } };
}

async function openFds(run: StepRun, scope: ValueScope, opened: number[]): Promise<StepFds> {
  const track = async (p: Promise<number>) => {
    const fd = await p;
    opened.push(fd);
    return fd;
  };
  const merged = run.files.stdout === run.files.stderr;
  const out = await track(files.open(run.files.stdout, 'a+'));
  const err = merged ? out : await track(files.open(run.files.stderr, 'a+'));
  // Step `stdout:`/`stderr:` files are appended to, never truncated; the log still gets everything. A new one
  // is readable by its owner only (the output may hold secrets), as Dagu creates them; an existing one keeps
  // its mode.
  const extra = async (path: string | null | undefined): Promise<number[]> => {
    if (!path) return [];
    const target = resolvePath(run.cwd, resolveValue(path, scope, 'value'));
    return [await track(files.open(target, 'a', 0o600))];
  };
  const outTee = run.step.stdout_artifact
    ? await artifactFd(run.env, run.step.stdout_artifact, 'stdout', scope, track)
    : await extra(run.step.stdout_file);
  const errTee = run.step.stderr_artifact
    ? await artifactFd(run.env, run.step.stderr_artifact, 'stderr', scope, track)
    : run.step.stderr_file && run.step.stderr_file === run.step.stdout_file
      ? outTee
      : await extra(run.step.stderr_file);
  return { out, err, outTee, errTee };
}

/**
 * `stdout: {artifact}` / `stderr: {artifact}`: the file in the run's artifacts directory that also gets the
 * stream (appended to, owner-only when new, parent folders made), as Dagu opens it.
 */
async function artifactFd(
  env: StepRun['env'],
  raw: string,
  field: 'stdout' | 'stderr',
  scope: ValueScope,
  track: (p: Promise<number>) => Promise<number>,
): Promise<number[]> {
  const target = await artifactTarget(env[ARTIFACTS_DIR_VAR], resolveValue(raw, scope, 'value'));
  if (!target.ok) throw new StepSetupError(`${field}.artifact: ${target.error}`);
  return [await track(files.open(target.path, 'a', 0o600))];
}

/** Runs the step's executions (repeats) and their attempts (retries); returns how to end it. */
async function execute(run: StepRun, opened: number[]): Promise<() => StepStatus['status']> {
  const { status, step } = run;
  const scope = scopeOf(run);
  const mkdirError = await files.mkdir(run.cwd, true).then(
    () => null,
    (e: unknown) => (e instanceof Error ? e.message : String(e)),
  );
  if (mkdirError !== null) {
    return () =>
      finish(run, 'failed', `cannot create working directory ${JSON.stringify(run.cwd)}: ${mkdirError}`);
  }
  let repeat = run.once ? null : (step.repeat_policy ?? null);
  let retryPolicy = run.once ? null : step.retry_policy;
  try {
    // Counts written as text (`limit: "${RETRIES}"`) are read now, when the step starts, as in Dagu.
    const countScope = { ...scope, hostEnv: run.hostEnv ?? {} };
    if (retryPolicy) retryPolicy = resolvePolicyCounts(retryPolicy, 'retry', countScope);
    if (repeat) repeat = resolvePolicyCounts(repeat, 'repeat', countScope);
  } catch (err) {
    if (!(err instanceof PolicyCountError)) throw err;
    return () => finish(run, 'failed', err.message);
  }
  let fds: StepFds;
  try {
    fds = await openFds(run, scope, opened);
  } catch (err) {
    if (!(err instanceof StepSetupError)) throw err;
    return () => finish(run, 'failed', err.message);
  }
  const repeating = repeat !== null && repeat.mode !== null;

  for (let executions = 0; ;) {
    // One execution: the first attempt and its retries.
    let result: AttemptResult;
    for (let tries = 0; ; tries++) {
      if (run.stop.aborted) return stopped(run);
      const record = startExecution(run, tries > 0 ? 'retry' : executions > 0 ? 'repeat' : 'first');
      result = await attempt(run, scope, fds, repeating);
      record.finished_at = isoNow(run.clock);
      record.exit_code = result.kind === 'ok' ? 0 : result.exitCode;
      if (result.kind === 'stopped') {
        status.exit_code = result.exitCode;
        const reason = result.reason;
        return () => finishStopped(run, reason);
      }
      if (result.kind === 'ok') break;
      status.exit_code = result.exitCode;
      if (!result.retryable && !result.timedOut) break;
      // continue_on (and its mark_success) is left to the run: the step itself ends failed here.
      const decision = decideFailedAttempt(
        {
          exit_code: result.exitCode,
          timed_out: result.timedOut ? 'step' : null,
          canceled: run.stop.aborted,
          retry_count: status.retry_count,
        },
        retryPolicy,
        step.retry_exit_codes ?? [],
        { continue_on: null },
      );
      if (decision.action !== 'retry') break;
      status.status = 'retrying';
      status.error = result.error;
      run.onChange();
      await abortableSleep(decision.delay_ms, run.stop);
      if (run.stop.aborted) return stopped(run);
      status.retry_count = decision.retry_count;
      status.status = 'running';
      status.error = null;
      status.exit_code = null;
      run.onChange();
    }
    executions += 1;
    const failure = result.kind === 'failed' ? result.error : null;
    if (result.kind === 'ok') status.exit_code = 0;
    const end = () => finish(run, failure ? 'failed' : 'succeeded', failure);

    // A stop request lets a repeating step finish its current execution, then it repeats no more.
    if (!repeat || !repeating || run.stop.aborted) return end;
    const facts: RepeatFacts = {
      executions,
      succeeded: failure === null,
      exit_code: status.exit_code,
      stopped: false,
    };
    if (repeatNeedsCondition(repeat, executions)) {
      facts.condition_met = await repeatConditionMet(run, scope, repeatCondition(repeat)!);
    }
    const decision = decideRepeat(repeat, facts);
    if (!decision.repeat) return end;
    await abortableSleep(decision.delay_ms, run.stop);
    if (run.stop.aborted) return end;
    status.repeat_count = (status.repeat_count ?? 0) + 1;
    status.status = 'running';
    status.error = null;
    status.exit_code = null;
    run.onChange();
  }
}

const executionLogs = new WeakMap<StepRun, StepExecution[]>();

/**
 * Records the start of one run of the step's command. The status carries the list once there is a second
 * (a retry or a repeat): a step that ran once has its times in started_at/finished_at already, and every
 * status write of a large DAG would grow for nothing. The newest MAX_RECORDED_EXECUTIONS are kept.
 */
function startExecution(run: StepRun, kind: StepExecution['kind']): StepExecution {
  const record: StepExecution = { kind, started_at: isoNow(run.clock), finished_at: null, exit_code: null };
  const list = executionLogs.get(run) ?? [];
  executionLogs.set(run, list);
  list.push(record);
  if (list.length > MAX_RECORDED_EXECUTIONS) list.splice(0, list.length - MAX_RECORDED_EXECUTIONS);
  if (list.length > 1) run.status.executions = list;
  return record;
}

/** Evaluates a repeat condition; it sees the output this execution just captured. An error counts as not met. */
async function repeatConditionMet(run: StepRun, scope: ValueScope, cond: ConditionSpec): Promise<boolean> {
  const output = run.status.output ?? {};
  const outcome = await checkConditions([cond], {
    shell: conditionShell(run),
    env: { ...run.env, ...output },
    cwd: run.cwd,
    scope: { ...scope, vars: { ...scope.vars, ...output } },
    label: 'repeat condition',
  });
  return outcome.status === 'met';
}

/** The shell a condition of this step runs with: the step's, else the DAG's, else the default (no `-e`). */
export function conditionShell(run: Pick<StepRun, 'step' | 'dag' | 'defaultShell'>): string[] {
  return chooseShell({
    stepShell: run.step.shell,
    stepShellArgs: run.step.shell_args ?? [],
    dagShell: run.dag?.shell ?? null,
    dagShellArgs: run.dag?.shell_args ?? [],
    defaultShell: run.defaultShell ?? 'sh',
  }).words;
}

function stopped(run: StepRun): () => StepStatus['status'] {
  const reason = run.stop.reason as StopReason;
  return () => finishStopped(run, reason);
}

/** One attempt with its fresh `$DAGU_OUTPUT_FILE`, read when the attempt succeeded, removed after it. */
async function attempt(
  run: StepRun,
  scope: ValueScope,
  fds: StepFds,
  repeating: boolean,
): Promise<AttemptResult> {
  const build = run.buildAttempts;
  if (!build) return attemptWithOutputs(run, scope, fds, repeating);
  const staged = build.begin(run.status.retry_count);
  let result: AttemptResult;
  try {
    result = await attemptWithOutputs(
      staged ? { ...run, env: staged.env } : run,
      staged?.scope ?? scope,
      fds,
      repeating,
    );
  } catch (err) {
    await build.end(false);
    throw err;
  }
  const error = await build.end(result.kind === 'ok');
  // A publication that fails fails the step; retrying would make the same file again.
  if (error !== null && result.kind === 'ok') return { kind: 'failed', exitCode: 0, error, retryable: false };
  return result;
}

async function attemptWithOutputs(
  run: StepRun,
  scope: ValueScope,
  fds: StepFds,
  repeating: boolean,
): Promise<AttemptResult> {
  // Only the attempt that makes the step succeed publishes outputs.
  delete run.status.outputs;
  const path = run.outputFile;
  if (path === undefined) return attemptOnce(run, scope, fds, repeating);
  try {
    await files.writeFile(path, '', 0o600);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return {
      kind: 'failed',
      exitCode: null,
      error: `cannot create the step output file: ${why}`,
      retryable: false,
    };
  }
  try {
    const result = await attemptOnce(run, scope, fds, repeating);
    if (result.kind !== 'ok') return result;
    const max = run.dag?.max_output_size ?? DEFAULT_MAX_OUTPUT_BYTES;
    // A build step's path output is published by its commit, not written to the output file.
    const declared = (run.step.outputs ?? []).filter((o) => !o.path);
    const parsed = await readStepOutputs(path, declared, max);
    if (!parsed.ok) {
      // Dagu: a file that does not parse fails the attempt (retried by the retry policy like any failure).
      return {
        kind: 'failed',
        exitCode: 0,
        error: `failed to parse DAGU_OUTPUT_FILE: ${parsed.error}`,
        retryable: true,
      };
    }
    if (Object.keys(parsed.values).length > 0) run.status.outputs = { ...parsed.values };
    return result;
  } finally {
    await files.unlink(path).catch(() => undefined);
  }
}

/** One attempt: the command entries one after another (stopping at the first failure), or the action. */
async function attemptOnce(
  run: StepRun,
  scope: ValueScope,
  fds: StepFds,
  repeating: boolean,
): Promise<AttemptResult> {
  const { step } = run;
  const maxBytes = run.dag?.max_output_size ?? DEFAULT_MAX_OUTPUT_BYTES;
  // Stdout is captured for `output: NAME`, an object output reading it, and stdout.outputs; stderr only for
  // an object output reading it.
  const structured = step.structured_output ?? [];
  const capture =
    step.output ||
    readsStream(structured, 'stdout') ||
    step.stdout_outputs !== undefined ||
    step.output_schema !== undefined
      ? new OutputCapture(maxBytes)
      : null;
  const errCapture = readsStream(structured, 'stderr') ? new OutputCapture(maxBytes) : null;
  const errOffset = (await files.fstat(fds.err)).size;
  const timeoutMs = step.timeout_sec !== null && step.timeout_sec > 0 ? step.timeout_sec * SECOND : null;
  const startedMono = run.clock.monoMs();
  const kind = step.action?.kind ?? 'command';

  let result: AttemptResult | { kind: 'timed_out' };
  if (kind === 'command' || kind === 'exec') {
    result = await runProcesses(run, scope, fds, { out: capture, err: errCapture }, timeoutMs, repeating);
  } else {
    result = await runStepAction(run, scope, fds, capture, timeoutMs, run.runAction, errCapture);
  }

  if (result.kind === 'timed_out') {
    const elapsed = formatDuration(Math.round(run.clock.monoMs() - startedMono));
    return {
      kind: 'failed',
      exitCode: 124,
      error: `step timed out after ${elapsed} (timeout ${formatDuration(timeoutMs ?? 0)})`,
      retryable: false,
      timedOut: true,
    };
  }
  if (result.kind === 'stopped') return result;
  // The output variable is kept even when the step failed (continue_on dependents and handlers see it).
  if (capture && step.output) {
    const overflow = capture.error();
    if (overflow)
      return {
        kind: 'failed',
        exitCode: result.kind === 'ok' ? 0 : result.exitCode,
        error: overflow,
        retryable: true,
      };
    run.status.output = { [step.output]: capture.value() };
  }
  // Structured outputs are evaluated after a failed command too; an evaluation error fails the step.
  if (hasStructuredOutputs(step)) {
    const problem = await publishStructuredOutputs(
      step,
      run.status,
      { stdout: capture, stderr: errCapture },
      { scope, cwd: run.cwd, maxBytes, signal: run.stop, failed: result.kind !== 'ok' },
    );
    if (problem !== null) {
      return {
        kind: 'failed',
        exitCode: result.kind === 'ok' ? 0 : result.exitCode,
        error: problem,
        retryable: true,
      };
    }
  }
  // An action's own outputs (outputs.write), under any structured outputs the step also declares.
  // An action's fixed outputs (git worktree actions), in the namespace of declared outputs.
  if (result.kind === 'ok' && result.declaredOutputs) run.status.outputs = { ...result.declaredOutputs };
  if (result.kind === 'ok' && result.outputs) {
    run.status.published_outputs = { ...result.outputs, ...(run.status.published_outputs ?? {}) };
  }
  if (result.kind === 'failed' && result.exitCode !== null && result.exitCode !== 0) {
    // A step writes its output straight into its log: on a full disk its writes fail, the step fails with a
    // bare exit code, and its stderr (which would say why) is lost too. Say what the log's file system says.
    const full = await (run.logSpaceLeft ?? logSpaceLeft)(run.files.stderr).then(
      (left) => left === 0,
      () => false,
    );
    const error = full ? `${result.error} (no space left on the file system of its log)` : result.error;
    const tail = (await readTail(fds.err, errOffset, STDERR_TAIL_BYTES)).trimEnd();
    return { ...result, error: tail ? `${error}\nrecent stderr:\n${tail}` : error };
  }
  return result;
}

/** What stopping the running process means for this step and stop reason. */
function stopProcess(run: StepRun, current: ShellHandle, reason: StopReason): void {
  if (reason.kind === 'timed_out') {
    current.kill();
    return;
  }
  const signal = reason.forwarded
    ? reason.signal
    : ((run.step.signal_on_stop as NodeJS.Signals | null) ?? reason.signal);
  const cleanUpSec = run.dag?.max_clean_up_time_sec;
  current.stop({
    signal,
    resendSignal: reason.signal,
    graceMs: cleanUpSec !== undefined ? cleanUpSec * SECOND : run.killGraceMs,
  });
}

async function runProcesses(
  run: StepRun,
  scope: ValueScope,
  fds: StepFds,
  captures: { out: OutputCapture | null; err: OutputCapture | null },
  timeoutMs: number | null,
  repeating: boolean,
): Promise<AttemptResult | { kind: 'timed_out' }> {
  // The argv of an `exec` step may read the host environment for a name the run does not set, as Dagu's
  // direct execution does (spec 006: host process environment fallback, "Allowed"); shell text never does.
  const execScope = { ...scope, hostEnv: run.hostEnv ?? {} };
  const resolver: TextResolver = (text, policy) =>
    resolveValue(text, policy === 'exec' ? execScope : scope, POLICY_OF[policy]);
  const plan = planStepCommand(
    run.step,
    {
      dagShell: run.dag?.shell ?? null,
      dagShellArgs: run.dag?.shell_args ?? [],
      defaultShell: run.defaultShell ?? 'sh',
    },
    resolver,
  );
  if (!plan.ok) return { kind: 'failed', exitCode: null, error: plan.error, retryable: false };

  let current: ShellHandle | null = null;
  let timedOut = false;
  let stoppedBy: StopReason | null = null;
  const timer =
    timeoutMs !== null
      ? setTimeout(() => {
          timedOut = true;
          current?.kill();
        }, timeoutMs)
      : null;
  const onStop = () => {
    const reason = run.stop.reason as StopReason;
    // A repeating step finishes its current execution on a stop request (Dagu does not signal it).
    if (repeating && reason.kind === 'aborted') return;
    stoppedBy = reason;
    if (current) stopProcess(run, current, reason);
  };
  // The stop may have come while this attempt was being prepared.
  if (run.stop.aborted) onStop();
  else run.stop.addEventListener('abort', onStop);
  try {
    for (const inv of plan.invocations) {
      if (stoppedBy) return { kind: 'stopped', exitCode: null, reason: stoppedBy };
      if (timedOut) return { kind: 'timed_out' };
      const script = inv.script ? await writeScript(inv.script) : null;
      try {
        current = spawnShell({
          file: inv.file,
          args: script ? [...inv.args, script] : inv.args,
          cwd: run.cwd,
          env: { ...run.env, PWD: run.cwd },
          stdoutFd: fds.out,
          stderrFd: fds.err,
          stdoutTee: fds.outTee,
          stderrTee: fds.errTee,
          stdoutCapture: captures.out,
          stderrCapture: captures.err,
          mask: run.mask ?? null,
        });
        if (stoppedBy) stopProcess(run, current, stoppedBy);
        else if (timedOut) current.kill();
        const exit = await current.exited;
        if (timedOut) return { kind: 'timed_out' };
        if (stoppedBy) {
          return {
            kind: 'stopped',
            exitCode: exit.kind === 'exited' ? exit.exitCode : null,
            reason: stoppedBy,
          };
        }
        if (exit.kind === 'spawn_failed') {
          return {
            kind: 'failed',
            exitCode: null,
            error: `failed to start ${describe(inv)}: ${exit.error}`,
            retryable: true,
          };
        }
        if (exit.exitCode !== 0) {
          const error = exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.exitCode}`;
          return { kind: 'failed', exitCode: exit.exitCode, error, retryable: true };
        }
      } finally {
        if (script) await files.unlink(script).catch(() => {});
      }
    }
    return { kind: 'ok' };
  } finally {
    if (timer) clearTimeout(timer);
    run.stop.removeEventListener('abort', onStop);
  }
}

function describe(inv: Invocation): string {
  return inv.file;
}

/** Writes a script to `dagu_script-<random><ext>` in the temp directory, mode 0750; returns its path. */
async function writeScript(script: { text: string; ext: string }): Promise<string> {
  const path = join(tmpdir(), `dagu_script-${randomHex(8)}${script.ext}`);
  const fd = await files.open(path, 'wx', 0o750);
  try {
    await files.writeAll(fd, script.text);
  } finally {
    await files.close(fd);
  }
  return path;
}

/** Delay before retry number `tryIndex + 1`: interval × backoff^tryIndex, capped at max_interval_sec. */
export function retryDelayMs(step: StepSpec, tryIndex: number): number {
  const p = step.retry_policy;
  return p ? backoffDelayMs(p.interval_sec, p.backoff, p.max_interval_sec, tryIndex) : 0;
}

/** The part of a step execution that ending it touches (command steps and call steps alike). */
type EndableStep = Pick<StepRun, 'status' | 'clock' | 'onChange'>;

/**
 * Ends a step stopped by its run. Both a stop request and a DAG timeout leave the step aborted (Dagu, §3.5 and
 * §3.7); how the run ends is decided from the run's own reason.
 */
export function finishStopped(run: EndableStep, reason: StopReason): StepStatus['status'] {
  if (reason.kind === 'timed_out' && run.status.exit_code === null) run.status.exit_code = 124;
  return finish(run, 'aborted', reason.message);
}

/** Ends a step in `state` with `error`, stamps the finish time and reports it. */
export function finish(
  run: EndableStep,
  state: StepStatus['status'],
  error: string | null,
): StepStatus['status'] {
  run.status.status = state;
  run.status.error = error;
  run.status.finished_at = isoNow(run.clock);
  run.onChange();
  return state;
}

export function isoNow(clock: Clock): string {
  return isoTime(clock.nowMs());
}
