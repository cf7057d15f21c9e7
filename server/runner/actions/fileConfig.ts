// Reads and checks the `with` map of Dagu's `file.*` actions (stat, read, write, copy, move, delete, mkdir,
// list): the keys upstream's `fileActionConfig` schema allows, weakly typed as Dagu decodes them, with its
// defaults (`atomic` on, everything else off). Pure: no I/O, so `dagu validate` can call it as well.

import { compileGlob, validateGlob } from './fileGlob';
import { readBool, readInt, readString, WithFieldError } from './withValues';

export const FILE_OPS = ['stat', 'read', 'write', 'copy', 'move', 'delete', 'mkdir', 'list'] as const;
export type FileOp = (typeof FILE_OPS)[number];

/** A `file.*` step that cannot run as written; the message names the field at fault. */
export class FileConfigError extends Error {
  constructor(message: string) {
    super(`file: ${message}`);
    this.name = 'FileConfigError';
  }
}

/** The decoded `with` map of a `file.*` action. */
export interface FileConfig {
  op: FileOp;
  path: string;
  source: string;
  destination: string;
  /** null when `content` is not given (only `write` needs it). */
  content: string | null;
  /** Permission bits from `mode`, or null for the operation's default (0600 files, 0750 directories). */
  mode: number | null;
  format: 'raw' | 'json';
  pattern: string;
  overwrite: boolean;
  createDirs: boolean;
  atomic: boolean;
  recursive: boolean;
  missingOk: boolean;
  dryRun: boolean;
  includeDirs: boolean;
  followSymlinks: boolean;
  /** 0 = no limit. */
  maxBytes: number;
}

const KEYS = [
  'path',
  'source',
  'destination',
  'content',
  'mode',
  'format',
  'pattern',
  'overwrite',
  'create_dirs',
  'atomic',
  'recursive',
  'missing_ok',
  'dry_run',
  'include_dirs',
  'follow_symlinks',
  'max_bytes',
];

/** Decodes and checks `with` for `file.<op>`; throws FileConfigError. */
export function readFileConfig(op: string, withMap: Record<string, unknown>): FileConfig {
  const operation = op.trim().toLowerCase();
  if (!(FILE_OPS as readonly string[]).includes(operation)) {
    throw new FileConfigError(`unsupported operation '${op}' (use one of ${FILE_OPS.join(', ')})`);
  }
  const unknown = Object.keys(withMap).filter((k) => !KEYS.includes(k));
  if (unknown.length > 0) {
    throw new FileConfigError(
      `with.${unknown.sort()[0]} is not a setting of file actions (known: ${KEYS.join(', ')})`,
    );
  }
  let cfg: FileConfig;
  try {
    cfg = decode(operation as FileOp, withMap);
  } catch (e) {
    if (e instanceof WithFieldError) throw new FileConfigError(e.message);
    throw e;
  }
  checkRequired(cfg);
  return cfg;
}

function decode(op: FileOp, w: Record<string, unknown>): FileConfig {
  const content = w.content;
  if ('content' in w && typeof content !== 'string') {
    throw new WithFieldError('content', content, 'text (quote it in YAML)');
  }
  const format = readString(w, 'format');
  if (format !== '' && format !== 'raw' && format !== 'json') {
    throw new WithFieldError('format', format, "'raw' or 'json'");
  }
  const maxBytes = readInt(w, 'max_bytes');
  if (maxBytes < 0) throw new WithFieldError('max_bytes', w.max_bytes, 'a size of 0 or more bytes');
  const pattern = readString(w, 'pattern');
  if (pattern !== '' && !validateGlob(pattern)) {
    throw new WithFieldError('pattern', pattern, 'a valid glob pattern (check its [ ] and { } pairs)');
  }
  if (pattern !== '') {
    try {
      compileGlob(pattern);
    } catch (e) {
      throw new WithFieldError('pattern', pattern, `a usable glob pattern: ${(e as Error).message}`);
    }
  }
  const mode = readString(w, 'mode');
  return {
    op,
    path: readString(w, 'path'),
    source: readString(w, 'source'),
    destination: readString(w, 'destination'),
    content: typeof content === 'string' ? content : null,
    mode: mode === '' ? null : parseMode(mode),
    format: format === 'json' ? 'json' : 'raw',
    pattern,
    overwrite: readBool(w, 'overwrite'),
    createDirs: readBool(w, 'create_dirs'),
    atomic: w.atomic === undefined || w.atomic === null ? true : readBool(w, 'atomic'),
    recursive: readBool(w, 'recursive'),
    missingOk: readBool(w, 'missing_ok'),
    dryRun: readBool(w, 'dry_run'),
    includeDirs: readBool(w, 'include_dirs'),
    followSymlinks: readBool(w, 'follow_symlinks'),
    maxBytes,
  };
}

/** `0640`, `640` or `0o640`: octal permission bits (bits above 0777 are not applied, as in Go). */
function parseMode(raw: string): number {
  const digits = raw.trim().replace(/^0[oO]/, '');
  if (digits === '') throw new WithFieldError('mode', raw, 'an octal mode such as 0644');
  if (!/^[0-7]+$/.test(digits) || Number.parseInt(digits, 8) > 0xffffffff) {
    throw new WithFieldError('mode', raw, 'an octal mode such as 0644');
  }
  return Number.parseInt(digits, 8) & 0o777;
}

function checkRequired(cfg: FileConfig): void {
  switch (cfg.op) {
    case 'copy':
    case 'move':
      if (cfg.source.trim() === '') throw new FileConfigError(`with.source is required for ${cfg.op}`);
      if (cfg.destination.trim() === '')
        throw new FileConfigError(`with.destination is required for ${cfg.op}`);
      return;
    case 'write':
      if (cfg.path.trim() === '') throw new FileConfigError('with.path is required for write');
      if (cfg.content === null) throw new FileConfigError('with.content is required for write');
      return;
    default:
      if (cfg.path.trim() === '') throw new FileConfigError(`with.path is required for ${cfg.op}`);
  }
}
