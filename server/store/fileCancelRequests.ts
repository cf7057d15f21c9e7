// CancelRequests on the shared data directory: one file per run, data/distributed/cancels/<run_id>,
// created whole and exclusively (a second request for the run keeps the first), removed by clear.

import path from 'node:path';
import { assertRunId, isValidRunId } from '../core/names';
import { distributedDirs } from './distributedDir';
import type { CancelRequests } from './dispatchTypes';
import { createFileExclusive, ensureDir, errorCode, isTempName, readdirOrEmpty } from './fsutil';
import * as fs from './fileCalls';

/** CancelRequests backed by files under `DAGU_HOME/data/distributed/cancels`. */
export class FileCancelRequests implements CancelRequests {
  private readonly dir: string;

  constructor(opts: { dataDir: string }) {
    this.dir = distributedDirs(opts.dataDir).cancels;
  }

  async request(runId: string, nowMs: number): Promise<void> {
    assertRunId(runId);
    await ensureDir(this.dir);
    // False when the run was already asked to cancel: that request stands.
    await createFileExclusive(
      this.file(runId),
      JSON.stringify({ run_id: runId, requested_at_ms: nowMs }) + '\n',
    );
  }

  async has(runId: string): Promise<boolean> {
    assertRunId(runId);
    try {
      await fs.stat(this.file(runId));
      return true;
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return false;
      throw err;
    }
  }

  /** Run IDs with a request, sorted. */
  async list(): Promise<string[]> {
    return (await readdirOrEmpty(this.dir)).filter((name) => !isTempName(name) && isValidRunId(name)).sort();
  }

  async clear(runId: string): Promise<void> {
    assertRunId(runId);
    try {
      await fs.unlink(this.file(runId));
    } catch (err) {
      if (errorCode(err) !== 'ENOENT') throw err;
    }
  }

  private file(runId: string): string {
    return path.join(this.dir, runId);
  }
}
