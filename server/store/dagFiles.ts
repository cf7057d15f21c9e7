// DAG files for the file form of the DAG definitions (fileDagDefinitions.ts): the version of a text (its
// hash), finding the file of a DAG, and the file operations (rename, delete) that refuse rather than
// overwrite another writer's work.

import path from 'node:path';
import { assertDagName } from '../core/names';
import { loadAllDags } from './dagCatalog';
import * as fs from './fileCalls';
import { nodeCrypto } from './nodeCrypto';
import { errorCode } from './fsutil';

/**
 * The version of a DAG file's text: `sha256:<hex>` of its UTF-8 bytes. A hash rather than mtime and size: an
 * edit that keeps the size within the mtime's resolution (NFS: seconds) still changes it.
 */
export function dagVersion(text: string): string {
  return `sha256:${nodeCrypto().createHash('sha256').update(text, 'utf8').digest('hex')}`;
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

// Writes of one DAG from this process go one at a time, so two requests with the same base version cannot
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
