// A DispatchStore wrapper for the coordinator's tests: makes any store durable or not, and fails chosen
// operations the way shared storage can (an enqueue that fails, a coordinator killed before a delete).

import type { Labels } from '../../core/distributed';
import type {
  AckResult,
  DispatchStore,
  DispatchTask,
  NewDispatchTask,
  PendingSummary,
} from '../../store/dispatchTypes';

export class FaultyDispatchStore implements DispatchStore {
  /** Whether a coordinator on this store may hold dispatches. */
  durable: boolean;
  /** The next enqueue calls throw this many times. */
  failEnqueue = 0;
  /** The next delete calls throw this many times (the process "dies" before the task is gone). */
  failDelete = 0;
  /** The next ack calls throw this many times (the process "dies" before a claim is removed). */
  failAck = 0;
  /** Every task ID deleted, in order. */
  readonly deleted: string[] = [];
  enqueueCalls = 0;

  constructor(
    readonly inner: DispatchStore,
    opts: { durable?: boolean } = {},
  ) {
    this.durable = opts.durable ?? true;
  }

  async enqueue(task: NewDispatchTask): Promise<DispatchTask> {
    this.enqueueCalls++;
    if (this.failEnqueue > 0) {
      this.failEnqueue--;
      throw new Error('ENOSPC: no space left on device');
    }
    return this.inner.enqueue(task);
  }

  claimNext(worker: { worker_id: string; labels: Labels }, nowMs: number): Promise<DispatchTask | null> {
    return this.inner.claimNext(worker, nowMs);
  }

  async ack(taskId: string, workerId: string, token: string): Promise<AckResult> {
    if (this.failAck > 0) {
      this.failAck--;
      throw new Error('killed before the claim was removed');
    }
    return this.inner.ack(taskId, workerId, token);
  }

  listPending(where?: (t: PendingSummary) => boolean): Promise<DispatchTask[]> {
    return this.inner.listPending(where);
  }

  pendingSummaries(): Promise<PendingSummary[]> {
    return this.inner.pendingSummaries();
  }

  listClaims(): Promise<DispatchTask[]> {
    return this.inner.listClaims();
  }

  findByRun(runId: string): Promise<DispatchTask | null> {
    return this.inner.findByRun(runId);
  }

  async delete(taskId: string): Promise<boolean> {
    if (this.failDelete > 0) {
      this.failDelete--;
      throw new Error('killed before the task was deleted');
    }
    const deleted = await this.inner.delete(taskId);
    if (deleted) this.deleted.push(taskId);
    return deleted;
  }

  takeExpiredHold(taskId: string, taker: string, nowMs: number): Promise<DispatchTask | null> {
    return this.inner.takeExpiredHold(taskId, taker, nowMs);
  }

  release(taskId: string, claimant: string, token: string): Promise<boolean> {
    return this.inner.release(taskId, claimant, token);
  }

  recycle(
    nowMs: number,
    ttlMs: number,
    keep?: (task: DispatchTask) => boolean,
  ): Promise<{ returned: DispatchTask[]; expired: DispatchTask[] }> {
    return this.inner.recycle(nowMs, ttlMs, keep);
  }

  rebuildIndex(): Promise<void> {
    return this.inner.rebuildIndex();
  }
}
