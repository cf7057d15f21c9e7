// "Nothing lost or half-written", made checkable: a snapshot of every file and directory under a tree (each
// file by content hash), compared before and after a hostile input, and a finder for left-over temp files.

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** Relative path → `dir` or the sha256 of the file's content. */
export type TreeSnapshot = Record<string, string>;

/** Every entry under `root` (which may not exist yet: then the snapshot is empty). */
export function snapshotTree(root: string): TreeSnapshot {
  const out: TreeSnapshot = {};
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names.sort()) {
      const full = path.join(dir, name);
      const rel = path.relative(root, full);
      if (statSync(full).isDirectory()) {
        out[rel] = 'dir';
        walk(full);
      } else {
        out[rel] = createHash('sha256').update(readFileSync(full)).digest('hex');
      }
    }
  };
  walk(root);
  return out;
}

/** Temp files of the atomic writers (`.<name>.tmp-<pid>-<rand>`) left under `root`: a half-written file. */
export function tempFilesUnder(root: string): string[] {
  return Object.keys(snapshotTree(root)).filter((rel) => /(^|\/)\.[^/]*\.tmp-/.test(rel));
}
