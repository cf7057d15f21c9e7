// Writing DAG files for the console's editor: the version of a text (its hash), finding the file of a DAG,
// and the file operations (replace if unchanged, create, rename, delete), each refusing rather than
// overwriting another writer's work.

import { createHash } from 'node:crypto';
import path from 'node:path';
import { assertDagName } from '../core/names';
import { loadAllDags } from './dagCatalog';
import * as fs from './fileCalls';
import { createFileExclusive, errorCode, readTextFile, writeFileAtomic } from './fsutil';

/**
 * The version of a DAG file's text: `sha256:<hex>` of its UTF-8 bytes. A hash rather than mtime and size: an
 * edit that keeps the size within the mtime's resolution (NFS: seconds) still changes it.
 */
export function dagVersion(text: string): string {
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}

/** A DAG file's text as read, with its version. */
export interface DagSource {
  /** Absolute path. */
  file: string;
  text: string;
  version: string;
}

/**
 * The file of DAG `name`: `<dagsDir>/<name>.yaml` or `.yml`, else the file whose `name:` is `name`; null
 * when there is none. Throws InvalidNameError for a name that is not valid (never reads outside dagsDir).
 */
export async function findDagFile(dagsDir: string, name: string): Promise<string | null> {
  assertDagName(name);
  for (const ext of ['.yaml', '.yml']) {
    const file = path.resolve(dagsDir, name + ext);
    const st = await fs.stat(file).catch(() => null);
    if (st?.isFile()) return file;
  }
  const declared = (await loadAllDags(dagsDir)).find(({ result }) => result.ok && result.dag.name === name);
  return declared?.file ?? null;
}

/** The text and version of a file, or null when it does not exist (any more). */
export async function readDagSource(file: string): Promise<DagSource | null> {
  try {
    const text = await readTextFile(file);
    return { file, text, version: dagVersion(text) };
  } catch (err) {
    if (errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR') return null;
    throw err;
  }
}

/** What a guarded write found: written, or the file is not what the writer loaded (with what it is now). */
export type ReplaceDagResult =
  { written: true; version: string } | { written: false; current: DagSource | null };

// Saves of one file from this process go one at a time, so two requests with the same base version cannot
// both pass the check. Writers on other hosts are caught by the check itself, up to the short time between
// the read and the rename (a reader never sees a half-written file either way).
const fileLocks = new Map<string, Promise<unknown>>();

/** Runs `work` after every earlier write of `file` by this process has ended. */
export async function withFileLock<T>(file: string, work: () => Promise<T>): Promise<T> {
  const before = fileLocks.get(file) ?? Promise.resolve();
  const mine = before.then(work, work);
  const settled = mine.catch(() => undefined);
  fileLocks.set(file, settled);
  try {
    return await mine;
  } finally {
    if (fileLocks.get(file) === settled) fileLocks.delete(file);
  }
}

/**
 * Replaces `file` with `text` (temp file + rename) only if its content still has `baseVersion`; otherwise
 * nothing is written and the current content is returned.
 */
export function replaceDagFile(file: string, text: string, baseVersion: string): Promise<ReplaceDagResult> {
  return withFileLock(file, async () => {
    const current = await readDagSource(file);
    if (current === null || current.version !== baseVersion) return { written: false, current };
    const mode = (await fs.stat(file)).mode & 0o777;
    await writeFileAtomic(file, text, { mode });
    return { written: true, version: dagVersion(text) };
  });
}

/** Creates `<dagsDir>/<name>.yaml` with `text`; false when a DAG of that name (any file) exists. */
export async function createDagFile(dagsDir: string, name: string, text: string): Promise<boolean> {
  if ((await findDagFile(dagsDir, name)) !== null) return false;
  await fs.mkdir(path.resolve(dagsDir), true);
  return createFileExclusive(path.resolve(dagsDir, `${name}.yaml`), text);
}

/**
 * Gives `file` the name `<newName><its extension>` in the same directory; false when the name is taken.
 * link + unlink rather than rename: rename would replace a file created meanwhile under the new name.
 */
export async function renameDagFile(
  file: string,
  newName: string,
): Promise<{ renamed: boolean; file: string }> {
  assertDagName(newName);
  const ext = path.extname(file) || '.yaml';
  const target = path.join(path.dirname(file), newName + ext);
  try {
    await fs.link(file, target);
  } catch (err) {
    if (errorCode(err) === 'EEXIST') return { renamed: false, file: target };
    throw err;
  }
  await fs.unlink(file);
  return { renamed: true, file: target };
}

/** Removes a DAG file; false when it was already gone. */
export async function deleteDagFile(file: string): Promise<boolean> {
  try {
    await fs.unlink(file);
    return true;
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return false;
    throw err;
  }
}
