// Checks every run store applies before it builds a path or a record from caller input.

import { assertDagName, assertRunId } from '../core/names';
import type { RunStatus } from '../core/types';

/** Validates the names of a status that become path components; throws InvalidNameError. */
export function assertStatusNames(status: RunStatus): void {
  assertRunId(status.run_id);
  assertDagName(status.dag_name);
  assertDagName(status.queue, 'queue name');
}

export function isAttemptNumber(attempt: number): boolean {
  return Number.isSafeInteger(attempt) && attempt >= 1;
}

/** Minimal shape check of a parsed status file; returns what is wrong, or null. */
export function statusShapeError(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const v = value as Record<string, unknown>;
  // A record another (newer) dagu wrote may mean something else under the same field names: not read as ours.
  if (v.version !== 1) return `unsupported version ${JSON.stringify(v.version)} (this dagu reads version 1)`;
  for (const field of ['run_id', 'dag_name', 'status', 'created_at'] as const) {
    if (typeof v[field] !== 'string') return `field ${field} is missing or not a string`;
  }
  if (typeof v.attempt !== 'number' || !isAttemptNumber(v.attempt)) {
    return 'field attempt is not a positive integer';
  }
  return null;
}
