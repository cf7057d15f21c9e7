// In-memory DispatchStore with the behaviour of FileDispatchStore (same IDs, order, claim and recycle
// rules), for tests and for a coordinator without a shared data directory. Not durable: a coordinator
// on it refuses instead of holding.

import { isClaimable, selectorMatches } from '../core/distributed';
import type { Labels } from '../core/distributed';
import { assertRunId } from '../core/names';
import { assertNewTask, compareTasks, isValidTaskId, newClaimToken, taskIdOf } from './distributedDir';
import type {
  AckResult,
  DispatchStore,
  DispatchTask,
  NewDispatchTask,
  PendingSummary,
} from './dispatchTypes';

/** DispatchStore kept in memory. Tasks are copied in and out so callers cannot mutate stored state. */
export class MemoryDispatchStore implements DispatchStore {
  readonly durable = false;
  private readonly pending = new Map<string, DispatchTask>();
  private readonly claims = new Map<string, DispatchTask>();

  async enqueue(task: NewDispatchTask): Promise<DispatchTask> {
    assertNewTask(task);
    // The same run and attempt enqueued twice within a millisecond: the later one takes the next free ID.
    let idMs = task.enqueued_at_ms;
    let taskId = taskIdOf(idMs, task.run_id, task.attempt);
    while (this.pending.has(taskId) || this.claims.has(taskId)) {
      taskId = taskIdOf(++idMs, task.run_id, task.attempt);
    }
    const stored: DispatchTask = { ...structuredClone(task), version: 1, task_id: taskId, claim: null };
    this.pending.set(taskId, stored);
    return structuredClone(stored);
  }

  async claimNext(
    worker: { worker_id: string; labels: Labels },
    nowMs: number,
  ): Promise<DispatchTask | null> {
    const next = sortedTasks(this.pending).find(
      (task) => selectorMatches(task.worker_selector, worker.labels) && isClaimable(task, nowMs),
    );
    return next ? this.claim(next, worker.worker_id, nowMs) : null;
  }

  async takeExpiredHold(taskId: string, taker: string, nowMs: number): Promise<DispatchTask | null> {
    const task = isValidTaskId(taskId) ? this.pending.get(taskId) : undefined;
    if (!task || task.hold_until_ms === null || task.hold_until_ms > nowMs) return null;
    return this.claim(task, taker, nowMs);
  }

  private claim(task: DispatchTask, claimant: string, nowMs: number): DispatchTask {
    this.pending.delete(task.task_id);
    const claimed: DispatchTask = {
      ...task,
      claim: { worker_id: claimant, token: newClaimToken(), claimed_at_ms: nowMs },
    };
    this.claims.set(claimed.task_id, claimed);
    return structuredClone(claimed);
  }

  async ack(taskId: string, workerId: string, token: string): Promise<AckResult> {
    const claimed = isValidTaskId(taskId) ? this.claims.get(taskId) : undefined;
    if (!claimed) return { ok: false, reason: 'not_found' };
    if (claimed.claim?.worker_id !== workerId) return { ok: false, reason: 'wrong_worker' };
    // The same worker with another token holds a newer claim: the one being acknowledged is gone.
    if (claimed.claim.token !== token) return { ok: false, reason: 'not_found' };
    this.claims.delete(taskId);
    return { ok: true, task: structuredClone(claimed) };
  }

  async release(taskId: string, claimant: string, token: string): Promise<boolean> {
    const claimed = isValidTaskId(taskId) ? this.claims.get(taskId) : undefined;
    if (claimed?.claim?.worker_id !== claimant || claimed.claim.token !== token) return false;
    this.claims.delete(taskId);
    this.pending.set(taskId, { ...claimed, claim: null });
    return true;
  }

  async listPending(where: (t: PendingSummary) => boolean = () => true): Promise<DispatchTask[]> {
    return sortedTasks(this.pending)
      .filter((task) => where(summaryOf(task)))
      .map((task) => structuredClone(task));
  }

  async pendingSummaries(): Promise<PendingSummary[]> {
    return sortedTasks(this.pending).map(summaryOf);
  }

  async listClaims(): Promise<DispatchTask[]> {
    return sortedTasks(this.claims).map((task) => structuredClone(task));
  }

  async findByRun(runId: string): Promise<DispatchTask | null> {
    assertRunId(runId);
    const matches = [...sortedTasks(this.pending), ...sortedTasks(this.claims)].filter(
      (task) => task.run_id === runId,
    );
    return matches.length > 0 ? structuredClone(matches[0]) : null;
  }

  async delete(taskId: string): Promise<boolean> {
    return isValidTaskId(taskId) && this.pending.delete(taskId);
  }

  async recycle(
    nowMs: number,
    ttlMs: number,
    keep: (task: DispatchTask) => boolean = () => false,
  ): Promise<{ returned: DispatchTask[]; expired: DispatchTask[] }> {
    const expired: DispatchTask[] = [];
    for (const task of sortedTasks(this.pending)) {
      if (task.hold_until_ms === null && nowMs - task.enqueued_at_ms > ttlMs && !keep(task)) {
        this.pending.delete(task.task_id);
        expired.push(structuredClone(task));
      }
    }
    const returned: DispatchTask[] = [];
    for (const task of sortedTasks(this.claims)) {
      if (task.claim !== null && nowMs - task.claim.claimed_at_ms <= ttlMs) continue;
      this.claims.delete(task.task_id);
      // Back in pending counts as enqueued now, so the TTL of an unclaimed task starts again.
      const back: DispatchTask = { ...task, claim: null, enqueued_at_ms: nowMs };
      this.pending.set(back.task_id, back);
      returned.push(structuredClone(back));
    }
    return { returned, expired };
  }

  /** Nothing to rebuild: the maps are the storage. */
  async rebuildIndex(): Promise<void> {}
}

function sortedTasks(tasks: Map<string, DispatchTask>): DispatchTask[] {
  return [...tasks.values()].sort(compareTasks);
}

function summaryOf(t: DispatchTask): PendingSummary {
  return {
    task_id: t.task_id,
    run_id: t.run_id,
    worker_selector: { ...t.worker_selector },
    hold_until_ms: t.hold_until_ms,
    enqueued_at_ms: t.enqueued_at_ms,
  };
}
