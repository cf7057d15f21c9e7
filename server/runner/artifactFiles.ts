// Paths inside a run's artifacts directory (DAG_RUN_ARTIFACTS_DIR), for `stdout: {artifact}`,
// `stderr: {artifact}` and the `artifact.*` actions. A path is cleaned first (relative, no `..`), then checked
// again on the disk: a symlink inside the directory may not lead out of it.

// node:fs's `promises` is read where it is used: a run that has no artifacts never loads fs/promises.
import { promises as fsp } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ARTIFACTS_DIR_VAR, cleanArtifactPath } from '../core/dag/artifactPath';

/** A step that cannot start for a reason of its own (a bad artifact path): it fails with this message. */
export class StepSetupError extends Error {}

export type ArtifactTarget = { ok: true; path: string; rel: string } | { ok: false; error: string };

const NOT_SET = `${ARTIFACTS_DIR_VAR} is not set; enable artifacts for this DAG`;

/** Whether `child` is `parent` or below it. */
export function insideOrSame(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** The artifacts directory made if missing, with its symlinks resolved; an error text when it cannot be. */
export async function artifactRoot(dir: string | undefined): Promise<string> {
  if (dir === undefined || dir.trim() === '') throw new StepSetupError(NOT_SET);
  const abs = resolve(dir);
  await fsp.mkdir(abs, { recursive: true, mode: 0o750 });
  return fsp.realpath(abs);
}

/** The nearest part of `target` that exists, with its symlinks resolved. */
async function nearestExisting(target: string): Promise<string> {
  let current = target;
  for (;;) {
    try {
      await fsp.lstat(current);
      return await fsp.realpath(current);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    const next = dirname(current);
    if (next === current) throw new Error(`no existing parent for artifact path ${JSON.stringify(target)}`);
    current = next;
  }
}

/** Fails unless the folder `dir` (or what of it exists) stays inside `root` once symlinks are followed. */
export async function checkInside(root: string, dir: string, rel: string): Promise<void> {
  if (!insideOrSame(root, await nearestExisting(dir)))
    throw new StepSetupError(`artifact path ${JSON.stringify(rel)} escapes the artifact directory`);
}

/**
 * Where a step's stream goes for `stdout: {artifact: <raw>}`: the file below the artifacts directory, its
 * parent folders made; a path that leaves the directory, or names a symlink, is refused.
 */
export async function artifactTarget(dir: string | undefined, raw: string): Promise<ArtifactTarget> {
  try {
    const cleaned = cleanArtifactPath(raw);
    if (!cleaned.ok) return { ok: false, error: cleaned.error };
    const root = await artifactRoot(dir);
    const target = join(root, cleaned.path);
    const parent = dirname(target);
    await checkInside(root, parent, cleaned.path);
    await fsp.mkdir(parent, { recursive: true, mode: 0o750 });
    await checkInside(root, parent, cleaned.path);
    const info = await fsp.lstat(target).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null;
      throw err;
    });
    if (info?.isSymbolicLink())
      return { ok: false, error: `artifact path ${JSON.stringify(cleaned.path)} must not be a symlink` };
    return { ok: true, path: target, rel: cleaned.path };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}
