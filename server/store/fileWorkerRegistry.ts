// WorkerRegistry on the shared data directory: data/cluster/workers/<worker_id>.json, replaced
// atomically on every heartbeat. Corrupt records are logged and skipped, never deleted.

import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../core/ports';
import { silentLogger } from '../core/ports';
import { onceReporter } from './corruptReporter';
import { assertWorkerId, isValidWorkerId } from '../core/workerId';
import { distributedDirs, isLabels } from './distributedDir';
import type { WorkerRecord, WorkerRegistry } from './dispatchTypes';
import type { CorruptFileReport } from './fsutil';
import { ensureDir, errorCode, readJsonFile, readdirOrEmpty, writeFileAtomic } from './fsutil';
import { FILE_READ_CONCURRENCY, mapConcurrently } from '../core/concurrency';

/** Options of FileWorkerRegistry. */
export interface FileWorkerRegistryOptions {
  /** `DAGU_HOME/data`. */
  dataDir: string;
  /** Told once about each corrupt worker file that is skipped. */
  logger?: Logger;
}

const JSON_SUFFIX = '.json';

/** WorkerRegistry backed by one file per worker under `DAGU_HOME/data/cluster/workers`. */
export class FileWorkerRegistry implements WorkerRegistry {
  private readonly dir: string;
  private readonly report: (report: CorruptFileReport) => void;

  constructor(opts: FileWorkerRegistryOptions) {
    this.dir = distributedDirs(opts.dataDir).workers;
    const logger = opts.logger ?? silentLogger;
    this.report = onceReporter((r) =>
      logger.warn('Skipping a corrupt worker record', { path: r.path, error: r.error }),
    );
  }

  async put(record: WorkerRecord): Promise<void> {
    assertWorkerId(record.worker_id);
    await ensureDir(this.dir);
    await writeFileAtomic(this.file(record.worker_id), JSON.stringify(record) + '\n');
  }

  /** The worker's record; null when it has none or it is corrupt (logged). */
  async get(workerId: string): Promise<WorkerRecord | null> {
    assertWorkerId(workerId);
    const result = await readJsonFile<WorkerRecord>(this.file(workerId), (v) => recordError(v, workerId));
    if (result.kind === 'corrupt') this.report({ path: result.path, error: result.error });
    return result.kind === 'ok' ? result.value : null;
  }

  /** Every readable worker record, by ID. */
  async list(): Promise<WorkerRecord[]> {
    const ids = (await readdirOrEmpty(this.dir))
      .filter((name) => name.endsWith(JSON_SUFFIX))
      .map((name) => name.slice(0, -JSON_SUFFIX.length))
      .filter(isValidWorkerId)
      .sort();
    const records = await mapConcurrently(ids, FILE_READ_CONCURRENCY, (id) => this.get(id));
    return records.filter((r): r is WorkerRecord => r !== null);
  }

  async remove(workerId: string): Promise<void> {
    assertWorkerId(workerId);
    try {
      await fs.unlink(this.file(workerId));
    } catch (err) {
      if (errorCode(err) !== 'ENOENT') throw err;
    }
  }

  private file(workerId: string): string {
    return path.join(this.dir, `${workerId}${JSON_SUFFIX}`);
  }
}

const isNumber = (v: unknown) => typeof v === 'number' && Number.isFinite(v);

/** Why a parsed worker file cannot be used, or null when it can. */
function recordError(value: unknown, workerId: string): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const v = value as Record<string, unknown>;
  if (v.worker_id !== workerId) return 'worker_id does not match the file name';
  if (!isLabels(v.labels)) return 'labels is not a map of strings';
  if (!isNumber(v.max_active_runs)) return 'max_active_runs is not a number';
  if (!Array.isArray(v.running)) return 'running is not a list';
  if (!isNumber(v.registered_at_ms) || !isNumber(v.last_heartbeat_ms)) return 'a time is not a number';
  return null;
}
