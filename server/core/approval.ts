// Dagu's step approvals (`approval:` on a step): the rules of answering one. Approving checks the `required`
// inputs and gives the step its inputs as output variables; pushing back resets the step (or its `rewind_to`
// step) and every step downstream of it, each remembering the push-back (iteration, inputs, history, the
// stdout log of its run before), and a step run under a push-back sees Dagu's DAG_PUSHBACK* variables. Pure.

import { freshStepStatus } from './runStatus';
import type { PushBackEntry, PushBackStatus, RunStatus, StepStatus } from './types';

/** Dagu's names of the push-back variables. */
export const PUSHBACK_ENV = {
  payload: 'DAG_PUSHBACK',
  iteration: 'DAG_PUSHBACK_ITERATION',
  previousStdout: 'DAG_PUSHBACK_PREVIOUS_STDOUT_FILE',
} as const;

/** Input names are Dagu's env names: the variables downstream steps see. */
export const APPROVAL_INPUT_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function sorted(inputs: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(inputs).sort()) out[key] = inputs[key];
  return out;
}

/**
 * The inputs a push-back keeps: those named in `allowed` (the approval's `input`), all of them when it names
 * none; undefined when none remain (Dagu's FilterPushBackInputs).
 */
export function filterPushBackInputs(
  allowed: readonly string[],
  inputs: Readonly<Record<string, string>> | undefined,
): Record<string, string> | undefined {
  if (!inputs || Object.keys(inputs).length === 0) return undefined;
  const kept = Object.entries(inputs).filter(([k]) => allowed.length === 0 || allowed.includes(k));
  return kept.length === 0 ? undefined : sorted(Object.fromEntries(kept));
}

/** The required inputs missing (absent or blank) from `inputs`, as Dagu's message, or null. */
export function missingRequiredInputs(
  required: readonly string[],
  inputs: Readonly<Record<string, string>>,
): string | null {
  const missing = required.filter((name) => (inputs[name] ?? '').trim() === '');
  return missing.length === 0 ? null : `missing required inputs: [${missing.join(' ')}]`;
}

/** `--input key=value` words as a map; an error for a malformed or repeated one. */
export function parseInputWords(
  words: readonly string[],
): { ok: true; inputs: Record<string, string> } | { ok: false; error: string } {
  const inputs: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const word of words) {
    const eq = word.indexOf('=');
    const name = eq < 0 ? '' : word.slice(0, eq).trim();
    if (eq < 0 || name === '')
      return { ok: false, error: `--input ${JSON.stringify(word)} must be key=value with a non-empty key` };
    if (Object.hasOwn(inputs, name))
      return { ok: false, error: `--input: duplicate input ${JSON.stringify(name)}` };
    inputs[name] = word.slice(eq + 1);
  }
  return { ok: true, inputs: { ...inputs } };
}

/** The inputs of an answer that are not Dagu env names, as an error, or null. */
export function badInputNames(inputs: Readonly<Record<string, string>>): string | null {
  const bad = Object.keys(inputs).filter((k) => !APPROVAL_INPUT_NAME.test(k));
  return bad.length === 0
    ? null
    : `invalid input name ${JSON.stringify(bad[0])} (use letters, digits and _, not starting with a digit)`;
}

/** The names of `stepName` and every step downstream of it, by the steps' recorded `depends`. */
export function downstreamOf(steps: readonly StepStatus[], stepName: string): Set<string> {
  const names = new Set([stepName]);
  for (let changed = true; changed;) {
    changed = false;
    for (const s of steps) {
      if (!names.has(s.name) && (s.depends ?? []).some((d) => names.has(d))) {
        names.add(s.name);
        changed = true;
      }
    }
  }
  return names;
}

/**
 * The run after a push-back of its waiting approval step `stepName` (at `at`, with `inputs`): the rewind target
 * (`rewind_to`, else the step) and every step downstream of it are reset to `not_started`, each carrying the
 * push-back. Null when the target is not a step of the run.
 */
export function applyPushBack(
  run: RunStatus,
  stepName: string,
  inputs: Readonly<Record<string, string>>,
  at: string,
): RunStatus | null {
  const next: RunStatus = structuredClone(run);
  const step = next.steps.find((s) => s.name === stepName);
  if (!step?.approval) return null;
  const target = step.approval.rewind_to ?? stepName;
  if (!next.steps.some((s) => s.name === target)) return null;
  const allowed = step.approval.input;
  const iteration = (step.push_back?.iteration ?? 0) + 1;
  const kept = filterPushBackInputs(allowed, inputs);
  const history: PushBackEntry[] = (step.push_back?.history ?? []).map((e) => ({
    ...e,
    ...(e.inputs ? { inputs: filterPushBackInputs(allowed, e.inputs) } : {}),
  }));
  history.push({ iteration, at, ...(kept ? { inputs: kept } : {}) });
  const reset = downstreamOf(next.steps, target);
  next.steps = next.steps.map((s) => {
    if (!reset.has(s.name)) return s;
    const pushBack: PushBackStatus = {
      iteration,
      ...(kept ? { inputs: kept } : {}),
      history: structuredClone(history),
      previous_stdout: s.stdout,
    };
    return {
      ...freshStepStatus(s.name),
      ...(s.depends ? { depends: s.depends } : {}),
      push_back: pushBack,
    } satisfies StepStatus;
  });
  return next;
}

/**
 * The variables a step run under a push-back sees (Dagu's setupNodeExecutionEnv): its inputs (only those its
 * own approval accepts, when it has one), the iteration, the previous stdout log when there was one, and the
 * JSON payload with the history.
 */
export function pushBackEnv(
  pushBack: PushBackStatus,
  allowed: readonly string[],
  previousStdoutPath: string | null,
): Record<string, string> {
  const env: Record<string, string> = {};
  if (pushBack.iteration <= 0) return env;
  const inputs = filterPushBackInputs(allowed, pushBack.inputs);
  Object.assign(env, inputs ?? {});
  env[PUSHBACK_ENV.iteration] = String(pushBack.iteration);
  if (previousStdoutPath) env[PUSHBACK_ENV.previousStdout] = previousStdoutPath;
  const history = pushBack.history.map((e) => {
    const kept = filterPushBackInputs(allowed, e.inputs);
    return { iteration: e.iteration, ...(e.at ? { at: e.at } : {}), ...(kept ? { inputs: kept } : {}) };
  });
  const last = history[history.length - 1];
  env[PUSHBACK_ENV.payload] = JSON.stringify({
    iteration: pushBack.iteration,
    ...(last?.at ? { at: last.at } : {}),
    ...(inputs ? { inputs } : {}),
    ...(history.length > 0 ? { history } : {}),
  });
  return env;
}
