// Evaluates `preconditions` (DAG and step) and a `repeat_policy` condition the way Dagu does: a value
// match (`condition`/`eval` against `expected`) or a command check (`<shell> <args> -c <text>`, exit 0 =
// met), each entry evaluated in order without short-circuit, `negate` swapping met and not met.

import { execFile } from 'node:child_process';
import { resolveEvalValue, resolveValue, type ValueScope } from '../core/dag/values';
import type { ConditionSpec } from '../core/types';
import { spawnProcess } from './spawnProcess';
import { DEFAULT_MAX_OUTPUT_BYTES } from './outputCapture';

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
  /** Largest value a value match looks at (DAG `max_output_size`). */
  maxOutputBytes?: number;
}

/** The outcome of one entry, or of a whole list. */
export type ConditionOutcome =
  { status: 'met' } | { status: 'not_met'; reason: string } | { status: 'error'; error: string };

/** How long one command substitution of an `eval` may run (Dagu's limit). */
const SUBSTITUTION_TIMEOUT_MS = 2000;

/**
 * Evaluates every condition in order (no short-circuit: commands with side effects all run). The first
 * evaluation error wins, then the first not-met reason; an empty list is met.
 */
export async function checkConditions(
  conds: readonly ConditionSpec[],
  ctx: ConditionContext,
): Promise<ConditionOutcome> {
  const outcomes: ConditionOutcome[] = [];
  for (const cond of conds) outcomes.push(await evalCondition(cond, ctx));
  return (
    outcomes.find((o) => o.status === 'error') ??
    outcomes.find((o) => o.status === 'not_met') ?? { status: 'met' }
  );
}

/** Evaluates one condition, `negate` applied; a negated evaluation error stays an error. */
export async function evalCondition(cond: ConditionSpec, ctx: ConditionContext): Promise<ConditionOutcome> {
  const label = ctx.label ?? 'precondition';
  let raw: { met: boolean; detail: string } | { error: string };
  try {
    raw = cond.expected !== null ? await matchValue(cond, ctx) : await runCheck(cond, ctx);
  } catch (e) {
    raw = { error: e instanceof Error ? e.message : String(e) };
  }
  if ('error' in raw) return { status: 'error', error: `${label} could not be evaluated: ${raw.error}` };
  const met = cond.negate ? !raw.met : raw.met;
  if (met) return { status: 'met' };
  return { status: 'not_met', reason: `${label} not met: ${raw.detail}${cond.negate ? ' (negated)' : ''}` };
}

async function matchValue(
  cond: ConditionSpec,
  ctx: ConditionContext,
): Promise<{ met: boolean; detail: string }> {
  const expected = cond.expected!;
  const source = cond.eval ?? cond.condition ?? '';
  const value =
    cond.eval !== null
      ? await resolveEvalValue(cond.eval, ctx.scope, (command) => substitute(command, ctx))
      : resolveValue(source, ctx.scope, 'value');
  const met = matchesExpected(value, expected, ctx.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES);
  return {
    met,
    detail: `${JSON.stringify(source)} is ${JSON.stringify(value)}, expected ${JSON.stringify(expected)}`,
  };
}

/**
 * True when any line of `value` equals `expected`, or, for `re:<pattern>`, when the pattern matches any
 * line (unanchored). Only the first `maxBytes` of the value are looked at.
 */
export function matchesExpected(
  value: string,
  expected: string,
  maxBytes = DEFAULT_MAX_OUTPUT_BYTES,
): boolean {
  const text = value.length > maxBytes ? value.slice(0, maxBytes) : value;
  const lines = text.split(/\r?\n/);
  if (expected.startsWith('re:')) {
    const re = new RegExp(expected.slice(3));
    return lines.some((line) => re.test(line));
  }
  return lines.some((line) => line === expected);
}

/** The argv of `text` run by `shell`, `-c` added unless the shell args already carry it. */
function shellArgv(shell: readonly string[], text: string): { file: string; args: string[] } {
  const [file = 'sh', ...args] = shell;
  return { file, args: args.includes('-c') ? [...args, text] : [...args, '-c', text] };
}

/** A command check: exit 0 means met; a non-zero exit or a command that cannot start means not met. */
async function runCheck(
  cond: ConditionSpec,
  ctx: ConditionContext,
): Promise<{ met: boolean; detail: string }> {
  const text = resolveValue(cond.condition ?? '', ctx.scope, 'conditionCommand');
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
    if (child.pid !== null) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  };
  ctx.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const end = await child.exited;
    if (end.kind === 'spawn_failed')
      return { met: false, detail: `command ${JSON.stringify(text)} could not start: ${end.error}` };
    if (end.exitCode === 0) return { met: true, detail: `command ${JSON.stringify(text)} exited 0` };
    const how = end.signal ? `was killed by ${end.signal}` : `exited ${end.exitCode}`;
    return { met: false, detail: `command ${JSON.stringify(text)} ${how}` };
  } finally {
    ctx.signal?.removeEventListener('abort', onAbort);
  }
}

/** One backtick or `$(...)` body of an `eval`: run by the shell, its stdout is the value. */
function substitute(command: string, ctx: ConditionContext): Promise<string> {
  const { file, args } = shellArgv(ctx.shell, command);
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      {
        cwd: ctx.cwd,
        env: ctx.env,
        timeout: SUBSTITUTION_TIMEOUT_MS,
        killSignal: 'SIGKILL',
        maxBuffer: ctx.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
        signal: ctx.signal,
        encoding: 'utf8',
      },
      (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        const why =
          err.killed && !ctx.signal?.aborted
            ? `timed out after ${SUBSTITUTION_TIMEOUT_MS / 1000}s`
            : err.message.split('\n')[0];
        reject(new Error(stderr.trim() ? `${why}; stderr: ${stderr.trim()}` : why));
      },
    );
  });
}
