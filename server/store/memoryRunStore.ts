// In-memory RunStore with the behaviour of FileRunStore (same validation, ordering and errors), for the
// runner and scheduler tests. Records are copied in and out so callers cannot mutate stored state.

import { assertDagName, assertRunId } from '../core/names';
import { TERMINAL_RUN_STATES, type RunStatus } from '../core/types';
import { AttemptConflictError, RunNotFoundError } from './errors';
import {
  clampLimit,
  compareKeysDesc,
  createdMsOf,
  matchesQuery,
  parseCursor,
  runListKey,
  summarizeRun,
} from './runList';
import { assertStatusNames, isAttemptNumber } from './runValidation';
import type {
  CreateRunResult,
  DeleteRunResult,
  HistoryEntry,
  ReadStatusResult,
  RunListPage,
  RunListQuery,
  RunStore,
  WriteStatusOptions,
  UnwrittenFinalStatus,
} from './types';
import { parseUnwrittenNoteName, unwrittenNoteName } from './unwrittenFinalStatus';

interface MemoryRun {
  key: string;
  /** Attempt n is at index n-1. */
  attempts: RunStatus[];
  heartbeats: Map<number, number>;
  /** Claimed attempts and who claimed them. */
  claims: Map<number, string>;
  /** recordUnwrittenFinalStatus notes, by attempt. */
  unwritten: Map<number, UnwrittenFinalStatus>;
}

type ActiveRun = { run_id: string; dag_name: string; queue: string };

/** RunStore kept in memory; `logDir` returns `/logs/<dag>/<run>/<attempt>`. */
export class MemoryRunStore implements RunStore {
  private readonly runs = new Map<string, MemoryRun>();
  private readonly active = new Map<string, ActiveRun>();

  async createRun(initial: RunStatus): Promise<CreateRunResult> {
    assertStatusNames(initial);
    if (this.runs.has(initial.run_id)) return { created: false, reason: 'exists' };
    if (initial.attempt !== 1) throw new AttemptConflictError(initial.run_id, initial.attempt, 0);
    this.runs.set(initial.run_id, {
      key: runListKey(createdMsOf(initial), initial.run_id),
      attempts: [structuredClone(initial)],
      heartbeats: new Map(),
      claims: new Map(),
      unwritten: new Map(),
    });
    this.markIfLive(initial);
    return { created: true };
  }

  /** Creation is atomic here, so there is never a half-created run to complete. */
  async completeRun(initial: RunStatus): Promise<boolean> {
    assertStatusNames(initial);
    return false;
  }

  /** Creation is atomic here, so every run is always listed. */
  async ensureIndexed(status: RunStatus): Promise<void> {
    assertStatusNames(status);
  }

  async createAttempt(status: RunStatus): Promise<void> {
    assertStatusNames(status);
    const run = this.runs.get(status.run_id);
    if (!run) throw new RunNotFoundError(status.run_id);
    if (status.attempt !== run.attempts.length + 1) {
      throw new AttemptConflictError(status.run_id, status.attempt, run.attempts.length);
    }
    run.attempts.push(structuredClone(status));
    this.markIfLive(status);
  }

  readonly unmarksEnded: boolean = false;
  readonly clearsCancelsOnEnd: boolean = false;

  async writeStatus(status: RunStatus, _replaces?: RunStatus, opts?: WriteStatusOptions): Promise<void> {
    assertStatusNames(status);
    const run = this.existingAttempt(status.run_id, status.attempt);
    run.attempts[status.attempt - 1] = structuredClone(status);
    if (opts?.heartbeatMs !== undefined) {
      await this.writeHeartbeat(status.run_id, status.attempt, opts.heartbeatMs);
    }
  }

  async recordUnwrittenFinalStatus(
    runId: string,
    attempt: number,
    note: UnwrittenFinalStatus,
  ): Promise<void> {
    assertRunId(runId);
    // The file store keeps the note in a file name: a code it cannot spell there reads back as UNKNOWN.
    const kept = parseUnwrittenNoteName(unwrittenNoteName(note))!;
    this.existingAttempt(runId, attempt).unwritten.set(attempt, kept);
  }

  async readUnwrittenFinalStatus(runId: string, attempt: number): Promise<UnwrittenFinalStatus | null> {
    assertRunId(runId);
    const note = this.runs.get(runId)?.unwritten.get(attempt);
    return note ? { ...note } : null;
  }

  async readStatus(runId: string): Promise<ReadStatusResult> {
    assertRunId(runId);
    const run = this.runs.get(runId);
    if (!run) return { kind: 'missing' };
    return { kind: 'ok', status: structuredClone(run.attempts[run.attempts.length - 1]) };
  }

  async listRuns(query: RunListQuery): Promise<RunListPage> {
    if (query.dag !== undefined) assertDagName(query.dag);
    const limit = clampLimit(query.limit);
    const after = parseCursor(query.cursor);
    const matching = [...this.runs.values()]
      .filter((run) => after === null || compareKeysDesc(run.key, after) > 0)
      .sort((a, b) => compareKeysDesc(a.key, b.key))
      .map((run) => ({ key: run.key, summary: summarizeRun(run.attempts[run.attempts.length - 1]) }))
      .filter((entry) => matchesQuery(entry.summary, query));
    const page = matching.slice(0, limit);
    return {
      items: structuredClone(page.map((entry) => entry.summary)),
      next_cursor: matching.length > limit ? page[page.length - 1].key : null,
    };
  }

  async listActive(): Promise<ActiveRun[]> {
    return [...this.active.values()]
      .sort((a, b) => (a.run_id < b.run_id ? -1 : a.run_id > b.run_id ? 1 : 0))
      .map((run) => ({ ...run }));
  }

  /** As the file store does: a new queued or running run (or attempt) is marked active as it is created. */
  private markIfLive(s: RunStatus): void {
    if (s.status === 'queued' || s.status === 'running') {
      this.active.set(s.run_id, { run_id: s.run_id, dag_name: s.dag_name, queue: s.queue });
    }
  }

  async markActive(run: ActiveRun): Promise<void> {
    assertRunId(run.run_id);
    assertDagName(run.dag_name);
    assertDagName(run.queue, 'queue name');
    this.active.set(run.run_id, { run_id: run.run_id, dag_name: run.dag_name, queue: run.queue });
  }

  async unmarkActive(runId: string): Promise<void> {
    assertRunId(runId);
    this.active.delete(runId);
  }

  async claimAttempt(runId: string, attempt: number, owner: string): Promise<boolean> {
    assertRunId(runId);
    const run = this.existingAttempt(runId, attempt);
    if (run.claims.has(attempt)) return false;
    run.claims.set(attempt, owner);
    return true;
  }

  readonly releasesClaims = true;

  async beginClaimedAttempt(status: RunStatus, owner: string): Promise<boolean> {
    assertRunId(status.run_id);
    if (this.runs.get(status.run_id)?.claims.get(status.attempt) !== owner) return false;
    await this.writeStatus(status);
    return true;
  }

  async releaseClaim(runId: string, attempt: number, owner: string): Promise<boolean> {
    assertRunId(runId);
    const run = this.runs.get(runId);
    if (run?.claims.get(attempt) !== owner || run.attempts[attempt - 1]?.status !== 'queued') return false;
    run.claims.delete(attempt);
    return true;
  }

  async readClaim(runId: string, attempt: number): Promise<string | null> {
    assertRunId(runId);
    return this.runs.get(runId)?.claims.get(attempt) ?? null;
  }

  async isClaimed(runId: string, attempt: number): Promise<boolean> {
    assertRunId(runId);
    return this.runs.get(runId)?.claims.has(attempt) ?? false;
  }

  async writeHeartbeat(runId: string, attempt: number, nowMs: number): Promise<void> {
    assertRunId(runId);
    this.existingAttempt(runId, attempt).heartbeats.set(attempt, nowMs);
  }

  async readHeartbeat(runId: string, attempt: number): Promise<number | null> {
    assertRunId(runId);
    return this.runs.get(runId)?.heartbeats.get(attempt) ?? null;
  }

  async history(dagName: string): Promise<HistoryEntry[]> {
    assertDagName(dagName);
    return [...this.runs.values()]
      .filter((run) => run.attempts[0].dag_name === dagName)
      .sort((a, b) => compareKeysDesc(a.key, b.key))
      .map((run) => ({ run_id: run.attempts[0].run_id, created_ms: createdMsOf(run.attempts[0]) }));
  }

  async deleteRun(runId: string): Promise<DeleteRunResult> {
    assertRunId(runId);
    const run = this.runs.get(runId);
    if (!run) return { deleted: false, reason: 'missing' };
    const latest = run.attempts[run.attempts.length - 1];
    if (!TERMINAL_RUN_STATES.includes(latest.status) || this.active.has(runId)) {
      return { deleted: false, reason: 'live' };
    }
    this.runs.delete(runId);
    return { deleted: true };
  }

  /** Deletion is atomic here: nothing is ever left half done. */
  async purgeDeleted(): Promise<number> {
    return 0;
  }

  logDir(dagName: string, runId: string, attempt: number): string {
    assertDagName(dagName);
    assertRunId(runId);
    if (!isAttemptNumber(attempt)) throw new RunNotFoundError(runId, attempt);
    return `/logs/${dagName}/${runId}/${attempt}`;
  }

  private existingAttempt(runId: string, attempt: number): MemoryRun {
    const run = this.runs.get(runId);
    if (!run) throw new RunNotFoundError(runId);
    if (!isAttemptNumber(attempt) || attempt > run.attempts.length) {
      throw new RunNotFoundError(runId, attempt);
    }
    return run;
  }
}
