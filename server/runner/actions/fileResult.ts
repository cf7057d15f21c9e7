// What a `file.*` action prints on stdout: one line of compact JSON shaped like Dagu's result struct
// (fields in its order; empty text, zero numbers and false flags left out, except the yes/no answers
// `exists`, `deleted`, `created`, `moved` and `copied`, which are printed even when false).

import type { BigIntStats } from 'node:fs';
import { goFileMode, goFileType, goTime, type GoFileType } from './goFileInfo';
import { goJson, GoStruct } from './goJson';

/** One entry of `file.list`; every field is always printed. */
export interface FileEntry {
  path: string;
  type: GoFileType;
  size: number;
  mode: string;
  modTime: string;
  isDir: boolean;
  isRegular: boolean;
  isSymlink: boolean;
}

/** The result of one operation. */
export interface FileOpResult {
  operation: string;
  path?: string;
  source?: string;
  destination?: string;
  exists?: boolean;
  type?: GoFileType;
  size?: number;
  mode?: string;
  modTime?: string;
  files?: number;
  directories?: number;
  bytes?: number;
  dryRun?: boolean;
  deleted?: boolean;
  created?: boolean;
  moved?: boolean;
  copied?: boolean;
  content?: string;
  entries?: FileEntry[];
}

/** Printed even when false (Go pointers); the other fields are `omitempty`. */
const ALWAYS_PRINTED = new Set(['exists', 'deleted', 'created', 'moved', 'copied']);

const FIELD_ORDER: Array<keyof FileOpResult> = [
  'operation',
  'path',
  'source',
  'destination',
  'exists',
  'type',
  'size',
  'mode',
  'modTime',
  'files',
  'directories',
  'bytes',
  'dryRun',
  'deleted',
  'created',
  'moved',
  'copied',
  'content',
  'entries',
];

/** The stdout line for a result, newline included. */
export function fileResultLine(result: FileOpResult): string {
  const fields: Array<[string, unknown]> = [];
  for (const key of FIELD_ORDER) {
    const value = result[key];
    if (value === undefined) continue;
    if (!ALWAYS_PRINTED.has(key) && isEmpty(value)) continue;
    fields.push([key, key === 'entries' ? (value as FileEntry[]).map(entryStruct) : value]);
  }
  return `${goJson(new GoStruct(fields))}\n`;
}

function isEmpty(value: unknown): boolean {
  return value === '' || value === 0 || value === false || (Array.isArray(value) && value.length === 0);
}

/** A listed entry as Go's encoder writes Dagu's struct (field order kept). */
export function entryStruct(e: FileEntry): GoStruct {
  return new GoStruct([
    ['path', e.path],
    ['type', e.type],
    ['size', e.size],
    ['mode', e.mode],
    ['modTime', e.modTime],
    ['isDir', e.isDir],
    ['isRegular', e.isRegular],
    ['isSymlink', e.isSymlink],
  ]);
}

/** The `type`, `size`, `mode` and `modTime` fields for a stat result. */
export function infoFields(stats: BigIntStats): Pick<FileOpResult, 'type' | 'size' | 'mode' | 'modTime'> {
  const mode = Number(stats.mode);
  return {
    type: goFileType(mode),
    size: Number(stats.size),
    mode: goFileMode(mode),
    modTime: goTime(stats.mtimeNs),
  };
}

/** A `file.list` entry for a path relative to the listed directory. */
export function fileEntry(relPath: string, stats: BigIntStats): FileEntry {
  const mode = Number(stats.mode);
  const type = goFileType(mode);
  return {
    path: relPath,
    type,
    size: Number(stats.size),
    mode: goFileMode(mode),
    modTime: goTime(stats.mtimeNs),
    isDir: type === 'directory',
    isRegular: type === 'file',
    isSymlink: type === 'symlink',
  };
}
