// Reads Dagu's file and wait actions (`action: file.read`, `action: wait.http`, ..., and the legacy
// `type: file` with the operation in `command`): checks `with` per operation as Dagu does when it loads the
// file, and keeps it as written (values are resolved when the step runs). Values Dagu checks the format of
// (durations, timestamps, URLs, modes) are checked here too, unless they hold a `$` reference.

import { isMap } from 'yaml';
import { parseDuration } from '../duration';
import { refuseShellKeys } from './readLegacyOp';
import type { DagReader, Entry } from './dagReader';
import { describe, isNull } from './dagReader';
import type { StepExecution } from './readAction';

export const FILE_OPS = ['stat', 'read', 'write', 'copy', 'move', 'delete', 'mkdir', 'list'] as const;
export const WAIT_OPS = ['duration', 'until', 'file', 'http'] as const;

const FILE_STRING_KEYS = ['path', 'source', 'destination', 'content', 'mode', 'format', 'pattern'] as const;
const FILE_BOOLEAN_KEYS = [
  'overwrite',
  'create_dirs',
  'atomic',
  'recursive',
  'missing_ok',
  'dry_run',
  'include_dirs',
  'follow_symlinks',
] as const;
const FILE_KEYS: readonly string[] = [...FILE_STRING_KEYS, ...FILE_BOOLEAN_KEYS, 'max_bytes'];

const WAIT_STRING_KEYS = [
  'duration',
  'until',
  'path',
  'state',
  'url',
  'method',
  'body',
  'poll_interval',
  'request_timeout',
] as const;
const WAIT_KEYS: readonly string[] = [...WAIT_STRING_KEYS, 'status', 'headers'];

/** The `with` keys each file operation must have. */
const FILE_REQUIRED: Record<(typeof FILE_OPS)[number], readonly string[]> = {
  stat: ['path'],
  read: ['path'],
  write: ['path', 'content'],
  copy: ['source', 'destination'],
  move: ['source', 'destination'],
  delete: ['path'],
  mkdir: ['path'],
  list: ['path'],
};

const WAIT_REQUIRED: Record<(typeof WAIT_OPS)[number], string> = {
  duration: 'duration',
  until: 'until',
  file: 'path',
  http: 'url',
};

const FILE_MODE = /^(0o|0O)?[0-7]{3,4}$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * `action: file.<op>` / `wait.<op>` (`op` given), or legacy `type: file` (`op` null: it is in `command`).
 * Sets `out.action` to `{kind, op, with}` when the step is well formed.
 */
export function readOpAction(
  r: DagReader,
  map: Map<string, Entry>,
  kind: 'file' | 'wait',
  op: string | null,
  withEntry: Entry | undefined,
  out: StepExecution,
): void {
  out.namePrefix = kind;
  const ops: readonly string[] = kind === 'file' ? FILE_OPS : WAIT_OPS;
  const legacy = op === null;
  const commandEntry = map.get('command');
  if (legacy) {
    const at = map.get('action') ?? map.get('type')!;
    if (map.has('action')) {
      r.errorAt(at, `action ${kind} needs an operation: ${ops.map((o) => `${kind}.${o}`).join(', ')}`);
      return;
    }
    const written = r.string(commandEntry, 'an operation name');
    op = written?.trim().toLowerCase() ?? null;
    if (op === null || op === '') {
      if (!commandEntry || isNull(commandEntry.value))
        r.errorAt(at, `type: ${kind} needs the operation in command (${ops.join(', ')})`);
      else if (written !== undefined) r.errorAt(commandEntry, 'must not be empty');
      return;
    }
    if (!ops.includes(op)) {
      r.errorAt(
        commandEntry!,
        `unknown ${kind} operation ${JSON.stringify(written)} (use ${ops.join(', ')})`,
      );
      return;
    }
  }
  refuseShellKeys(r, map, `${kind}.${op}`, legacy);

  const w: Record<string, unknown> = {};
  let fields: Map<string, Entry> = new Map();
  if (withEntry && !isNull(withEntry.value)) {
    const m = r.map(withEntry, kind === 'file' ? FILE_KEYS : WAIT_KEYS, 'with');
    if (!m) return;
    fields = m;
  }
  const at = withEntry ?? map.get('action') ?? map.get('type')!;
  const ok =
    kind === 'file'
      ? readFileWith(r, fields, op as (typeof FILE_OPS)[number], at, w)
      : readWaitWith(r, fields, op as (typeof WAIT_OPS)[number], at, w);
  if (ok) out.action = { kind, op: op!, with: w };
}

/** Checks and copies a file action's `with`; false when something is wrong (already reported). */
function readFileWith(
  r: DagReader,
  fields: Map<string, Entry>,
  op: (typeof FILE_OPS)[number],
  at: Entry,
  w: Record<string, unknown>,
): boolean {
  const before = r.errors.length;
  for (const key of FILE_STRING_KEYS) {
    const e = fields.get(key);
    if (!e) continue;
    // Dagu reads `content` only as a string; the paths and the other words as text of any scalar.
    const text = key === 'content' ? r.string(e, 'a string') : r.scalarText(e, 'a string');
    if (text === undefined) {
      if (isNull(e.value)) r.errorAt(e, 'must not be empty');
      continue;
    }
    w[key] = text;
  }
  for (const key of FILE_BOOLEAN_KEYS) {
    const v = r.boolean(fields.get(key));
    if (v !== undefined) w[key] = v;
  }
  const maxBytes = r.integer(fields.get('max_bytes'), 0);
  if (maxBytes !== undefined) w.max_bytes = maxBytes;

  for (const key of FILE_REQUIRED[op]) {
    const v = w[key];
    // `content` may be empty (an empty file), but it must be there.
    if (v === undefined || (key !== 'content' && typeof v === 'string' && v.trim() === '')) {
      if (fields.get(key) === undefined || v !== undefined) {
        r.errorAt(fields.get(key) ?? at, `file.${op} needs with.${key}`);
      }
    }
  }
  const format = w.format;
  if (typeof format === 'string' && format !== '' && format !== 'raw' && format !== 'json') {
    r.errorAt(fields.get('format')!, `must be raw or json, got ${JSON.stringify(format)}`);
  }
  const mode = w.mode;
  if (typeof mode === 'string' && !mode.includes('$') && !FILE_MODE.test(mode.trim())) {
    r.errorAt(fields.get('mode')!, `must be an octal mode like 0644 or 0o750, got ${JSON.stringify(mode)}`);
  }
  return r.errors.length === before;
}

/** Checks and copies a wait action's `with`; false when something is wrong (already reported). */
function readWaitWith(
  r: DagReader,
  fields: Map<string, Entry>,
  op: (typeof WAIT_OPS)[number],
  at: Entry,
  w: Record<string, unknown>,
): boolean {
  const before = r.errors.length;
  for (const key of WAIT_STRING_KEYS) {
    const e = fields.get(key);
    if (!e) continue;
    const text = r.scalarText(e, 'a string');
    if (text === undefined) {
      if (isNull(e.value)) r.errorAt(e, 'must not be empty');
      continue;
    }
    w[key] = text;
  }
  const statusEntry = fields.get('status');
  if (statusEntry && !isNull(statusEntry.value)) {
    const status = r.integer(statusEntry, 100);
    if (status !== undefined && status > 599) r.errorAt(statusEntry, `must be at most 599, got ${status}`);
    else if (status !== undefined) w.status = status;
  }
  const headersEntry = fields.get('headers');
  if (headersEntry && !isNull(headersEntry.value)) {
    if (!isMap(headersEntry.value)) {
      r.errorAt(headersEntry, `must be a map of header names to values, got ${describe(headersEntry.value)}`);
    } else {
      const headers: Record<string, string> = {};
      for (const h of r.map(headersEntry, null, 'headers')?.values() ?? []) {
        const v = r.scalarText(h, 'a string');
        if (v !== undefined) headers[h.key] = v;
      }
      w.headers = headers;
    }
  }

  const required = WAIT_REQUIRED[op];
  const value = w[required];
  if (value === undefined || (typeof value === 'string' && value.trim() === '')) {
    if (fields.get(required) === undefined || value !== undefined) {
      r.errorAt(fields.get(required) ?? at, `wait.${op} needs with.${required}`);
    }
  }
  const checkDuration = (key: string, needed: boolean) => {
    const text = w[key];
    if (typeof text !== 'string' || text.includes('$') || (!needed && text === undefined)) return;
    const message = goDurationProblem(text);
    if (message) r.errorAt(fields.get(key)!, message);
  };
  checkDuration('poll_interval', false);
  checkDuration('request_timeout', false);
  if (op === 'duration' && typeof value === 'string' && value.trim() !== '') checkDuration('duration', true);
  if (op === 'until' && typeof value === 'string' && value.trim() !== '' && !value.includes('$')) {
    const text = value.trim();
    if (!RFC3339.test(text) || Number.isNaN(Date.parse(text))) {
      r.errorAt(
        fields.get('until')!,
        `must be an RFC 3339 timestamp like 2026-01-31T09:00:00Z, got ${JSON.stringify(value)}`,
      );
    }
  }
  const state = w.state;
  if (state !== undefined && state !== 'exists' && state !== 'missing') {
    r.errorAt(fields.get('state')!, `must be exists or missing, got ${JSON.stringify(state)}`);
  }
  if (op === 'http') {
    if (
      typeof value === 'string' &&
      value.trim() !== '' &&
      !value.includes('$') &&
      !isHttpUrl(value.trim())
    ) {
      r.errorAt(fields.get('url')!, `must be an absolute http or https URL, got ${JSON.stringify(value)}`);
    }
    if (typeof w.method === 'string' && w.method.trim() === '')
      r.errorAt(fields.get('method')!, 'must not be empty');
  }
  return r.errors.length === before;
}

/** Why a text is not a positive Go duration (no days: Go has no `d` unit), or null when it is one. */
function goDurationProblem(text: string): string | null {
  const parsed = /d/.test(text) ? null : parseDuration(text);
  if (parsed === null || !parsed.ok) {
    return `must be a duration like 30s, 5m or 1h30m, got ${JSON.stringify(text)}`;
  }
  if (parsed.ms <= 0) return `must be greater than 0, got ${JSON.stringify(text)}`;
  return null;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.host !== '';
  } catch {
    return false;
  }
}
