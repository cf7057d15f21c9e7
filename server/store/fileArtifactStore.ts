// Run artifacts on the data directory: `<data>/runs/<run id>/artifacts/<path>`, the folder the run's steps
// wrote (DAG_RUN_ARTIFACTS_DIR), inside the run's own directory so that deleting the run removes them. A DAG
// with its own `artifacts.dir` keeps them in `<dir>/<dag>/dag-run_<time>_<run id>`, as Dagu does; the run then
// records that folder in
// `<data>/runs/<run id>/artifacts-dir`, where this store and history retention find it. A read never follows a
// symlink out of the folder; the listing skips symlinks.

// node:fs's `promises` is read where it is used: a run that has no artifacts never loads fs/promises.
import { promises as fsp } from 'node:fs';
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

/** The file in a run's directory naming its artifacts folder when the DAG set `artifacts.dir`. */
export const ARTIFACTS_DIR_FILE = 'artifacts-dir';

/**
 * The folder of a run under a DAG's `artifacts.dir`, as Dagu names it: `dag-run_<UTC time>_<run id>`, the
 * time as `20060102_150405Z`. The time is the run's creation, so that every attempt of the run finds the
 * same folder (Dagu reuses the first attempt's).
 */
export function artifactsFolderName(runId: string, createdAt: string): string {
  const t = new Date(createdAt);
  const stamp = Number.isNaN(t.getTime())
    ? '00000000_000000Z'
    : t
        .toISOString()
        .replace(/[-:]/g, '')
        .replace('T', '_')
        .replace(/\.\d+Z$/, 'Z');
  return `dag-run_${stamp}_${runId}`;
}

/** Whether a folder's name is one a run with this ID has: Dagu's `dag-run_<time>_<id>`, or the bare ID. */
function isRunFolderName(name: string, runId: string): boolean {
  if (name === runId) return true; // the name runs made before they took Dagu's
  const prefix = /^dag-run_\d{8}_\d{6}Z_/.exec(name);
  return prefix !== null && name.slice(prefix[0].length) === runId;
}

/**
 * The folder a run's `artifacts-dir` file names, if it is one a run of `dagName` (when known) with this ID
 * could have: absolute, ending in `<dag>/dag-run_<time>_<run id>` (or `<dag>/<run id>`), not a filesystem
 * root. Null otherwise, so that a stray or edited file never points retention at another folder.
 */
export function recordedArtifactsDir(text: string, runId: string, dagName: string | null): string | null {
  const dir = text.trim();
  if (!path.isAbsolute(dir) || dir.includes('\0')) return null;
  const norm = path.normalize(dir);
  if (!isRunFolderName(path.basename(norm), runId)) return null;
  const dagDir = path.dirname(norm);
  if (dagName !== null && path.basename(dagDir) !== dagName) return null;
  if (path.dirname(dagDir) === path.parse(norm).root) return null;
  return norm;
}

/** Records a run's own artifacts folder (a DAG's `artifacts.dir`) in its run directory, atomically. */
export async function recordArtifactsDir(dataDir: string, runId: string, dir: string): Promise<void> {
  if (!isValidRunId(runId)) throw new InvalidArtifactPathError(`invalid run ID ${JSON.stringify(runId)}`);
  await writeFileAtomic(path.join(dataDir, 'runs', runId, ARTIFACTS_DIR_FILE), `${dir}\n`);
}

export class FileArtifactStore implements ArtifactStore {
  /** @param dataDir the data directory (`paths.data_dir`) */
  constructor(private readonly dataDir: string) {}

  /** The run's default artifacts directory. */
  dirOf(runId: string): string {
    if (!isValidRunId(runId)) throw new InvalidArtifactPathError(`invalid run ID ${JSON.stringify(runId)}`);
    return path.join(this.dataDir, 'runs', runId, 'artifacts');
  }

  /** The folder the run recorded (its DAG's `artifacts.dir`), else the default one. */
  private async rootOf(runId: string): Promise<string> {
    const own = this.dirOf(runId);
    const recorded = await fsp
      .readFile(path.join(path.dirname(own), ARTIFACTS_DIR_FILE), 'utf8')
      .catch(() => null);
    return (recorded !== null && recordedArtifactsDir(recorded, runId, null)) || own;
  }

  async list(runId: string): Promise<ArtifactEntry[]> {
    const root = await this.rootOf(runId);
    const out: ArtifactEntry[] = [];
    const visit = async (dir: string, prefix: string): Promise<void> => {
      let names: string[];
      try {
        names = await fsp.readdir(dir);
      } catch (err) {
        if (errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR') return;
        throw err;
      }
      for (const name of names) {
        const full = path.join(dir, name);
        const info = await fsp.lstat(full).catch(() => null);
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
    const root = await this.rootOf(runId);
    try {
      const realRoot = await fsp.realpath(root);
      const target = await fsp.realpath(path.join(root, clean));
      const rel = path.relative(realRoot, target);
      if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel))
        throw new InvalidArtifactPathError(
          `artifact path ${JSON.stringify(p)} leads out of the run's artifacts`,
        );
      const info = await fsp.lstat(target);
      if (!info.isFile()) return null;
      return new Uint8Array(await fsp.readFile(target));
    } catch (err) {
      if (errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR') return null;
      throw err;
    }
  }

  async put(runId: string, p: string, data: Uint8Array): Promise<void> {
    const clean = validArtifactPath(runId, p);
    checkArtifactSize(clean, data.length);
    const target = path.join(await this.rootOf(runId), clean);
    await ensureDir(path.dirname(target));
    await writeFileAtomic(target, data, { mode: 0o600 });
  }

  async removeRun(runId: string): Promise<void> {
    await fs.removeTree(this.dirOf(runId));
  }
}
