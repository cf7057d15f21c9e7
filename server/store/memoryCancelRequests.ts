// In-memory CancelRequests with the behaviour of FileCancelRequests (same validation and order), for tests.

import { assertRunId } from '../core/names';
import type { CancelRequests } from './dispatchTypes';

/** CancelRequests kept in memory. */
export class MemoryCancelRequests implements CancelRequests {
  private readonly requested = new Map<string, number>();

  /** Records the request; asking again keeps the first request. */
  async request(runId: string, nowMs: number): Promise<void> {
    assertRunId(runId);
    if (!this.requested.has(runId)) this.requested.set(runId, nowMs);
  }

  async has(runId: string): Promise<boolean> {
    assertRunId(runId);
    return this.requested.has(runId);
  }

  /** Run IDs with a request, sorted. */
  async list(): Promise<string[]> {
    return [...this.requested.keys()].sort();
  }

  async clear(runId: string): Promise<void> {
    assertRunId(runId);
    this.requested.delete(runId);
  }
}
