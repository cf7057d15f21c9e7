// Executes one step (or handler) to its end: each command entry or the script through the shell, the
// step timeout, retries with backoff, output capture, and stopping when the run is aborted or times out.

import { formatDuration } from '../core/duration';
import { backoffDelayMs } from '../core/backoff';
import type { Clock } from '../core/ports';
import type { StepSpec, StepStatus } from '../core/types';
import { SECOND } from '../core/units';
import * as files from '../store/fileCalls';
import { spawnShell, type ShellHandle } from './spawnShell';
import { isoTime } from '../core/isoTime';

/** Why the whole run is stopping; carried as the `reason` of the run's stop signal. */
export type StopReason =
  { kind: 'aborted'; signal: NodeJS.Signals; message: string } | { kind: 'timed_out'; message: string };

/** Everything one step execution needs; `status` is updated in place and `onChange` called after each update. */
export interface StepRun {
  step: StepSpec;
  status: StepStatus;
  env: NodeJS.ProcessEnv;
  positional: string[];
  cwd: string;
  /** Absolute paths: stdout and stderr logs, and where a `script` is written before it runs. */
  files: { stdout: string; stderr: string; script: string };
  killGraceMs: number;
  clock: Clock;
  /** Aborted (with a StopReason) when the run stops; a step that is running gets killed. */
  stop: AbortSignal;
  onChange(): void;
}

/** The captured `output` value is cut at this size. */
export const OUTPUT_CAP_BYTES = 1024 * 1024;

type TryResult =
  | { kind: 'ok' }
  | { kind: 'failed'; exitCode: number | null; error: string }
  | { kind: 'stopped'; exitCode: number | null; reason: StopReason };

export async function runStep(run: StepRun): Promise<StepStatus['status']> {
  const { status, clock } = run;
  Object.assign(status, {
    status: 'running',
    started_at: isoNow(clock),
    finished_at: null,
    exit_code: null,
    error: null,
    retry_count: 0,
    output: null,
  } satisfies Partial<StepStatus>);
  run.onChange();

  // The step's end is reported after its log files are closed: then the report, the run's end and the
  // final status go out in one turn of the event loop, which the reporter coalesces into one write.
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

/** Runs the step's tries; returns how to end it. The log files it opens go into `opened`, for the caller to close. */
async function execute(run: StepRun, opened: number[]): Promise<() => StepStatus['status']> {
  const { status, step } = run;
  const [prepared, stdout, stderr] = await Promise.allSettled([
    prepare(run),
    files.open(run.files.stdout, 'a+'), // readable too: the output capture reads it back
    files.open(run.files.stderr, 'a'),
  ]);
  for (const r of [stdout, stderr]) if (r.status === 'fulfilled') opened.push(r.value);
  for (const r of [prepared, stdout, stderr]) if (r.status === 'rejected') throw r.reason;
  const problem = (prepared as PromiseFulfilledResult<string | null>).value;
  const out = (stdout as PromiseFulfilledResult<number>).value;
  const err = (stderr as PromiseFulfilledResult<number>).value;
  if (problem) return () => finish(run, 'failed', problem);
  const maxTries = 1 + Math.max(0, step.retry_policy?.limit ?? 0);
  for (let tryIndex = 0; ; tryIndex++) {
    if (run.stop.aborted) return stopped(run);
    const outOffset = (await files.fstat(out)).size;
    const result = await runTry(run, out, err);
    if (result.kind === 'ok') {
      status.exit_code = 0;
      if (step.output) status.output = { [step.output]: await readOutput(out, outOffset) };
      return () => finish(run, 'succeeded', null);
    }
    status.exit_code = result.exitCode;
    if (result.kind === 'stopped') return () => finishStopped(run, result.reason);
    if (tryIndex + 1 >= maxTries) return () => finish(run, 'failed', result.error);

    status.status = 'retrying';
    status.error = result.error;
    run.onChange();
    await sleep(retryDelayMs(step, tryIndex), run.stop);
    if (run.stop.aborted) return stopped(run);
    status.retry_count += 1;
    status.status = 'running';
    status.error = null;
    status.exit_code = null;
    run.onChange();
  }
}

function stopped(run: StepRun): () => StepStatus['status'] {
  const reason = run.stop.reason as StopReason;
  return () => finishStopped(run, reason);
}

/**
 * Checks the working directory and writes the script file; returns an error text or null. A script runs
 * from a file rather than from stdin so that its commands can still read stdin (a script fed on stdin would
 * be eaten by its own `read` or `cat`), any `shell` (bash, python3, ...) can run it by path, and the exact
 * text that ran stays beside the step's logs.
 */
async function prepare(run: StepRun): Promise<string | null> {
  const isDir = await files.stat(run.cwd).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isDir) return `working directory ${JSON.stringify(run.cwd)} does not exist`;
  if (run.step.script !== null) await files.writeFile(run.files.script, run.step.script, 0o600);
  if (run.step.script === null && (run.step.command ?? []).length === 0)
    return 'step has no command or script';
  return null;
}

/** One try: the command entries one after another (stopping at the first failure), or the script. */
async function runTry(run: StepRun, stdoutFd: number, stderrFd: number): Promise<TryResult> {
  const [shell, ...shellArgs] = (run.step.shell ?? 'sh').trim().split(/\s+/);
  // `$0` of the shell; the params follow as `$1`, `$2`, ... and are never part of the command text.
  const invocations =
    run.step.script !== null
      ? [[...shellArgs, run.files.script, ...run.positional]]
      : (run.step.command ?? []).map((cmd) => [...shellArgs, '-c', cmd, 'dagu-step', ...run.positional]);

  let current: ShellHandle | null = null;
  let timedOut = false;
  const timeoutSec = run.step.timeout_sec;
  const timer =
    timeoutSec !== null && timeoutSec > 0
      ? setTimeout(() => {
          timedOut = true;
          current?.stop('SIGTERM', run.killGraceMs);
        }, timeoutSec * SECOND)
      : null;
  const onStop = () => {
    const reason = run.stop.reason as StopReason;
    current?.stop(reason.kind === 'aborted' ? reason.signal : 'SIGTERM', run.killGraceMs);
  };
  run.stop.addEventListener('abort', onStop);
  try {
    for (const args of invocations) {
      if (run.stop.aborted) return { kind: 'stopped', exitCode: null, reason: run.stop.reason as StopReason };
      if (timedOut) break;
      current = spawnShell({ file: shell, args, cwd: run.cwd, env: run.env, stdoutFd, stderrFd });
      const exit = await current.exited;
      if (run.stop.aborted) {
        const exitCode = exit.kind === 'exited' ? exit.exitCode : null;
        return { kind: 'stopped', exitCode, reason: run.stop.reason as StopReason };
      }
      if (exit.kind === 'spawn_failed') {
        return { kind: 'failed', exitCode: null, error: `failed to start ${shell}: ${exit.error}` };
      }
      if (timedOut) break;
      if (exit.exitCode !== 0) {
        const error = exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.exitCode}`;
        return { kind: 'failed', exitCode: exit.exitCode, error };
      }
    }
    if (timedOut) {
      return {
        kind: 'failed',
        exitCode: null,
        error: `timed out after ${formatDuration(timeoutSec! * SECOND)}`,
      };
    }
    return { kind: 'ok' };
  } finally {
    if (timer) clearTimeout(timer);
    run.stop.removeEventListener('abort', onStop);
  }
}

/** Delay before retry number `tryIndex + 1`: interval × backoff^tryIndex, capped at max_interval_sec. */
export function retryDelayMs(step: StepSpec, tryIndex: number): number {
  return step.retry_policy ? backoffDelayMs(step.retry_policy, tryIndex) : 0;
}

async function readOutput(fd: number, offset: number): Promise<string> {
  const buf = Buffer.alloc(OUTPUT_CAP_BYTES);
  const bytesRead = await files.readAt(fd, buf, offset);
  return buf.subarray(0, bytesRead).toString('utf8').trim();
}

/** The part of a step execution that ending it touches (command steps and call steps alike). */
type EndableStep = Pick<StepRun, 'status' | 'clock' | 'onChange'>;

/** Ends a step stopped by its run: a run that timed out failed; an aborted run was not the step's fault. */
export function finishStopped(run: EndableStep, reason: StopReason): StepStatus['status'] {
  return finish(run, reason.kind === 'aborted' ? 'aborted' : 'failed', reason.message);
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

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}

export function isoNow(clock: Clock): string {
  return isoTime(clock.nowMs());
}
