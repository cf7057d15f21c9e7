// The scheduler lock on shared storage: data/scheduler/lock/lock.json plus `takeover-*` claim directories.
// Create is temp+link (full content at once), replace is temp+fsync+rename, a takeover is won by mkdir.

import { promises as fs } from 'node:fs';
import path from 'node:path';
import { obsoleteMarkers, supersededBy, takeoverMarkerName } from '../core/lease/takeoverMarker';
import type { LockRead, LockRecord, LockStorage } from '../core/lease/types';
import {
  createFileExclusive,
  errorCode,
  mkdirExclusive,
  readTextFile,
  readdirOrEmpty,
  writeFileAtomic,
} from './fsutil';
import { decodeLockRecord, encodeLockRecord } from './lockRecordCodec';

export class FileSchedulerLock implements LockStorage {
  readonly dir: string;
  readonly file: string;

  constructor(opts: { dataDir: string }) {
    this.dir = path.join(opts.dataDir, 'scheduler', 'lock');
    this.file = path.join(this.dir, 'lock.json');
  }

  async read(): Promise<LockRead> {
    let raw: string;
    try {
      raw = await readTextFile(this.file);
    } catch (err) {
      // A missing data directory reads as "no lock" only if the directory tree is merely not created yet;
      // anything else (EACCES, EIO, ENOTDIR on a file in the way) is a storage error for the caller.
      if (errorCode(err) === 'ENOENT') return { kind: 'none' };
      if (errorCode(err) === 'EISDIR') return { kind: 'corrupt', raw: '', error: 'a directory, not a file' };
      throw err;
    }
    return decodeLockRecord(raw);
  }

  async create(record: LockRecord): Promise<boolean> {
    await this.ensureLockDir();
    return createFileExclusive(this.file, encodeLockRecord(record));
  }

  async takeOver(observed: LockRead, next: LockRecord, attempt = 0): Promise<boolean> {
    await this.ensureLockDir();
    if (!(await mkdirExclusive(path.join(this.dir, takeoverMarkerName(observed, next, attempt)))))
      return false;
    const names = await readdirOrEmpty(this.dir);
    // A record whose epoch has been superseded is a late write; its own claim may have been cleaned up.
    if (observed.kind === 'record' && supersededBy(names, observed.record.epoch) !== null) return false;
    await writeFileAtomic(this.file, encodeLockRecord(next));
    await this.removeObsoleteMarkers(names);
    return true;
  }

  async write(record: LockRecord): Promise<void> {
    await writeFileAtomic(this.file, encodeLockRecord(record));
  }

  /** Creates scheduler/lock below the data directory, but never the data directory itself: a wrong path fails. */
  private async ensureLockDir(): Promise<void> {
    for (const dir of [path.dirname(this.dir), this.dir]) {
      await fs.mkdir(dir).catch((err: unknown) => {
        if (errorCode(err) !== 'EEXIST') throw err;
      });
    }
  }

  /** Best effort: a marker left behind costs one empty directory; removing a needed one would cost safety. */
  private async removeObsoleteMarkers(names: string[]): Promise<void> {
    for (const name of obsoleteMarkers(names)) {
      await fs.rmdir(path.join(this.dir, name)).catch(() => {});
    }
  }
}
