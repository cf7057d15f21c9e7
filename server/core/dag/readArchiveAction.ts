// Reads Dagu's archive actions (`action: archive.create`, `archive.extract`, `archive.list`, and the legacy
// `type: archive` with the operation in `command`): checks `with` as Dagu's config schema does when it loads
// the file (the keys, their types, `source` required, `strip_components` at least 0) and keeps it as written;
// values are resolved when the step runs. A `format` that names one of Dagu's formats this product cannot
// read or write (bz2, xz, zst, lz4, 7z, rar) is refused as unsupported.

import { isScalar } from 'yaml';
import type { DagReader, Entry } from './dagReader';
import { describe, isNull } from './dagReader';
import type { StepExecution } from './readAction';
import { legacyOperation, refuseShellKeys } from './readLegacyOp';
import { readBooleanKeys, readTextKeys } from './readWithTexts';

export const ARCHIVE_OPS = ['create', 'extract', 'list'] as const;
export type ArchiveOp = (typeof ARCHIVE_OPS)[number];

/** The formats this product reads and writes, as `format` names them. */
export const ARCHIVE_FORMATS = ['zip', 'tar', 'tar.gz', 'tgz'] as const;

/** Dagu's other format names: refused here as unsupported. */
const OTHER_DAGU_FORMATS = [
  'tar.bz2',
  'tbz2',
  'tbz',
  'tar.xz',
  'txz',
  'tar.zst',
  'tar.zstd',
  'gz',
  'bz2',
  'xz',
  'zst',
  'zstd',
  'lz4',
  '7z',
  'rar',
];

/** The reason a format Dagu knows is refused here. */
export function unsupportedFormatReason(name: string): string {
  return `archive format ${JSON.stringify(name)} is not supported by this product (supported: zip, tar, tar.gz/tgz)`;
}

/** Whether `name` is one of Dagu's format names that this product does not support. */
export function isOtherDaguFormat(name: string): boolean {
  return OTHER_DAGU_FORMATS.includes(name.trim().toLowerCase());
}

const STRINGS = ['source', 'destination', 'format', 'password'] as const;
const BOOLEANS = [
  'overwrite',
  'preserve_paths',
  'dry_run',
  'verbose',
  'follow_symlinks',
  'verify_integrity',
  'continue_on_error',
] as const;
const LISTS = ['include', 'exclude'] as const;
const KEYS: readonly string[] = [...STRINGS, ...BOOLEANS, ...LISTS, 'compression_level', 'strip_components'];

/** `action: archive.<op>` (`op` given), or legacy `type: archive` (`op` null: it is in `command`). */
export function readArchiveAction(
  r: DagReader,
  map: Map<string, Entry>,
  op: ArchiveOp | null,
  withEntry: Entry | undefined,
  out: StepExecution,
): void {
  out.namePrefix = 'archive';
  const at = map.get('action') ?? map.get('type')!;
  const legacy = op === null;
  if (legacy) {
    const read = legacyOperation(r, map, 'archive', ARCHIVE_OPS);
    if (read === null) return;
    op = read;
  }
  const action = `archive.${op!}`;
  const before = r.errors.length;
  refuseShellKeys(r, map, action, legacy);
  const w: Record<string, unknown> = {};
  if (!withEntry || isNull(withEntry.value)) {
    // Dagu's schema requires `with` (and its `source`) on the action form; a legacy step without one loads
    // there and fails when it runs, as it does here.
    if (!legacy) r.errorAt(withEntry ?? at, `${action} needs with.source`);
  } else {
    const fields = r.map(withEntry, KEYS, 'with');
    if (!fields) return;
    readArchiveWith(r, fields, withEntry, w);
  }
  if (r.errors.length === before) out.action = { kind: 'archive', op: op!, with: w };
}

function readArchiveWith(
  r: DagReader,
  fields: Map<string, Entry>,
  whole: Entry,
  w: Record<string, unknown>,
): void {
  readTextKeys(r, fields, STRINGS, w);
  readBooleanKeys(r, fields, BOOLEANS, w);
  for (const [key, min] of [
    ['compression_level', Number.MIN_SAFE_INTEGER],
    ['strip_components', 0],
  ] as const) {
    const e = fields.get(key);
    if (!e) continue;
    if (isNull(e.value)) r.errorAt(e, 'must be an integer, got nothing');
    const v = r.integer(e, min);
    if (v !== undefined) w[key] = v;
  }
  for (const key of LISTS) {
    const e = fields.get(key);
    if (!e) continue;
    const items = r.list(e, key);
    if (!items) continue;
    const patterns: string[] = [];
    for (const item of items) {
      if (!isScalar(item.value) || typeof item.value.value !== 'string') {
        r.errorAt(item, `must be a string, got ${describe(item.value)}`);
        continue;
      }
      const text = r.string(item);
      if (text !== undefined) patterns.push(text);
    }
    w[key] = patterns;
  }
  if (!fields.has('source')) r.errorAt(whole, 'archive needs with.source');
  const format = w.format;
  if (typeof format === 'string' && isOtherDaguFormat(format))
    r.unsupported(fields.get('format')!.value, fields.get('format')!.field, unsupportedFormatReason(format));
}
