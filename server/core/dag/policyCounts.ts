// Counts of a step's retry or repeat policy written as text with a reference (`limit: "${RETRIES}"`), resolved
// when the step starts, as Dagu resolves them (research note §3.3, §3.4): references and `$VAR` from the run
// scope and the host environment, no command substitution, then read as a whole number the way Go's
// strconv.Atoi reads one. Dagu fails the step when that is not a number; so does this.

import type { DeferredCounts, RepeatPolicySpec, StepRetryPolicy } from '../types';
import { MAX_INTERVAL_SEC, MAX_POLICY_LIMIT } from './policyLimits';
import { resolveValue, type ValueScope } from './values';

/** Thrown when a deferred count does not resolve to a usable number; the message says which and why. */
export class PolicyCountError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PolicyCountError';
  }
}

const NAMES: Record<keyof DeferredCounts, string> = {
  limit: 'limit',
  interval_sec: 'interval',
  max_interval_sec: 'max_interval',
};

const MAX: Record<keyof DeferredCounts, number> = {
  limit: MAX_POLICY_LIMIT,
  interval_sec: MAX_INTERVAL_SEC,
  max_interval_sec: MAX_INTERVAL_SEC,
};

/**
 * The policy with its deferred counts resolved against `scope` (which should carry `hostEnv`), or the policy
 * itself when it has none. A repeat `limit` of 0 means no limit, as when it is written as a number. Throws
 * PolicyCountError.
 */
export function resolvePolicyCounts<P extends StepRetryPolicy | RepeatPolicySpec>(
  policy: P,
  what: 'retry' | 'repeat',
  scope: ValueScope,
): P {
  const deferred = policy.deferred;
  if (!deferred) return policy;
  const resolved: Record<string, number | null> = {};
  for (const key of Object.keys(deferred) as Array<keyof DeferredCounts>) {
    const raw = deferred[key]!;
    const text = resolveValue(raw, scope, 'hostValue');
    const fail = (why: string) =>
      new PolicyCountError(
        `failed to substitute ${what} ${NAMES[key]} ${JSON.stringify(raw)}: ${JSON.stringify(text)} ${why}`,
      );
    // strconv.Atoi: an optional sign and decimal digits, nothing else (no blanks).
    if (!/^[+-]?\d+$/.test(text)) throw fail('is not an integer');
    const n = Number(text);
    if (n < 0) throw fail('is negative');
    if (n > MAX[key]) throw fail(`is more than ${MAX[key]}`);
    resolved[key] = what === 'repeat' && key === 'limit' && n === 0 ? null : n;
  }
  const out: P = { ...policy, ...resolved };
  delete out.deferred;
  return out;
}
