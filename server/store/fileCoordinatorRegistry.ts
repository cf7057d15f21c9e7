// CoordinatorRegistry on the shared data directory: data/cluster/coordinators/<coordinator_id>.json,
// replaced atomically on every refresh. Corrupt records are logged and skipped, never deleted.

import path from 'node:path';
import type { Logger } from '../core/ports';
import { silentLogger } from '../core/ports';
import { onceReporter } from './corruptReporter';
import { assertCoordinatorId, distributedDirs, isValidCoordinatorId } from './distributedDir';
import type { CoordinatorRecord, CoordinatorRegistry } from './dispatchTypes';
import type { CorruptFileReport } from './fsutil';
import { ensureDir, readJsonFile, readdirOrEmpty, writeFileAtomic } from './fsutil';
import { FILE_READ_CONCURRENCY, mapConcurrently } from '../core/concurrency';

export interface FileCoordinatorRegistryOptions {
  /** `DAGU_HOME/data`. */
  dataDir: string;
  /** Told once about each corrupt record that is skipped. */
  logger?: Logger;
}

const JSON_SUFFIX = '.json';

/** CoordinatorRegistry backed by one file per coordinator under `DAGU_HOME/data/cluster/coordinators`. */
export class FileCoordinatorRegistry implements CoordinatorRegistry {
  private readonly dir: string;
  private readonly report: (report: CorruptFileReport) => void;

  constructor(opts: FileCoordinatorRegistryOptions) {
    this.dir = distributedDirs(opts.dataDir).coordinators;
    const logger = opts.logger ?? silentLogger;
    this.report = onceReporter((r) =>
      logger.warn('Skipping a corrupt coordinator record', { path: r.path, error: r.error }),
    );
  }

  async put(record: CoordinatorRecord): Promise<void> {
    assertCoordinatorId(record.coordinator_id);
    await ensureDir(this.dir);
    await writeFileAtomic(this.file(record.coordinator_id), JSON.stringify(record) + '\n');
  }

  async list(): Promise<CoordinatorRecord[]> {
    const ids = (await readdirOrEmpty(this.dir))
      .filter((name) => name.endsWith(JSON_SUFFIX))
      .map((name) => name.slice(0, -JSON_SUFFIX.length))
      .filter(isValidCoordinatorId)
      .sort();
    const records = await mapConcurrently(ids, FILE_READ_CONCURRENCY, async (id) => {
      const result = await readJsonFile<CoordinatorRecord>(this.file(id), (v) => recordError(v, id));
      if (result.kind === 'corrupt') this.report({ path: result.path, error: result.error });
      return result.kind === 'ok' ? result.value : null;
    });
    return records.filter((r): r is CoordinatorRecord => r !== null);
  }

  private file(id: string): string {
    return path.join(this.dir, `${id}${JSON_SUFFIX}`);
  }
}

const isNumber = (v: unknown) => typeof v === 'number' && Number.isFinite(v);

/** Why a parsed coordinator file cannot be used, or null when it can; another version is not read as ours. */
function recordError(value: unknown, id: string): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const v = value as Record<string, unknown>;
  if (v.version !== 1) return `unsupported version ${JSON.stringify(v.version)} (this dagu reads version 1)`;
  if (v.coordinator_id !== id) return 'coordinator_id does not match the file name';
  if (!isNumber(v.last_seen_ms) || !isNumber(v.fresh_for_ms)) return 'a time is not a number';
  if (v.stopped_at_ms !== null && !isNumber(v.stopped_at_ms)) return 'stopped_at_ms is not a number or null';
  return null;
}
