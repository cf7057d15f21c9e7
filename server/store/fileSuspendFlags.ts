// The suspend flags as files: `<dir>/<dag>.suspend`, created by atomic replace, removed by unlink. Readers
// list the directory at every use (no cache, no watcher), so a flag written on one host is seen by the
// scheduler of another at its next tick.

import path from 'node:path';
import { assertDagName } from '../core/names';
import * as fs from './fileCalls';
import {
  ensureDir,
  errorCode,
  errorMessage,
  readdirOrEmpty,
  writeFileAtomic,
  type CorruptFileReport,
} from './fsutil';
import { onceReporter } from './corruptReporter';
import {
  dagOfFlag,
  parseSuspendFlag,
  suspendFlagName,
  type SuspendFlags,
  type SuspendRecord,
} from './suspendFlags';

export class FileSuspendFlags implements SuspendFlags {
  private readonly onCorrupt: (report: CorruptFileReport) => void;

  constructor(
    private readonly dir: string,
    onCorrupt?: (report: CorruptFileReport) => void,
  ) {
    this.onCorrupt = onceReporter(onCorrupt);
  }

  async names(): Promise<Set<string>> {
    const names = new Set<string>();
    for (const entry of await readdirOrEmpty(this.dir)) {
      const dag = dagOfFlag(entry);
      if (dag !== null) names.add(dag);
    }
    return names;
  }

  async list(): Promise<Map<string, SuspendRecord>> {
    const out = new Map<string, SuspendRecord>();
    for (const dag of [...(await this.names())].sort()) out.set(dag, await this.read(dag));
    return out;
  }

  async get(dag: string): Promise<SuspendRecord | null> {
    assertDagName(dag);
    const file = this.fileOf(dag);
    try {
      await fs.stat(file);
    } catch (err) {
      if (errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR') return null;
      throw err;
    }
    return this.read(dag);
  }

  async suspend(record: SuspendRecord & { suspended_at: string }): Promise<boolean> {
    assertDagName(record.dag);
    if ((await this.get(record.dag)) !== null) return false;
    await ensureDir(this.dir);
    const body = { suspended_at: record.suspended_at, by: record.by };
    await writeFileAtomic(this.fileOf(record.dag), `${JSON.stringify(body)}\n`);
    return true;
  }

  async resume(dag: string): Promise<boolean> {
    assertDagName(dag);
    try {
      await fs.unlink(this.fileOf(dag));
      return true;
    } catch (err) {
      if (errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR') return false;
      throw err;
    }
  }

  /** The flag's record; an unreadable or corrupt flag is reported and still suspends, with null fields. */
  private async read(dag: string): Promise<SuspendRecord> {
    const file = this.fileOf(dag);
    let text: string;
    try {
      text = await fs.readText(file);
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return { dag, suspended_at: null, by: null }; // resumed meanwhile
      this.onCorrupt({ path: file, error: `unreadable suspend flag: ${errorMessage(err)}` });
      return { dag, suspended_at: null, by: null };
    }
    const parsed = parseSuspendFlag(dag, text);
    if (parsed !== null) return parsed;
    this.onCorrupt({ path: file, error: 'suspend flag is not JSON; the DAG stays suspended' });
    return { dag, suspended_at: null, by: null };
  }

  private fileOf(dag: string): string {
    return path.join(this.dir, suspendFlagName(dag));
  }
}
