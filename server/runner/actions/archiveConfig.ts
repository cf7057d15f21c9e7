// The `with` of an archive action once its values are resolved, checked as Dagu's executor checks it when the
// step starts: the DAG reader (server/core/dag/readArchiveAction.ts) has refused wrong keys and types, so what
// is checked here is what only a value tells (a required path that resolved empty, a bad glob, a format).

import { isOtherDaguFormat } from '../../core/dag/readArchiveAction';
import { validateGlob } from './fileGlob';

export type ArchiveOp = 'create' | 'extract' | 'list';

/** The formats this product reads and writes. */
export type ArchiveFormat = 'zip' | 'tar' | 'tar.gz';

export interface ArchiveConfig {
  op: ArchiveOp;
  source: string;
  destination: string;
  /** The format `format` names, or null to detect it (from the content, else from the file name). */
  format: ArchiveFormat | null;
  compressionLevel: number;
  password: string;
  overwrite: boolean;
  preservePaths: boolean;
  stripComponents: number;
  include: string[];
  exclude: string[];
  dryRun: boolean;
  followSymlinks: boolean;
  verifyIntegrity: boolean;
  continueOnError: boolean;
}

/** Why an archive step failed, with the exit code Dagu's archive executor gives that kind of failure. */
export class ArchiveError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** Dagu's exit codes by kind of failure. */
export const EXIT = {
  config: 2,
  sourceNotFound: 3,
  destination: 4,
  format: 5,
  extract: 6,
  create: 7,
  permission: 10,
  corrupted: 12,
  stopped: 14,
} as const;

const SUPPORTED = 'zip, tar, tar.gz/tgz';

/** The format a `format` value names; an ArchiveError for one this product lacks or nobody knows. */
export function formatNamed(name: string): ArchiveFormat {
  const n = name.trim().toLowerCase();
  if (n === 'zip' || n === 'tar') return n;
  if (n === 'tar.gz' || n === 'tgz') return 'tar.gz';
  if (isOtherDaguFormat(n)) throw unsupportedFormat(n);
  throw new ArchiveError(
    `archive: unknown format ${JSON.stringify(name)} (supported: ${SUPPORTED})`,
    EXIT.format,
  );
}

export function unsupportedFormat(name: string): ArchiveError {
  return new ArchiveError(
    `archive format ${JSON.stringify(name)} is not supported by this product (supported: ${SUPPORTED})`,
    EXIT.format,
  );
}

/** The format a file name's extension implies (for `create`, and for `extract`/`list` when content says nothing). */
export function formatFromName(path: string): ArchiveFormat | string | null {
  const name = path.toLowerCase();
  if (name.endsWith('.tar.gz') || name.endsWith('.tgz')) return 'tar.gz';
  if (name.endsWith('.tar')) return 'tar';
  if (name.endsWith('.zip')) return 'zip';
  for (const [ext, fmt] of [
    ['.tar.bz2', 'tar.bz2'],
    ['.tbz2', 'tar.bz2'],
    ['.tbz', 'tar.bz2'],
    ['.tar.xz', 'tar.xz'],
    ['.txz', 'tar.xz'],
    ['.tar.zst', 'tar.zst'],
    ['.tar.zstd', 'tar.zst'],
    ['.gz', 'gz'],
    ['.bz2', 'bz2'],
    ['.xz', 'xz'],
    ['.zst', 'zst'],
    ['.zstd', 'zst'],
    ['.lz4', 'lz4'],
    ['.7z', '7z'],
    ['.rar', 'rar'],
  ])
    if (name.endsWith(ext)) return fmt;
  return null;
}

export function decodeArchive(op: ArchiveOp, w: Record<string, unknown>): ArchiveConfig {
  const text = (key: string): string => {
    const v = w[key];
    if (v === undefined || v === null) return '';
    if (typeof v !== 'string') throw configError(`${key} must be a string`);
    return v;
  };
  const flag = (key: string, dflt: boolean): boolean => {
    const v = w[key];
    if (v === undefined || v === null) return dflt;
    if (typeof v !== 'boolean') throw configError(`${key} must be true or false`);
    return v;
  };
  const int = (key: string, dflt: number): number => {
    const v = w[key];
    if (v === undefined || v === null) return dflt;
    if (typeof v !== 'number' || !Number.isInteger(v)) throw configError(`${key} must be an integer`);
    return v;
  };
  const list = (key: string): string[] => {
    const v = w[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v) || v.some((p) => typeof p !== 'string'))
      throw configError(`${key} must be a list of strings`);
    return v as string[];
  };
  const cfg: ArchiveConfig = {
    op,
    source: text('source'),
    destination: text('destination'),
    format: null,
    compressionLevel: int('compression_level', -1),
    password: text('password'),
    overwrite: flag('overwrite', false),
    preservePaths: flag('preserve_paths', true),
    stripComponents: int('strip_components', 0),
    include: list('include'),
    exclude: list('exclude'),
    dryRun: flag('dry_run', false),
    followSymlinks: flag('follow_symlinks', false),
    verifyIntegrity: flag('verify_integrity', false),
    continueOnError: flag('continue_on_error', false),
  };
  // `verbose` is accepted and, as in Dagu, changes nothing.
  flag('verbose', false);
  if (cfg.source === '') throw configError(`source is required for ${op}`);
  if (op === 'create' && cfg.destination === '' && !cfg.dryRun)
    throw configError('destination is required for create');
  if (cfg.stripComponents < 0) throw configError('strip_components must be >= 0');
  if (cfg.password !== '' && op === 'create')
    throw configError('password is only supported for extract/list operations');
  for (const pattern of [...cfg.include, ...cfg.exclude])
    if (pattern !== '' && !validateGlob(pattern.trim()))
      throw configError(`invalid glob pattern ${JSON.stringify(pattern)}`);
  if (cfg.compressionLevel < -1 || cfg.compressionLevel > 9)
    throw configError('compression_level must be -1 (the default) or 0 to 9');
  if (text('format').trim() !== '') cfg.format = formatNamed(text('format'));
  return cfg;
}

function configError(message: string): ArchiveError {
  return new ArchiveError(`archive: configuration error: ${message}`, EXIT.config);
}
