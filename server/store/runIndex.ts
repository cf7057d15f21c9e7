// The run list index: one empty marker file per run in a tree of UTC time buckets
// `<root>/<YYYYMMDD>/<HH>/<MMSS>/<ms13>~<run_id>[~<dag>]`, read newest first without opening status files.
//
// Why this tree: one readdir of 10,000 names costs ~10 ms here, so no directory may hold a whole history.
// Second-sized leaves keep a burst of runs small per directory; an hour holds at most 3,600 leaves; and
// reading sibling subtrees in parallel batches keeps a sparse history (one leaf per run) fast too.

import path from 'node:path';
import { isValidDagName, isValidRunId } from '../core/names';
import * as fs from './fileCalls';
import { ensureDir, errorCode, readdirOrEmpty } from './fsutil';
import { compareKeysDesc, runListKey } from './runList';
import { isoTime } from '../core/isoTime';

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
  const iso = isoTime(Math.min(Math.max(0, createdMs), 253402300799999));
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
  if (parts.length < 2 || parts.length > 3) return null;
  if (!/^\d{13}$/.test(parts[0]) || !isValidRunId(parts[1])) return null;
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
  const marker = path.join(dir, markerName(createdMs, runId, dagName));
  // Runs started within the same second share the bucket; writing first saves a mkdir for all but the first.
  await fs.writeFile(marker, '').catch(async (err: unknown) => {
    if (errorCode(err) !== 'ENOENT') throw err;
    await ensureDir(dir);
    await fs.writeFile(marker, '');
  });
}

/** Removes a run's marker under `root` (a create that is rolled back); a missing marker is not an error. */
export async function removeIndexMarker(
  root: string,
  createdMs: number,
  runId: string,
  dagName: string | null,
): Promise<void> {
  const marker = path.join(root, ...bucketPath(createdMs), markerName(createdMs, runId, dagName));
  await fs.unlink(marker).catch((err: unknown) => {
    if (errorCode(err) !== 'ENOENT') throw err;
  });
}

/** Up to `need` entries under `root` with a key below `before` (all if null), newest first. */
export async function newestIndexEntries(
  root: string,
  need: number,
  before: string | null,
): Promise<RunIndexEntry[]> {
  if (need <= 0) return [];
  return (await collect(root, 0, need, cursorPathOf(before), before)).entries;
}

function cursorPathOf(key: string | null): string[] | null {
  return key === null ? null : bucketPath(Number(key.slice(0, 13)));
}

/** What a subtree gave: its newest entries, and whether it has no others (below the cursor). */
interface Collected {
  entries: RunIndexEntry[];
  exhausted: boolean;
}

async function collect(
  dir: string,
  level: number,
  need: number,
  cursorPath: string[] | null,
  before: string | null,
): Promise<Collected> {
  const names = await readdirOrEmpty(dir);
  if (level === LEAF_LEVEL) {
    const entries: RunIndexEntry[] = [];
    for (const name of names) {
      const entry = parseMarkerName(name);
      if (entry && (before === null || entry.key < before)) entries.push(entry);
    }
    entries.sort((a, b) => compareKeysDesc(a.key, b.key));
    return { entries: entries.slice(0, need), exhausted: entries.length <= need };
  }
  const bound = cursorPath?.[level];
  const children = names
    .filter((name) => BUCKET_PATTERNS[level].test(name) && (bound === undefined || name <= bound))
    .sort()
    .reverse();
  // The two newest subtrees are read one by one: in a dense history they fill the page. Then siblings are
  // read in parallel, as many as the density seen so far says are needed, each asked for a little more than
  // its expected share; one that had more than it was asked for is read on before its older siblings are used.
  const out: RunIndexEntry[] = [];
  let read = 0;
  let batch = 1;
  let ask = need;
  while (read < children.length && out.length < need) {
    const batchNames = children.slice(read, read + batch);
    const results = await Promise.all(
      batchNames.map((name) =>
        collect(path.join(dir, name), level + 1, ask, name === bound ? cursorPath : null, before),
      ),
    );
    for (let k = 0; k < batchNames.length; k++) {
      read++;
      let result = results[k];
      for (;;) {
        out.push(...result.entries.slice(0, need - out.length));
        if (out.length >= need) return { entries: out, exhausted: false };
        if (result.exhausted || result.entries.length === 0) break;
        const last = out[out.length - 1].key;
        result = await collect(
          path.join(dir, batchNames[k]),
          level + 1,
          need - out.length,
          cursorPathOf(last),
          last,
        );
      }
    }
    const missing = need - out.length;
    ask = missing;
    // The newest subtree is usually partial (it is "now"), so density is judged from two subtrees or more.
    if (read < 2) continue;
    const perSubtree = Math.max(1, out.length / read);
    batch = Math.min(MAX_PARALLEL_SUBTREES, Math.ceil(missing / perSubtree));
    if (batch > 1) ask = Math.min(missing, Math.ceil(perSubtree * 2));
  }
  return { entries: out, exhausted: read >= children.length };
}
