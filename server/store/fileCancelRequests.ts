// CancelRequests on the shared data directory: one file per run, data/cluster/cancels/<run_id>,
// created whole and exclusively (a second request for the run keeps the first), removed by clear. Requests
// an earlier version left in data/distributed/cancels are moved here at first use.

import path from 'node:path';
import { assertRunId, isValidRunId } from '../core/names';
import { distributedDirs, legacyDistributedDirs } from './distributedDir';
import { adoptLegacyFiles, parseJsonOrUndefined } from './legacyDistributed';
import type { CancelRequests } from './dispatchTypes';
import { onceReporter } from './corruptReporter';
import {
  createFileExclusive,
  ensureDir,
  errorCode,
  isTempName,
  readJsonFile,
  readdirOrEmpty,
  type CorruptFileReport,
} from './fsutil';
import * as fs from './fileCalls';

/** CancelRequests backed by files under `DAGU_HOME/data/cluster/cancels`. */
export class FileCancelRequests implements CancelRequests {
  private readonly dir: string;
  private readonly legacyDir: string;
  /** Adoption of an earlier version's requests, once per process. */
  private adopted: Promise<void> | null = null;

  private readonly adopts: boolean;
  private readonly onCorrupt: (report: CorruptFileReport) => void;

  /**
   * `adoptLegacy: false` never moves an earlier version's requests (for a reader that must leave the data
   * directory as it is: `dagu storage migrate`). `onCorrupt` hears of request files `requests()` skips.
   */
  constructor(opts: {
    dataDir: string;
    adoptLegacy?: boolean;
    onCorrupt?: (report: CorruptFileReport) => void;
  }) {
    this.dir = distributedDirs(opts.dataDir).cancels;
    this.legacyDir = legacyDistributedDirs(opts.dataDir).cancels;
    this.adopts = opts.adoptLegacy ?? true;
    this.onCorrupt = onceReporter(opts.onCorrupt);
  }

  /** Moves the requests of ours from data/distributed/cancels (`{run_id, requested_at_ms}` named by run). */
  private adoptLegacy(): Promise<void> {
    if (!this.adopts) return Promise.resolve();
    this.adopted ??= adoptLegacyFiles({
      from: this.legacyDir,
      to: this.dir,
      isOurName: isValidRunId,
      isOurs: (name, text) => {
        const v = parseJsonOrUndefined(text) as { run_id?: unknown; requested_at_ms?: unknown } | undefined;
        return (
          typeof v === 'object' && v !== null && v.run_id === name && typeof v.requested_at_ms === 'number'
        );
      },
    }).then(
      () => {},
      (err: unknown) => {
        this.adopted = null;
        throw err;
      },
    );
    return this.adopted;
  }

  async request(runId: string, nowMs: number): Promise<void> {
    assertRunId(runId);
    await this.adoptLegacy();
    await ensureDir(this.dir);
    // False when the run was already asked to cancel: that request stands.
    await createFileExclusive(
      this.file(runId),
      JSON.stringify({ run_id: runId, requested_at_ms: nowMs }) + '\n',
    );
  }

  async has(runId: string): Promise<boolean> {
    assertRunId(runId);
    await this.adoptLegacy();
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
    await this.adoptLegacy();
    return (await readdirOrEmpty(this.dir)).filter((name) => !isTempName(name) && isValidRunId(name)).sort();
  }

  /** Every request with the time it was made, by run ID; a file that is not a request is reported and skipped. */
  async requests(): Promise<Array<{ run_id: string; requested_at_ms: number }>> {
    const out: Array<{ run_id: string; requested_at_ms: number }> = [];
    for (const runId of await this.list()) {
      const read = await readJsonFile<{ requested_at_ms: number }>(this.file(runId), (v) => {
        const r = v as { run_id?: unknown; requested_at_ms?: unknown } | null;
        if (typeof r !== 'object' || r === null || r.run_id !== runId)
          return 'not a cancel request of this run';
        return typeof r.requested_at_ms === 'number' ? null : 'requested_at_ms is not a number';
      });
      if (read.kind === 'ok') out.push({ run_id: runId, requested_at_ms: read.value.requested_at_ms });
      else if (read.kind === 'corrupt') this.onCorrupt({ path: read.path, error: read.error });
    }
    return out;
  }

  async clear(runId: string): Promise<void> {
    assertRunId(runId);
    await this.adoptLegacy();
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
