// Dagu's precondition rules: how a condition's value or command result becomes met / not met / error, how
// `negate` and a list of conditions combine. Pure: the runner resolves values and runs commands, then asks here.

import type { ConditionSpec } from '../types';

/** The outcome of one condition, or of a list. `error` is an evaluation failure, never a plain "not met". */
export type ConditionCheck =
  { status: 'met' } | { status: 'not_met'; reason: string } | { status: 'error'; reason: string };

/** What the runner must do to evaluate one condition. */
export type ConditionPlan =
  /** Resolve `text` with the `value` policy (no command substitution), then call {@link checkValue}. */
  | { mode: 'value'; text: string; expected: string }
  /** Resolve `text` with `resolveEvalValue` (command substitution), then call {@link checkValue}. */
  | { mode: 'eval'; text: string; expected: string }
  /** Resolve `text` with the `conditionCommand` policy, run `<shell> [args] -c text` (no -e), then {@link checkCommand}. */
  | { mode: 'command'; text: string }
  /** The condition cannot be evaluated (e.g. `eval` without `expected`); it is an error. */
  | { mode: 'invalid'; reason: string };

/** Reason Dagu gives to the conditions that passed when another one did not. */
export const OTHER_CONDITION_NOT_MET = 'other condition was not met';

/** Decides how a condition is evaluated (Dagu: a non-empty `expected` means a value match). */
export function planCondition(c: ConditionSpec): ConditionPlan {
  const expected = c.expected ?? '';
  if (expected !== '' && (c.condition || c.eval)) {
    return c.eval
      ? { mode: 'eval', text: c.eval, expected }
      : { mode: 'value', text: c.condition ?? '', expected };
  }
  if (c.eval) return { mode: 'invalid', reason: 'expected is required when eval is set' };
  return { mode: 'command', text: c.condition ?? '' };
}

/** A value match: met when any line of `value` equals `expected`, or matches it when it starts with `re:`. */
export function checkValue(value: string, expected: string): ConditionCheck {
  if (matchLines(value, [expected], { exact: true })) return { status: 'met' };
  return {
    status: 'not_met',
    reason: `condition was not met: expected ${goString(expected)}, got ${goString(value)}`,
  };
}

/**
 * A command check: exit 0 is met; a non-zero exit, or a command that could not start (`exitCode` null), is
 * not met. `detail` (e.g. "exit status 1") goes into the reason.
 */
export function checkCommand(exitCode: number | null, detail?: string): ConditionCheck {
  if (exitCode === 0) return { status: 'met' };
  const why = detail ?? (exitCode === null ? 'command could not be started' : `exit status ${exitCode}`);
  return { status: 'not_met', reason: `condition was not met: ${why}` };
}

/** An evaluation failure (resolution error, failed `eval` command, invalid condition). */
export function conditionError(message: string): ConditionCheck {
  return { status: 'error', reason: message };
}

/** Applies `negate`: met ↔ not met; an error stays an error. */
export function applyNegate(check: ConditionCheck, negate: boolean): ConditionCheck {
  if (!negate) return check;
  if (check.status === 'met') {
    return { status: 'not_met', reason: 'condition was not met: condition matched but negate is true' };
  }
  if (check.status === 'not_met') return { status: 'met' };
  return check;
}

/** The combined outcome of a condition list and each entry's reason (null when it passed). */
export interface ConditionsResult {
  /** `met` only when every entry is met; otherwise the status of the LAST failing entry, as Dagu decides. */
  outcome: ConditionCheck;
  /** Per entry: null when met; its own reason; or {@link OTHER_CONDITION_NOT_MET} when another one failed. */
  reasons: Array<string | null>;
}

/** AND over checks already evaluated (all of them: Dagu does not short-circuit). */
export function combineConditions(checks: readonly ConditionCheck[]): ConditionsResult {
  let last: ConditionCheck | null = null;
  for (const c of checks) if (c.status !== 'met') last = c;
  if (last === null) return { outcome: { status: 'met' }, reasons: checks.map(() => null) };
  return {
    outcome: last,
    reasons: checks.map((c) => (c.status === 'met' ? OTHER_CONDITION_NOT_MET : c.reason)),
  };
}

/** What {@link evaluateConditions} needs from the runner. Each may throw/reject: that is an evaluation error. */
export interface ConditionPort {
  /** Resolves a `condition` value (policy `value`). */
  resolveValue(text: string): string;
  /** Resolves an `eval` text with command substitution (`unbounded`: without the 2 s limit, see ConditionSpec). */
  resolveEval(text: string, unbounded: boolean): Promise<string>;
  /** Resolves (policy `conditionCommand`) and runs a command check; resolves to its exit code, null if it could not start. */
  runCommand(text: string): Promise<number | null>;
}

/** Evaluates every condition in order through `port`, applies negation and combines them. */
export async function evaluateConditions(
  conditions: readonly ConditionSpec[],
  port: ConditionPort,
): Promise<ConditionsResult> {
  const checks: ConditionCheck[] = [];
  for (const c of conditions) {
    checks.push(applyNegate(await evaluateOne(c, port), c.negate));
  }
  return combineConditions(checks);
}

async function evaluateOne(c: ConditionSpec, port: ConditionPort): Promise<ConditionCheck> {
  const plan = planCondition(c);
  try {
    switch (plan.mode) {
      case 'invalid':
        return conditionError(plan.reason);
      case 'value':
        return checkValue(port.resolveValue(plan.text), plan.expected);
      case 'eval':
        return checkValue(await port.resolveEval(plan.text, c.unbounded === true), plan.expected);
      case 'command':
        return checkCommand(await port.runCommand(plan.text));
    }
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return conditionError(`failed to evaluate the condition: ${message}`);
  }
}

// --- line matching shared with continue_on.output ---

/**
 * Dagu's line matcher: true when any line of `content` (split on \n, a trailing \r dropped) equals (`exact`)
 * or contains a literal pattern, or matches a `re:` pattern (unanchored). Content without any line matches
 * only an empty literal or a regexp that matches "". An invalid regexp is ignored.
 */
export function matchLines(content: string, patterns: readonly string[], opts: { exact: boolean }): boolean {
  if (patterns.length === 0) return false;
  const literals: string[] = [];
  const regexps: RegExp[] = [];
  for (const p of patterns) {
    if (p.startsWith('re:')) {
      const re = compileGoRegexp(p.slice(3));
      if (re) regexps.push(re);
    } else literals.push(p);
  }
  const lines = splitScannerLines(content);
  if (lines.length === 0) return literals.includes('') || regexps.some((re) => re.test(''));
  return lines.some(
    (line) =>
      literals.some((p) => (opts.exact ? line === p : line.includes(p))) ||
      regexps.some((re) => re.test(line)),
  );
}

/** Lines as Go's bufio.ScanLines yields them: no empty last line after a final newline. */
export function splitScannerLines(content: string): string[] {
  if (content === '') return [];
  const lines = content.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

/**
 * Compiles a Go (RE2) regexp as a JS RegExp, or null when it is invalid. A leading `(?flags)` group becomes JS
 * flags; `\z` and `\A` become their JS equivalents. Other RE2 syntax is shared with JS for common patterns.
 */
export function compileGoRegexp(source: string): RegExp | null {
  let src = source;
  let flags = '';
  const m = /^\(\?([imsU]+)\)/.exec(src);
  if (m) {
    if (m[1].includes('U')) return null;
    flags = Array.from(new Set(m[1].split(''))).join('');
    src = src.slice(m[0].length);
  }
  src = src.replace(/\\z/g, '$(?![\\s\\S])').replace(/\\A/g, '^(?<![\\s\\S])');
  try {
    return new RegExp(src, flags + 'u');
  } catch {
    try {
      return new RegExp(src, flags);
    } catch {
      return null;
    }
  }
}

/** Go's %q of a short string, for reasons; JSON quoting is close enough for messages. */
function goString(s: string): string {
  return JSON.stringify(s);
}
