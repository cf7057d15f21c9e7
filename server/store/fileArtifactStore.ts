// Run artifacts on the data directory: `<data>/runs/<run id>/artifacts/<path>`, the folder the run's steps
// wrote (DAG_RUN_ARTIFACTS_DIR), inside the run's own directory so that deleting the run removes them. A read
// never follows a symlink out of that folder; the listing skips symlinks.

import { lstat, readFile, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { isValidRunId } from '../core/names';
import {
  checkArtifactSize,
  InvalidArtifactPathError,
  validArtifactPath,
  type ArtifactEntry,
  type ArtifactStore,
} from './artifactStore';
import * as fs from './fileCalls';
import { ensureDir, errorCode, writeFileAtomic } from './fsutil';

export class FileArtifactStore implements ArtifactStore {
  /** @param dataDir the data directory (`paths.data_dir`) */
  constructor(private readonly dataDir: string) {}

  /** The run's artifacts directory. */
  dirOf(runId: string): string {
    if (!isValidRunId(runId)) throw new InvalidArtifactPathError(`invalid run ID ${JSON.stringify(runId)}`);
    return path.join(this.dataDir, 'runs', runId, 'artifacts');
  }

  async list(runId: string): Promise<ArtifactEntry[]> {
    const root = this.dirOf(runId);
    const out: ArtifactEntry[] = [];
    const visit = async (dir: string, prefix: string): Promise<void> => {
      let names: string[];
      try {
        names = await readdir(dir);
      } catch (err) {
        if (errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR') return;
        throw err;
      }
      for (const name of names) {
        const full = path.join(dir, name);
        const info = await lstat(full).catch(() => null);
        if (!info) continue;
        const rel = prefix === '' ? name : `${prefix}/${name}`;
        if (info.isDirectory()) await visit(full, rel);
        else if (info.isFile()) out.push({ path: rel, size: info.size });
      }
    };
    await visit(root, '');
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  async read(runId: string, p: string): Promise<Uint8Array | null> {
    const clean = validArtifactPath(runId, p);
    const root = this.dirOf(runId);
    try {
      const realRoot = await realpath(root);
      const target = await realpath(path.join(root, clean));
      const rel = path.relative(realRoot, target);
      if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel))
        throw new InvalidArtifactPathError(
          `artifact path ${JSON.stringify(p)} leads out of the run's artifacts`,
        );
      const info = await lstat(target);
      if (!info.isFile()) return null;
      return new Uint8Array(await readFile(target));
    } catch (err) {
      if (errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR') return null;
      throw err;
    }
  }

  async put(runId: string, p: string, data: Uint8Array): Promise<void> {
    const clean = validArtifactPath(runId, p);
    checkArtifactSize(clean, data.length);
    const target = path.join(this.dirOf(runId), clean);
    await ensureDir(path.dirname(target));
    await writeFileAtomic(target, data, { mode: 0o600 });
  }

  async removeRun(runId: string): Promise<void> {
    await fs.removeTree(this.dirOf(runId));
  }
}
