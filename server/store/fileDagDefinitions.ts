// DAG definitions as the files of a DAGs directory: `<dir>/<name>.yaml` (or `.yml`), the storage of the file
// backend. The expected-version check reads the file and replaces it under a per-file lock of this process;
// a writer on another host sharing the directory is caught by the check too, up to the moment between its
// read and its rename (dagFiles.ts). Files whose stem is not a DAG name, and files larger than a DAG file
// may be, are not DAGs here: the loader refuses them too.

import path from 'node:path';
import { assertDagName, isValidDagName } from '../core/names';
import { MAX_DAG_FILE_BYTES } from './dagCatalog';
import {
  assertDagWrite,
  newDagFileName,
  type DagDefinition,
  type DagDefinitions,
  type DagEntry,
  type DagWriteOptions,
  refuseWrite,
  type DeleteDagResult,
  type PutDagResult,
  type RenameDagResult,
} from './dagDefinitions';
import { dagVersion, deleteDagFile, renameDagFile, withFileLock } from './dagFiles';
import * as fs from './fileCalls';
import { nodeCrypto } from './nodeCrypto';
import { createFileExclusive, errorCode, readTextFile, readdirOrEmpty, writeFileAtomic } from './fsutil';
import { FILE_READ_CONCURRENCY, mapConcurrently } from '../core/concurrency';

const DAG_FILE = /^(.+)\.(yaml|yml)$/;

/** A DAG file found in the directory. */
interface Found {
  name: string;
  file: string;
  stat: { size: number; mtimeMs: number; ino: number; mode: number };
}

export class FileDagDefinitions implements DagDefinitions {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = path.resolve(dir);
  }

  async list(): Promise<DagEntry[]> {
    const found = await this.scan();
    const read = await mapConcurrently(found, FILE_READ_CONCURRENCY, (f) => this.read(f));
    return read.filter((d): d is DagDefinition => d !== null).map(({ yaml: _yaml, ...entry }) => entry);
  }

  async get(name: string): Promise<DagDefinition | null> {
    assertDagName(name);
    const found = await this.locate(name);
    return found ? this.read(found) : null;
  }

  async getMany(names: readonly string[]): Promise<DagDefinition[]> {
    for (const n of names) assertDagName(n);
    const got = await mapConcurrently([...new Set(names)].sort(), FILE_READ_CONCURRENCY, (n) => this.get(n));
    return got.filter((d): d is DagDefinition => d !== null);
  }

  /** A fingerprint of the DAG files' names, sizes, mtimes and inodes: an atomic replace changes the inode. */
  async revision(): Promise<string> {
    const found = await this.scan();
    const h = nodeCrypto().createHash('sha256');
    for (const f of found) h.update(`${f.file}\0${f.stat.size}\0${f.stat.mtimeMs}\0${f.stat.ino}\n`);
    return h.digest('hex').slice(0, 32);
  }

  async put(name: string, yaml: string, opts: DagWriteOptions = {}): Promise<PutDagResult> {
    assertDagWrite(name, yaml);
    return withFileLock(this.lockKey(name), async () => {
      const found = await this.locate(name);
      const current = found ? await this.read(found) : null;
      const refusal = refuseWrite(current, opts.expectedVersion);
      if (refusal) return refusal;
      const version = dagVersion(yaml);
      if (current?.version === version) return { ok: true, outcome: 'unchanged', version };
      if (found && current) {
        await writeFileAtomic(found.file, yaml, { mode: found.stat.mode & 0o777 });
        return { ok: true, outcome: 'updated', version };
      }
      await fs.mkdir(this.dir, true);
      const file = path.join(this.dir, newDagFileName(name, opts.fileName));
      if (await createFileExclusive(file, yaml)) return { ok: true, outcome: 'created', version };
      // Another host created it between our look and our create.
      if (opts.expectedVersion === null) return { ok: false, reason: 'taken' };
      await writeFileAtomic(file, yaml);
      return { ok: true, outcome: 'updated', version };
    });
  }

  async rename(name: string, newName: string, opts: DagWriteOptions = {}): Promise<RenameDagResult> {
    assertDagName(name);
    assertDagName(newName);
    return withFileLock(this.lockKey(name), async () => {
      const found = await this.locate(name);
      const current = found ? await this.read(found) : null;
      if (!found || !current) return { ok: false, reason: 'missing' };
      const refusal = refuseWrite(current, opts.expectedVersion);
      if (refusal) return refusal;
      if ((await this.locate(newName)) !== null) return { ok: false, reason: 'taken' };
      const r = await renameDagFile(found.file, newName);
      return r.renamed ? { ok: true, fileName: path.basename(r.file) } : { ok: false, reason: 'taken' };
    });
  }

  async delete(name: string, opts: DagWriteOptions = {}): Promise<DeleteDagResult> {
    assertDagName(name);
    return withFileLock(this.lockKey(name), async () => {
      const found = await this.locate(name);
      const current = found ? await this.read(found) : null;
      if (!found || !current) return { ok: false, reason: 'missing' };
      const refusal = refuseWrite(current, opts.expectedVersion);
      if (refusal) return refusal;
      return (await deleteDagFile(found.file)) ? { ok: true } : { ok: false, reason: 'missing' };
    });
  }

  private lockKey(name: string): string {
    return path.join(this.dir, name);
  }

  /** Every DAG file, one per name (`etl.yaml` before `etl.yml`, as the loader picks), sorted by name. */
  private async scan(): Promise<Found[]> {
    const names = (await readdirOrEmpty(this.dir)).filter((n) => !n.startsWith('.') && DAG_FILE.test(n));
    const found = await mapConcurrently(names, FILE_READ_CONCURRENCY, (n) =>
      this.statDag(DAG_FILE.exec(n)![1], path.join(this.dir, n)),
    );
    const byName = new Map<string, Found>();
    for (const f of found.filter((x): x is Found => x !== null).sort(byFile)) {
      if (!byName.has(f.name)) byName.set(f.name, f);
    }
    return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  private async locate(name: string): Promise<Found | null> {
    for (const ext of ['.yaml', '.yml']) {
      const f = await this.statDag(name, path.join(this.dir, name + ext));
      if (f) return f;
    }
    return null;
  }

  private async statDag(name: string, file: string): Promise<Found | null> {
    if (!isValidDagName(name)) return null;
    const st = await fs.stat(file).catch(() => null); // follows symlinks; a dangling one is no DAG
    if (!st?.isFile() || st.size > MAX_DAG_FILE_BYTES) return null;
    return { name, file, stat: { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, mode: st.mode } };
  }

  /** The file's text and entry; null when it vanished since it was found. */
  private async read(f: Found): Promise<DagDefinition | null> {
    let yaml: string;
    try {
      yaml = await readTextFile(f.file);
    } catch (err) {
      if (errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR') return null;
      throw err;
    }
    return {
      name: f.name,
      yaml,
      version: dagVersion(yaml),
      fileName: path.basename(f.file),
      updatedAt: new Date(f.stat.mtimeMs).toISOString(),
      updatedBy: null,
    };
  }
}

function byFile(a: Found, b: Found): number {
  return a.file < b.file ? -1 : a.file > b.file ? 1 : 0;
}
