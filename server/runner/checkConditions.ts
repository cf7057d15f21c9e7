// Evaluates `preconditions` (DAG and step) and a `repeat_policy` condition the way Dagu does: a value
// match (`condition`/`eval` against `expected`) or a command check (`<shell> <args> -c <text>`, exit 0 =
// met), each entry evaluated in order without short-circuit, `negate` swapping met and not met.

import { evaluateConditions, type ConditionPort } from '../core/dag/conditions';
import { resolveEvalValue, resolveValue, type ValueScope } from '../core/dag/values';
import type { ConditionSpec } from '../core/types';
import { signalGroup } from './processGroup';
import { spawnProcess } from './spawnProcess';
import { shellArgv, substituteCommand } from './commandSubstitution';

/** What the conditions of one place (DAG, step, repeat) see. */
export interface ConditionContext {
  /** The shell words a command check and a command substitution run with (no `-e` is added). */
  shell: readonly string[];
  /** The environment and working directory the step (or the DAG's first step) would have. */
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** What references in the texts resolve against. */
  scope: ValueScope;
  /** Cancels running checks (a stop of the run). */
  signal?: AbortSignal;
  /** `precondition` (default) or `repeat condition`: the start of a not-met reason. */
  label?: string;
  /** Largest stdout an `eval` command substitution may print (DAG `max_output_size`). */
  maxOutputBytes?: number;
}

/** The outcome of a condition list. */
export type ConditionOutcome =
  { status: 'met' } | { status: 'not_met'; reason: string } | { status: 'error'; error: string };

/** How long one command substitution of an `eval` may run (Dagu 2.x's limit; 1.x has none). */
const SUBSTITUTION_TIMEOUT_MS = 2000;

/**
 * Evaluates every condition in order (no short-circuit: commands with side effects all run), with V's rules
 * (core/dag/conditions.ts): the last failing entry decides, an evaluation error is an error, an empty list
 * is met.
 */
export async function checkConditions(
  conds: readonly ConditionSpec[],
  ctx: ConditionContext,
): Promise<ConditionOutcome> {
  const label = ctx.label ?? 'precondition';
  const port: ConditionPort = {
    resolveValue: (text) => resolveValue(text, ctx.scope, 'value'),
    resolveEval: (text, unbounded) =>
      resolveEvalValue(text, ctx.scope, (command) => substitute(command, ctx, unbounded)),
    runCommand: (text) => runCheck(resolveValue(text, ctx.scope, 'conditionCommand'), ctx),
  };
  const { outcome, reasons } = await evaluateConditions(conds, port);
  if (outcome.status === 'met') return outcome;
  let last = reasons.length - 1;
  for (let i = reasons.length - 1; i >= 0; i--) {
    if (reasons[i] === outcome.reason) {
      last = i;
      break;
    }
  }
  const cond = conds[last];
  const text = JSON.stringify(cond?.eval ?? cond?.condition ?? '');
  const why = outcome.reason.replace(/^condition was not met: /, '');
  if (outcome.status === 'error')
    return { status: 'error', error: `${label} ${text} could not be evaluated: ${why}` };
  return { status: 'not_met', reason: `${label} not met: ${text}: ${why}` };
}

/** The argv of `text` run by `shell`, `-c` added unless the shell args already carry it. */
/** Runs a command check; resolves to its exit code, null when it could not start or was killed. */
async function runCheck(text: string, ctx: ConditionContext): Promise<number | null> {
  const { file, args } = shellArgv(ctx.shell, text);
  const child = spawnProcess({
    file,
    args,
    cwd: ctx.cwd,
    env: ctx.env,
    detached: true,
    stdoutFd: 'pipe',
    stderrFd: 'pipe',
  });
  // Output is ignored, but drained so a chatty check cannot block on a full pipe.
  child.stdout?.resume();
  child.stderr?.resume();
  const onAbort = () => {
    if (child.pid !== null) signalGroup(child.pid, 'SIGKILL');
  };
  ctx.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const end = await child.exited;
    return end.kind === 'exited' ? end.exitCode : null;
  } finally {
    ctx.signal?.removeEventListener('abort', onAbort);
  }
}

/** One backtick or `$(...)` body of an `eval`: run by the shell, its stdout is the value. */
function substitute(command: string, ctx: ConditionContext, unbounded: boolean): Promise<string> {
  return substituteCommand(ctx.shell, command, {
    cwd: ctx.cwd,
    env: ctx.env,
    timeoutMs: unbounded ? null : SUBSTITUTION_TIMEOUT_MS,
    maxOutputBytes: ctx.maxOutputBytes,
    signal: ctx.signal,
  });
}
