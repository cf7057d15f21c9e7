// The suspend flags in memory, for tests of the scheduler, the queue and the API.

import { assertDagName } from '../core/names';
import type { SuspendFlags, SuspendRecord } from './suspendFlags';

export class MemorySuspendFlags implements SuspendFlags {
  private readonly flags = new Map<string, SuspendRecord>();
  /** Set by a test: every read throws it, as a storage error would. */
  failWith: Error | null = null;

  async names(): Promise<Set<string>> {
    this.check();
    return new Set(this.flags.keys());
  }

  async list(): Promise<Map<string, SuspendRecord>> {
    this.check();
    return new Map(
      [...this.flags.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, { ...v }]),
    );
  }

  async get(dag: string): Promise<SuspendRecord | null> {
    assertDagName(dag);
    this.check();
    const r = this.flags.get(dag);
    return r ? { ...r } : null;
  }

  async suspend(record: SuspendRecord & { suspended_at: string }): Promise<boolean> {
    assertDagName(record.dag);
    this.check();
    if (this.flags.has(record.dag)) return false;
    this.flags.set(record.dag, { ...record });
    return true;
  }

  async resume(dag: string): Promise<boolean> {
    assertDagName(dag);
    this.check();
    return this.flags.delete(dag);
  }

  private check() {
    if (this.failWith) throw this.failWith;
  }
}
