// The files of build DAGs as the materialization store and the runner see them: a content snapshot that is
// known to be of one version of the file, the canonical form of a declared path, and the key two paths are
// compared and locked by. Build DAGs run only where their files are, so all of this is about the local host.

import path from 'node:path';
import type { Stats } from 'node:fs';
import type { FileSnapshot } from '../core/build/types';
import * as fs from './fileCalls';
import { errorCode, errorMessage } from './fsutil';
import { fsPromises } from './fsPromises';
import { nodeCrypto } from './nodeCrypto';

/** A file that keeps changing is reported rather than hashed forever. */
const SNAPSHOT_ATTEMPTS = 3;
const READ_CHUNK = 1 << 20;

/**
 * The size and sha256 of the regular file at `file`. The file is stat'ed before and after hashing, and the
 * hash is kept only if both agree (same inode, size and mtime): a writer that was busy with it meanwhile
 * would otherwise leave a digest of a version that never existed. A missing file rejects with its ENOENT.
 */
export async function snapshotFile(name: string, file: string): Promise<FileSnapshot> {
  for (let attempt = 0; attempt < SNAPSHOT_ATTEMPTS; attempt++) {
    const before = await fsPromises().lstat(file);
    if (!before.isFile()) throw new Error(`${file} is not a regular non-symlink file`);
    const digest = await hashFile(file);
    const after = await fsPromises().lstat(file);
    if (sameVersion(before, after)) return { name, path: file, size: after.size, digest };
  }
  throw new Error(`file changed while hashing: ${file}`);
}

function sameVersion(a: Stats, b: Stats): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;
}

/** `sha256:<hex>` of a file's content, read in chunks so that a large output is never held in memory. */
async function hashFile(file: string): Promise<string> {
  const hash = nodeCrypto().createHash('sha256');
  const fd = await fs.open(file, 'r');
  try {
    const buffer = Buffer.alloc(READ_CHUNK);
    for (let position = 0; ;) {
      const read = await fs.readAt(fd, buffer, position);
      if (read === 0) break;
      hash.update(buffer.subarray(0, read));
      position += read;
    }
  } finally {
    await fs.close(fd).catch(() => {});
  }
  return `sha256:${hash.digest('hex')}`;
}

/**
 * The absolute, canonical form of a declared build path. `base` is the directory a relative path is read
 * from; null when the DAG has none that stays the same from run to run, in which case a relative path would
 * name a different file each time and is refused.
 *
 * An output's directory must exist (the step writes into it) and is resolved; the output itself must not be
 * a symlink or anything but a regular file, since the commit replaces it by rename and would otherwise
 * replace the link rather than the file it points to. An input may not exist yet: its longest existing
 * ancestor is resolved and the rest appended.
 */
export async function resolveBuildPath(raw: string, base: string | null, output: boolean): Promise<string> {
  if (raw.trim() === '') throw new Error('build path is empty');
  let file = raw;
  if (!path.isAbsolute(file)) {
    if (base === null || base === '')
      throw new Error(`relative build path ${JSON.stringify(raw)} has no stable working directory`);
    file = path.join(base, file);
  }
  file = path.resolve(file);
  if (!output) return resolveExistingAncestors(file);

  let parent: string;
  try {
    parent = await fsPromises().realpath(path.dirname(file));
  } catch (err) {
    throw new Error(`resolve output parent for ${file}: ${errorMessage(err)}`, { cause: err });
  }
  file = path.join(parent, path.basename(file));
  let st: Stats;
  try {
    st = await fsPromises().lstat(file);
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return file;
    throw err;
  }
  if (st.isSymbolicLink()) throw new Error(`output path must not be a symlink: ${file}`);
  if (!st.isFile()) throw new Error(`output path must be a regular file: ${file}`);
  return file;
}

/** `file` (absolute) with its longest existing ancestor resolved by realpath and the missing rest appended. */
async function resolveExistingAncestors(file: string): Promise<string> {
  const missing: string[] = [];
  for (let current = file; ;) {
    try {
      const resolved = await fsPromises().realpath(current);
      return path.join(resolved, ...missing.reverse());
    } catch (err) {
      const parent = path.dirname(current);
      if (errorCode(err) !== 'ENOENT' || parent === current) throw err;
      missing.push(path.basename(current));
      current = parent;
    }
  }
}

/**
 * The key two build paths are compared and locked by: the absolute path with its existing ancestors
 * resolved, so that two spellings of one file (through a symlinked directory, with `..`) meet. On a file
 * system that ignores case the key is lower-cased, since `Out.txt` and `out.txt` are then one file. A path
 * that cannot be resolved (a permission error on an ancestor) keeps its cleaned spelling: the key must exist
 * for every path, and the later file operations report the real problem.
 */
export async function buildPathKey(file: string): Promise<string> {
  const absolute = path.resolve(file);
  const resolved = await resolveExistingAncestors(absolute).catch(() => absolute);
  return (await ignoresCase(path.dirname(resolved))) ? resolved.toLowerCase() : resolved;
}

/**
 * Whether the file system holding `dir` ignores case. Probed on the nearest existing directory whose name
 * has an ASCII letter: the same name with that letter's case flipped either names the same directory (case
 * ignored), nothing (case kept), or another directory (case kept). Two lstat calls in the common case, so no
 * cache. When nothing can be probed (only `/` exists), the platform's usual file system decides.
 */
async function ignoresCase(dir: string): Promise<boolean> {
  for (let current = dir; path.dirname(current) !== current; current = path.dirname(current)) {
    const name = path.basename(current);
    const flipped = flipFirstLetter(name);
    if (flipped === null) continue;
    let original: Stats;
    try {
      original = await fsPromises().lstat(current);
    } catch {
      continue; // not there (yet): ask its parent
    }
    try {
      const other = await fsPromises().lstat(path.join(path.dirname(current), flipped));
      return other.dev === original.dev && other.ino === original.ino;
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return false;
    }
  }
  return process.platform === 'darwin' || process.platform === 'win32';
}

/** `name` with its first ASCII letter's case flipped; null when it has none. */
function flipFirstLetter(name: string): string | null {
  const at = name.search(/[A-Za-z]/);
  if (at < 0) return null;
  const ch = name[at];
  const flipped = ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase();
  return name.slice(0, at) + flipped + name.slice(at + 1);
}
