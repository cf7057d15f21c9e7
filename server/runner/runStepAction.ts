// One attempt of a step whose work is an in-process action (http, jq, mail, log, noop): its `with` map
// value-resolved, stdout going to the log, the `stdout:` copy and the `output` capture, and the step
// timeout and run stop delivered through an abort signal.

import { resolveValue, type ValueScope } from '../core/dag/values';
import type { ParamSpec, StepAction } from '../core/types';
import type { ActionContext, ActionResult } from './actions/types';
import { isInProcessAction, runAction } from './actions/runAction';
import { teeSink, type OutputCapture } from './outputCapture';
import type { StepRun, StopReason } from './runStep';

/** Runs one action to its end; never throws for a failure of the action itself. */
export type ActionRunner = (action: StepAction, ctx: ActionContext) => Promise<ActionResult>;

/** The actions this product runs in-process (X's dispatcher); other kinds are not step actions. */
const defaultRunner: ActionRunner = (action, ctx) =>
  isInProcessAction(action)
    ? runAction(action, ctx)
    : Promise.resolve({ exitCode: 1, error: `action ${action.kind} is not run in-process` });

/** Value-resolves every string inside a `with` value (maps and lists walked, other values kept). */
export function resolveWith(value: unknown, scope: ValueScope): unknown {
  if (typeof value === 'string') return resolveValue(value, scope, 'value');
  if (Array.isArray(value)) return value.map((v) => resolveWith(v, scope));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveWith(v, scope)]));
  }
  return value;
}

/**
 * The scope a template step's `with` is resolved in: as Dagu's templateConfigEvalVariables does, a declared
 * named param that has no value (omitted, no default) reads as empty text rather than staying `${name}`.
 */
function templateScope(scope: ValueScope, params: readonly ParamSpec[] | undefined): ValueScope {
  const vars: Record<string, string> = { ...scope.vars };
  for (const p of params ?? []) {
    const name = p.name?.trim();
    if (name && !/^\d+$/.test(name) && !Object.hasOwn(vars, name)) vars[name] = '';
  }
  return { ...scope, vars };
}

type Attempt =
  | { kind: 'ok'; outputs?: Record<string, unknown>; declaredOutputs?: Record<string, string> }
  | { kind: 'failed'; exitCode: number | null; error: string; retryable: boolean }
  | { kind: 'stopped'; exitCode: number | null; reason: StopReason }
  | { kind: 'timed_out' };

export async function runStepAction(
  run: StepRun,
  scope: ValueScope,
  fds: { out: number; err: number; outTee: number[]; errTee: number[] },
  capture: OutputCapture | null,
  timeoutMs: number | null,
  runner: ActionRunner | undefined,
  errCapture: OutputCapture | null = null,
): Promise<Attempt> {
  const action = run.step.action!;
  const controller = new AbortController();
  let timedOut = false;
  const timer =
    timeoutMs !== null
      ? setTimeout(() => {
          timedOut = true;
          controller.abort(new Error('step timed out'));
        }, timeoutMs)
      : null;
  const onStop = () => controller.abort(run.stop.reason);
  if (run.stop.aborted) onStop();
  else run.stop.addEventListener('abort', onStop, { once: true });

  const stdout = teeSink([fds.out, ...fds.outTee], capture, run.mask ?? null);
  const stderr = teeSink([fds.err, ...fds.errTee], errCapture, run.mask ?? null);
  try {
    const withScope = action.kind === 'template' ? templateScope(scope, run.dag?.params) : scope;
    const withMap = 'with' in action ? (resolveWith(action.with, withScope) as Record<string, unknown>) : {};
    const ctx: ActionContext = {
      with: withMap,
      command: run.step.command?.map((c) => resolveValue(c, scope, 'value')) ?? null,
      // A template's text is rendered as written: Dagu resolves no reference in it.
      script:
        run.step.script === null
          ? null
          : resolveValue(run.step.script, scope, action.kind === 'template' ? 'literal' : 'value'),
      stdout,
      stderr,
      signal: controller.signal,
      smtp: run.dag?.smtp ?? null,
      workingDir: run.cwd,
      env: run.env,
      // wait.until reads the run's clock, not the wall clock of its own.
      clock: run.clock,
      runId: run.env.DAG_RUN_ID,
      stepIdentity: run.step.id || run.step.name,
      stepName: run.step.name,
      state: run.state,
    };
    let result: ActionResult;
    try {
      result = await (runner ?? defaultRunner)(action, ctx);
    } catch (e) {
      result = { exitCode: 1, error: e instanceof Error ? e.message : String(e) };
    }
    await Promise.all([endStream(stdout), endStream(stderr)]);
    if (timedOut) return { kind: 'timed_out' };
    if (run.stop.aborted) return { kind: 'stopped', exitCode: null, reason: run.stop.reason as StopReason };
    if (result.error === null && result.exitCode === 0) {
      const ok: Attempt = { kind: 'ok' };
      if (result.outputs) ok.outputs = result.outputs;
      if (result.declaredOutputs) ok.declaredOutputs = result.declaredOutputs;
      return ok;
    }
    return {
      kind: 'failed',
      exitCode: result.exitCode === 0 ? 1 : result.exitCode,
      error: result.error ?? `exit code ${result.exitCode}`,
      retryable: true,
    };
  } finally {
    if (timer) clearTimeout(timer);
    run.stop.removeEventListener('abort', onStop);
  }
}

function endStream(stream: NodeJS.WritableStream & { writableFinished?: boolean }): Promise<void> {
  return new Promise((resolve) => {
    stream.end(() => resolve());
  });
}
