// A run's artifacts as the API, the console and retention see them: the files a run's steps left in its
// artifacts directory (DAG_RUN_ARTIFACTS_DIR), by run ID and a clean relative path. On files they are the
// run's own directory (`<data>/runs/<id>/artifacts`); on PostgreSQL the run process copies them into the
// database after each step and before its final status, since the local disk is no durable place there.

import { isValidRunId } from '../core/names';
import { cleanArtifactPath } from '../core/dag/artifactPath';

/** One artifact: its path relative to the run's artifacts directory (slash-separated) and its size. */
export interface ArtifactEntry {
  path: string;
  size: number;
}

/** The most one artifact may hold in a store that copies them (the database): 16 MiB. */
export const MAX_ARTIFACT_BYTES = 16 * 1024 * 1024;

/** A run ID or artifact path that is not one (`../x`, an absolute path): refused, never looked up. */
export class InvalidArtifactPathError extends Error {}

/** An artifact over MAX_ARTIFACT_BYTES (or a run's over the total cap), refused by a copying store. */
export class ArtifactTooLargeError extends Error {}

export interface ArtifactStore {
  /** The run's artifacts (files only), sorted by path; none when the run has none or is unknown. */
  list(runId: string): Promise<ArtifactEntry[]>;
  /** One artifact's bytes, or null when there is none at that path. */
  read(runId: string, path: string): Promise<Uint8Array | null>;
  /** Adds or replaces one artifact (a copying store's write; the file store writes the file atomically). */
  put(runId: string, path: string, data: Uint8Array): Promise<void>;
  /** Removes every artifact of the run (history retention); nothing when there are none. */
  removeRun(runId: string): Promise<void>;
}

/** The clean form of a path a caller gave, or InvalidArtifactPathError. */
export function validArtifactPath(runId: string, path: string): string {
  if (!isValidRunId(runId)) throw new InvalidArtifactPathError(`invalid run ID ${JSON.stringify(runId)}`);
  const c = cleanArtifactPath(path);
  if (!c.ok) throw new InvalidArtifactPathError(`${c.error}: ${JSON.stringify(path)}`);
  return c.path;
}

/** Fails for more than MAX_ARTIFACT_BYTES. */
export function checkArtifactSize(path: string, size: number): void {
  if (size > MAX_ARTIFACT_BYTES)
    throw new ArtifactTooLargeError(
      `artifact ${JSON.stringify(path)} is ${size} bytes, over the limit of ${MAX_ARTIFACT_BYTES} bytes a run artifact may have with storage.backend postgres`,
    );
}

/** Artifacts in memory, for tests. */
export class MemoryArtifactStore implements ArtifactStore {
  private readonly runs = new Map<string, Map<string, Uint8Array>>();

  async list(runId: string): Promise<ArtifactEntry[]> {
    if (!isValidRunId(runId)) throw new InvalidArtifactPathError(`invalid run ID ${JSON.stringify(runId)}`);
    const files = this.runs.get(runId) ?? new Map<string, Uint8Array>();
    return [...files.entries()]
      .map(([path, data]) => ({ path, size: data.length }))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  async read(runId: string, path: string): Promise<Uint8Array | null> {
    const clean = validArtifactPath(runId, path);
    const data = this.runs.get(runId)?.get(clean);
    return data ? new Uint8Array(data) : null;
  }

  async put(runId: string, path: string, data: Uint8Array): Promise<void> {
    const clean = validArtifactPath(runId, path);
    checkArtifactSize(clean, data.length);
    let files = this.runs.get(runId);
    if (!files) this.runs.set(runId, (files = new Map()));
    files.set(clean, new Uint8Array(data));
  }

  async removeRun(runId: string): Promise<void> {
    this.runs.delete(runId);
  }
}
