// The run list index: one empty marker file per run in a tree of UTC time buckets
// `<root>/<YYYYMMDD>/<HH>/<MMSS>/<ms13>~<run_id>[~<dag>]`, read newest first without opening status files.
//
// Why this tree: one readdir of 10,000 names costs ~10 ms here, so no directory may hold a whole history.
// Second-sized leaves keep a burst of runs small per directory; an hour holds at most 3,600 leaves; and
// reading sibling subtrees in parallel batches keeps a sparse history (one leaf per run) fast too.

import { promises as fs } from 'node:fs';
import path from 'node:path';
import { isValidDagName, isValidRunId } from '../core/names';
import { ensureDir, readdirOrEmpty } from './fsutil';
import { compareKeysDesc, runListKey } from './runList';

/** One marker in the index. `dagName` is null in per-DAG indexes, whose markers omit it. */
export interface RunIndexEntry {
  key: string;
  createdMs: number;
  runId: string;
  dagName: string | null;
}

const BUCKET_PATTERNS = [/^\d{8}$/, /^\d{2}$/, /^\d{4}$/];
const LEAF_LEVEL = BUCKET_PATTERNS.length;
const MAX_PARALLEL_SUBTREES = 16;

/** UTC bucket directories of a creation time: `[YYYYMMDD, HH, MMSS]`. */
export function bucketPath(createdMs: number): string[] {
  const iso = new Date(Math.min(Math.max(0, createdMs), 253402300799999)).toISOString();
  return [
    iso.slice(0, 4) + iso.slice(5, 7) + iso.slice(8, 10),
    iso.slice(11, 13),
    iso.slice(14, 16) + iso.slice(17, 19),
  ];
}

export function markerName(createdMs: number, runId: string, dagName: string | null): string {
  return dagName === null ? runListKey(createdMs, runId) : `${runListKey(createdMs, runId)}~${dagName}`;
}

export function parseMarkerName(name: string): RunIndexEntry | null {
  const parts = name.split('~');
  if (parts.length < 2 || parts.length > 3 || !/^\d{13}$/.test(parts[0]) || !isValidRunId(parts[1]))
    return null;
  const dagName = parts.length === 3 ? parts[2] : null;
  if (dagName !== null && !isValidDagName(dagName)) return null;
  return { key: `${parts[0]}~${parts[1]}`, createdMs: Number(parts[0]), runId: parts[1], dagName };
}

/** Adds a run's marker under `root`. Idempotent: writing it twice leaves one marker. */
export async function addIndexMarker(
  root: string,
  createdMs: number,
  runId: string,
  dagName: string | null,
): Promise<void> {
  const dir = path.join(root, ...bucketPath(createdMs));
  await ensureDir(dir);
  await fs.writeFile(path.join(dir, markerName(createdMs, runId, dagName)), '');
}

/** Up to `need` entries under `root` with a key below `before` (all if null), newest first. */
export async function newestIndexEntries(
  root: string,
  need: number,
  before: string | null,
): Promise<RunIndexEntry[]> {
  if (need <= 0) return [];
  const cursorPath = before === null ? null : bucketPath(Number(before.slice(0, 13)));
  return collect(root, 0, need, cursorPath, before);
}

async function collect(
  dir: string,
  level: number,
  need: number,
  cursorPath: string[] | null,
  before: string | null,
): Promise<RunIndexEntry[]> {
  const names = await readdirOrEmpty(dir);
  if (level === LEAF_LEVEL) {
    const entries: RunIndexEntry[] = [];
    for (const name of names) {
      const entry = parseMarkerName(name);
      if (entry && (before === null || entry.key < before)) entries.push(entry);
    }
    return entries.sort((a, b) => compareKeysDesc(a.key, b.key)).slice(0, need);
  }
  const bound = cursorPath?.[level];
  const children = names
    .filter((name) => BUCKET_PATTERNS[level].test(name) && (bound === undefined || name <= bound))
    .sort()
    .reverse();
  const out: RunIndexEntry[] = [];
  // Read the newest subtree alone (in a dense history it fills the page), then as many siblings at once as
  // the entries seen so far per subtree suggest are still needed (a sparse history has one run per leaf).
  let i = 0;
  let batch = 1;
  while (i < children.length && out.length < need) {
    const missing = need - out.length;
    const results = await Promise.all(
      children
        .slice(i, i + batch)
        .map((name) =>
          collect(path.join(dir, name), level + 1, missing, name === bound ? cursorPath : null, before),
        ),
    );
    for (const entries of results) out.push(...entries.slice(0, need - out.length));
    i += batch;
    const perSubtree = Math.max(1, out.length / i);
    batch = Math.min(MAX_PARALLEL_SUBTREES, Math.max(1, Math.ceil((need - out.length) / perSubtree)));
  }
  return out;
}
