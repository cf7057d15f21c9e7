// Text form of the scheduler lock record, shared by the file and in-memory storages: one JSON line, and a
// parser that reports a truncated or foreign file as corrupt (with the reason) instead of throwing.

import type { LockRead, LockRecord } from '../core/lease/types';

export function encodeLockRecord(record: LockRecord): string {
  return `${JSON.stringify(record)}\n`;
}

export function decodeLockRecord(raw: string): LockRead {
  if (raw.trim() === '') return { kind: 'corrupt', raw, error: 'empty file' };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    return {
      kind: 'corrupt',
      raw,
      error: `invalid JSON: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
  const problem = lockRecordProblem(value);
  if (problem !== null) return { kind: 'corrupt', raw, error: problem };
  return { kind: 'record', record: value as LockRecord };
}

function lockRecordProblem(v: unknown): string | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'not a JSON object';
  const r = v as Record<string, unknown>;
  if (r.version !== 1) return `unknown version ${JSON.stringify(r.version)}`;
  for (const key of ['holder', 'instance_id', 'host', 'acquired_at', 'renewed_at'] as const) {
    if (typeof r[key] !== 'string') return `field ${key} is not a string`;
  }
  for (const key of ['pid', 'epoch', 'counter'] as const) {
    if (typeof r[key] !== 'number' || !Number.isSafeInteger(r[key])) return `field ${key} is not an integer`;
  }
  if (typeof r.released !== 'boolean') return 'field released is not a boolean';
  return null;
}
