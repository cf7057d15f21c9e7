// Dagu's `retry --sub-run-id`: one step of a sub-run is retried in place, and so is every call step on the way
// from the root run down to it. The path names, from the root down, each call step and the child run it
// started; `step` is the step retried in the last child. Each level retries its own call step (its hop),
// which retries the hop's child with the rest of the path.

/** One call step of a run and the child run of it that the path goes through. */
export interface RetryHop {
  step: string;
  run_id: string;
}

export interface RetryPath {
  hops: RetryHop[];
  /** The step retried in the last hop's child run. */
  step: string;
  /** The steps downstream of `step` in that child are retried too (`--downstream`). */
  downstream: boolean;
}

/**
 * One step of an existing run retried in place (`retry --step`, a level of a `--sub-run-id` path): the
 * step, whether the steps downstream of it run again too, and the rest of the path below it (null: none).
 */
export interface StepRetry {
  step: string;
  downstream: boolean;
  path: RetryPath | null;
}

/** What the child of the first hop is told: the step it retries and the rest of the path (null: none). */
export function nextLevel(path: RetryPath): { step: string; rest: RetryPath | null } {
  if (path.hops.length > 1) {
    const rest = { ...path, hops: path.hops.slice(1) };
    return { step: rest.hops[0].step, rest };
  }
  return { step: path.step, rest: null };
}

export function encodeRetryPath(path: RetryPath): string {
  return JSON.stringify(path);
}

/** A path from `encodeRetryPath`; an error text when it is not one. */
export function parseRetryPath(text: string): { ok: true; path: RetryPath } | { ok: false; error: string } {
  const bad = { ok: false as const, error: `retry path is invalid: ${JSON.stringify(text.slice(0, 200))}` };
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return bad;
  }
  if (typeof v !== 'object' || v === null) return bad;
  const { hops, step, downstream } = v as Record<string, unknown>;
  if (typeof step !== 'string' || step === '' || typeof downstream !== 'boolean') return bad;
  if (!Array.isArray(hops) || hops.length === 0) return bad;
  const out: RetryHop[] = [];
  for (const h of hops) {
    if (typeof h !== 'object' || h === null) return bad;
    const { step: s, run_id: r } = h as Record<string, unknown>;
    if (typeof s !== 'string' || s === '' || typeof r !== 'string' || r === '') return bad;
    out.push({ step: s, run_id: r });
  }
  return { ok: true, path: { hops: out, step, downstream } };
}
