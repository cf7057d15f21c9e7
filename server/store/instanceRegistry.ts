// The scheduler instance registry (data/scheduler/instances/<id>.json): each instance publishes who it is,
// its role and the last lock renewal it saw, so the console and /metrics can tell active from standby.

import { promises as fs } from 'node:fs';
import * as files from './fileCalls';
import path from 'node:path';
import { onceReporter } from './corruptReporter';
import {
  errorCode,
  isTempName,
  readJsonFile,
  readdirOrEmpty,
  writeFileAtomic,
  type CorruptFileReport,
} from './fsutil';

/** One scheduler instance as it last described itself. Times are its own wall clock (display only). */
export interface InstanceRecord {
  version: 1;
  id: string;
  host: string;
  pid: number;
  role: 'starting' | 'standby' | 'active' | 'lost' | 'stopped';
  /** When it took its current role. */
  since: string;
  /** Health endpoint port, or 0 when disabled. */
  port: number;
  /** The lock record it last saw: holder instance and when that holder last renewed (holder's clock). */
  lock_holder: string | null;
  last_renewal_seen: string | null;
  /** When this record was written; a record not refreshed for a while belongs to a dead instance. */
  updated_at: string;
}

const ID_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

/** Where scheduler instances publish themselves: files under the data directory, or a database table. */
export interface InstanceStore {
  publish(record: InstanceRecord): Promise<void>;
  /** Removes this instance's own record (on a clean stop). */
  remove(id: string): Promise<void>;
  /** Every readable record, by ID. */
  list(): Promise<InstanceRecord[]>;
  /** Removes records not refreshed for `olderThanMs`; answers their IDs. Only the active instance calls it. */
  prune(nowMs: number, olderThanMs: number): Promise<string[]>;
}

/** Whether `id` may name an instance record. */
export function isInstanceId(id: string): boolean {
  return ID_PATTERN.test(id);
}

export class InstanceRegistry implements InstanceStore {
  private readonly dir: string;
  private readonly onCorrupt: (r: CorruptFileReport) => void;
  constructor(dataDir: string, onCorrupt?: (r: CorruptFileReport) => void) {
    this.dir = path.join(dataDir, 'scheduler', 'instances');
    // Every instance lists the registry at each lock retry: a broken record would be logged every few seconds.
    this.onCorrupt = onceReporter(onCorrupt);
  }

  private file(id: string): string {
    if (!ID_PATTERN.test(id)) throw new Error(`invalid instance id ${JSON.stringify(id)}`);
    return path.join(this.dir, `${id}.json`);
  }

  async publish(record: InstanceRecord): Promise<void> {
    await files.mkdir(this.dir, true);
    await writeFileAtomic(this.file(record.id), `${JSON.stringify(record)}\n`);
  }

  /** Removes this instance's own record (on a clean stop). */
  async remove(id: string): Promise<void> {
    await fs.unlink(this.file(id)).catch((err: unknown) => {
      if (errorCode(err) !== 'ENOENT') throw err;
    });
  }

  /** Every readable record; corrupt ones are reported and skipped. */
  async list(): Promise<InstanceRecord[]> {
    const names = (await readdirOrEmpty(this.dir)).filter((n) => n.endsWith('.json') && !isTempName(n));
    const out: InstanceRecord[] = [];
    for (const name of names) {
      const r = await readJsonFile<InstanceRecord>(path.join(this.dir, name), instanceShapeError);
      if (r.kind === 'ok') out.push(r.value);
      else if (r.kind === 'corrupt') this.onCorrupt({ path: r.path, error: r.error });
    }
    return out.sort((a, b) => a.id.localeCompare(b.id));
  }

  /**
   * Removes records not refreshed for `olderThanMs` (by their own `updated_at`): instances that died
   * without a clean stop. Only called by the active instance.
   */
  async prune(nowMs: number, olderThanMs: number): Promise<string[]> {
    const gone: string[] = [];
    for (const r of await this.list()) {
      if (nowMs - Date.parse(r.updated_at) > olderThanMs) {
        await this.remove(r.id).catch(() => undefined);
        gone.push(r.id);
      }
    }
    return gone;
  }
}

/** What is wrong with a parsed instance record, or null; a record of another version is not read as ours. */
function instanceShapeError(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const v = value as Record<string, unknown>;
  if (v.version !== 1) return `unsupported version ${JSON.stringify(v.version)} (this dagu reads version 1)`;
  for (const field of ['id', 'host', 'role', 'updated_at'] as const) {
    if (typeof v[field] !== 'string') return `field ${field} is missing or not a string`;
  }
  return null;
}

/** Whether a record is fresh enough to count as a live instance. */
export function isLive(r: InstanceRecord, nowMs: number, freshForMs: number): boolean {
  return r.role !== 'stopped' && nowMs - Date.parse(r.updated_at) <= freshForMs;
}

/**
 * Removes the records of earlier instances on `me.host` whose process is gone: a scheduler restarted after a
 * crash replaces its dead predecessor in the console at once instead of showing beside it as `lost` until
 * the active instance prunes it. A record with our own pid but another id is a predecessor by definition.
 * Should two hosts share a host name (containers), a live instance whose record was removed this way simply
 * publishes it again within its retry interval.
 */
export async function forgetDeadPredecessors(
  registry: Pick<InstanceStore, 'list' | 'remove'>,
  me: { id: string; host: string; pid: number },
  isProcessAlive: (pid: number) => boolean,
): Promise<string[]> {
  const gone: string[] = [];
  for (const r of await registry.list()) {
    if (r.id === me.id || r.host !== me.host) continue;
    if (r.pid !== me.pid && isProcessAlive(r.pid)) continue;
    await registry.remove(r.id);
    gone.push(r.id);
  }
  return gone;
}
