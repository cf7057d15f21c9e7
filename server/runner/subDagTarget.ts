// Where a call step's target lives: a later document of the calling file (by name), else a file of the DAGs
// directory (by relative path or by file stem, subfolders included) or beside the calling file. A local
// document has no file of its own; its child run gets a temp file holding it first and its sibling local
// documents after it, so that it can call them in turn.

import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadYaml } from '../config/loadYaml';
import { createRequire } from 'node:module';
import type * as FsPromises from 'node:fs/promises';

/**
 * node:fs/promises, loaded when a sub-DAG is looked up: at module load it would bring Node's promise file API
 * (and readline and perf_hooks with it) into every run process, sub-DAGs or not.
 */
// A plain require, not import(): the bundled CLI runs as a vm script, where a dynamic import has no loader.
const fsp = async (): Promise<typeof FsPromises> =>
  typeof require === 'function'
    ? // eslint-disable-next-line @typescript-eslint/no-require-imports -- bundled, loaded lazily
      (require('node:fs/promises') as typeof FsPromises)
    : (createRequire(import.meta.url)('node:fs/promises') as typeof FsPromises);

const EXTENSIONS = ['.yaml', '.yml'];
const HAS_EXTENSION = /\.ya?ml$/i;
/** How deep the DAGs directory is searched for a file stem; deeper trees are not DAG folders. */
const MAX_SEARCH_DEPTH = 6;

/** The first existing DAG file the target names, or null (see the module comment for the order). */
export async function findDagFile(
  target: string,
  where: { dagsDir: string; callerFile: string | null },
): Promise<string | null> {
  const withExt = (p: string) => (HAS_EXTENSION.test(p) ? [p] : [p, ...EXTENSIONS.map((e) => p + e)]);
  const bases = path.isAbsolute(target)
    ? [target]
    : [where.dagsDir, ...(where.callerFile ? [path.dirname(where.callerFile)] : [])].map((d) =>
        path.resolve(d, target),
      );
  for (const base of bases) {
    for (const file of withExt(base)) if (await isFile(file)) return file;
  }
  if (path.isAbsolute(target) || target.includes('/')) return null;
  const stem = target.replace(HAS_EXTENSION, '');
  return searchStem(path.resolve(where.dagsDir), stem, 0);
}

async function searchStem(dir: string, stem: string, depth: number): Promise<string | null> {
  if (depth > MAX_SEARCH_DEPTH) return null;
  const entries = await (await fsp()).readdir(dir, { withFileTypes: true }).catch(() => []);
  const sorted = entries.filter((e) => !e.name.startsWith('.')).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const e of sorted) {
    if (e.isFile() && HAS_EXTENSION.test(e.name) && e.name.replace(HAS_EXTENSION, '') === stem) {
      return path.join(dir, e.name);
    }
  }
  for (const e of sorted) {
    if (!e.isDirectory()) continue;
    const found = await searchStem(path.join(dir, e.name), stem, depth + 1);
    if (found) return found;
  }
  return null;
}

async function isFile(file: string): Promise<boolean> {
  const s = await (await fsp()).stat(file).catch(() => null);
  return s?.isFile() ?? false;
}

/**
 * The text of a temp DAG file for the local document `name` of `file`: that document first, then the other
 * local documents (the entrypoint is left out, as a local document cannot call its caller's entrypoint by name).
 * Null when the file has no later document of that name.
 */
export async function localDocumentText(file: string, name: string): Promise<string | null> {
  const source = await (await fsp()).readFile(file, 'utf8');
  const docs = loadYaml().parseAllDocuments(source);
  if (!Array.isArray(docs)) return null;
  const texts: Array<{ name: unknown; text: string }> = [];
  for (const doc of docs) {
    if (doc.contents === null) continue;
    const [start, , end] = doc.range;
    // A later document's range begins at its `---` marker, which the join below writes again.
    const text = source
      .slice(start, end)
      .replace(/^---[ \t]*(\r?\n|$)/, '')
      .replace(/^([ \t]*\r?\n)+/, '')
      .replace(/\s+$/, '');
    texts.push({ name: doc.get('name'), text });
  }
  const locals = texts.slice(1);
  const chosen = locals.find((d) => d.name === name);
  if (!chosen) return null;
  return [chosen, ...locals.filter((d) => d !== chosen)].map((d) => `${d.text}\n`).join('---\n');
}

/** A temp file for a local document, shared by the children of one step; removed when the last one ends. */
export class LocalDocumentFiles {
  private readonly files = new Map<string, { file: Promise<string>; users: number }>();

  /** The temp file of document `name` of `callerFile`; call `release` with the same key when done. */
  async acquire(callerFile: string, name: string): Promise<{ file: string; key: string }> {
    const key = `${callerFile}\n${name}`;
    let entry = this.files.get(key);
    if (!entry) {
      entry = { file: writeLocalDagCopy(callerFile, name), users: 0 };
      this.files.set(key, entry);
    }
    entry.users++;
    try {
      return { file: await entry.file, key };
    } catch (err) {
      this.release(key);
      throw err;
    }
  }

  release(key: string): void {
    const entry = this.files.get(key);
    if (!entry) return;
    entry.users--;
    if (entry.users > 0) return;
    this.files.delete(key);
    entry.file.then(
      async (file) => (await fsp()).rm(path.dirname(file), { recursive: true, force: true }),
      () => undefined,
    );
  }
}

/**
 * Writes the local document `name` of `callerFile` (see localDocumentText) to a file of its own in a new temp
 * directory and returns its path; the caller removes that directory.
 */
export async function writeLocalDagCopy(callerFile: string, name: string): Promise<string> {
  // Names of DAGs are plain words; anything else must not become part of a path.
  if (!/^[A-Za-z0-9_.-]+$/.test(name) || name.startsWith('.')) {
    throw new Error(`local DAG name ${JSON.stringify(name)} is not a valid DAG name`);
  }
  const text = await localDocumentText(callerFile, name);
  if (text === null) throw new Error(`${callerFile} has no local DAG named ${JSON.stringify(name)}`);
  const dir = await (await fsp()).mkdtemp(path.join(tmpdir(), 'dagu-local-dag-'));
  const file = path.join(dir, `${name}.yaml`);
  await (await fsp()).writeFile(file, text);
  return file;
}
