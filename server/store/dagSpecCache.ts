// Validated DAG files, kept for the run processes: `dagu start` of a DAG whose file has not changed takes its
// DagSpec from here instead of parsing and checking the YAML again, which with loading the YAML parser is most
// of the work a run process does before its first step (and, for a DAG with a schedule, also the cron parser).
//
//   data/cache/dags/<stem>-<path hash>.json   {format, build, node, file, text, dag, warnings}
//
// An entry is used only when it was written by this very build of dagu on this Node version for this file
// path with exactly this text, so it can never stand for anything but what parsing the file gives now. Only
// DAGs that parse are kept (errors are always reported from the file itself), and only a result that
// survives JSON unchanged. Anything else (a missing, unreadable, corrupt or foreign entry) is a miss: the file
// is parsed as if there were no cache, and a good result replaces the entry. Entries are written atomically
// (temp + rename, without fsync: losing one only costs a parse) and readable by the owner alone.

import { isDeepStrictEqual } from 'node:util';
import type { DagSpec } from '../core/types';
import { ensureDir, errorCode, readTextFile, writeFileAtomic } from './fsutil';

/** A DAG file's parse that succeeded. */
export interface CachedDag {
  dag: DagSpec;
  warnings: string[];
}

export interface DagSpecCache {
  /** The parse of `file` whose content is `text`, if one was kept; null otherwise. Never throws. */
  get(file: string, text: string): Promise<CachedDag | null>;
  /** Keeps the parse of `file` with content `text`. Best effort: never throws. */
  put(file: string, text: string, parsed: CachedDag): Promise<void>;
}

interface Entry extends CachedDag {
  format: number;
  build: string;
  node: string;
  file: string;
  text: string;
}

const FORMAT = 1;

export interface FileDagSpecCacheOptions {
  /** `DAGU_HOME/data/cache/dags`. */
  dir: string;
  /** Identifies the build of dagu (and so of its DAG parser) that writes and may read entries. */
  build: string;
}

export class FileDagSpecCache implements DagSpecCache {
  constructor(private readonly opts: FileDagSpecCacheOptions) {}

  async get(file: string, text: string): Promise<CachedDag | null> {
    let entry: Partial<Entry>;
    try {
      entry = JSON.parse(await readTextFile(this.entryFile(file))) as Partial<Entry>;
    } catch {
      return null;
    }
    if (
      entry === null ||
      typeof entry !== 'object' ||
      entry.format !== FORMAT ||
      entry.build !== this.opts.build ||
      entry.node !== process.version ||
      entry.file !== file ||
      entry.text !== text ||
      typeof entry.dag !== 'object' ||
      entry.dag === null ||
      !Array.isArray(entry.warnings)
    )
      return null;
    return { dag: entry.dag, warnings: entry.warnings };
  }

  async put(file: string, text: string, parsed: CachedDag): Promise<void> {
    const entry: Entry = {
      format: FORMAT,
      build: this.opts.build,
      node: process.version,
      file,
      text,
      dag: parsed.dag,
      warnings: parsed.warnings,
    };
    const json = JSON.stringify(entry);
    const back = JSON.parse(json) as Entry;
    if (!isDeepStrictEqual(back.dag, parsed.dag) || !isDeepStrictEqual(back.warnings, parsed.warnings))
      return;
    const target = this.entryFile(file);
    try {
      await writeFileAtomic(target, json, { durable: false, mode: 0o600 });
    } catch (err) {
      if (errorCode(err) !== 'ENOENT') return;
      try {
        await ensureDir(this.opts.dir);
        await writeFileAtomic(target, json, { durable: false, mode: 0o600 });
      } catch {
        /* no cache this time */
      }
    }
  }

  /** One entry per DAG file path: its stem (made safe) and a hash of the whole path. */
  private entryFile(file: string): string {
    const stem = file
      .slice(file.lastIndexOf('/') + 1)
      .replace(/\.ya?ml$/i, '')
      .replace(/[^A-Za-z0-9_-]/g, '_')
      .slice(0, 64);
    return `${this.opts.dir}/${stem}-${fnv1a(file)}.json`;
  }
}

/** 32-bit FNV-1a of the UTF-16 code units, as 8 hex digits: tells apart files with the same stem. */
function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}
