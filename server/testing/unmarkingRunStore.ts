// A memory run store that behaves, at the end of a run, as the PostgreSQL one does.

import path from 'node:path';
import type { RunStatus } from '../core/types';
import { MemoryRunStore } from '../store/memoryRunStore';

/**
 * A memory store whose end writes take the run off the active list, as PostgreSQL's do; it counts the
 * unmarks asked of it. With `logRoot`, its log folders are real ones under that folder.
 */
export class UnmarkingRunStore extends MemoryRunStore {
  override readonly unmarksEnded = true;
  unmarkCalls = 0;

  constructor(private readonly logRoot?: string) {
    super();
  }

  override async writeStatus(status: RunStatus): Promise<void> {
    await super.writeStatus(status);
    if (status.status !== 'queued' && status.status !== 'running') await super.unmarkActive(status.run_id);
  }

  override async unmarkActive(runId: string): Promise<void> {
    this.unmarkCalls++;
    return super.unmarkActive(runId);
  }

  override logDir(dagName: string, runId: string, attempt: number): string {
    if (this.logRoot === undefined) return super.logDir(dagName, runId, attempt);
    return path.join(this.logRoot, dagName, runId, String(attempt));
  }
}
