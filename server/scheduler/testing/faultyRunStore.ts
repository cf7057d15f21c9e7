// A MemoryRunStore that can misbehave the way the file store can on shared storage, for the scheduling loops'
// unit tests: a create that fails, a run directory left without a status, a corrupt status, a status that
// cannot be written, a racing writer.

import type { RunStatus } from '../../core/types';
import { MemoryRunStore } from '../../store/memoryRunStore';
import type { CreateRunResult, ReadStatusResult, RunListPage, RunListQuery } from '../../store/types';

export class FaultyRunStore extends MemoryRunStore {
  /** Every createRun call, by run ID, including those that failed or found the run existing. */
  readonly createCalls: string[] = [];
  /** createRun throws for these run IDs (an EIO on the run directory). */
  readonly failCreate = new Set<string>();
  /** Run directories that exist without a status file: their creator died between mkdir and the write. */
  readonly halfCreated = new Set<string>();
  /** Runs whose status file cannot be parsed. */
  readonly corrupt = new Set<string>();
  /** Runs whose directory is long abandoned without a status (readStatus: corrupt, incomplete). */
  readonly incomplete = new Set<string>();
  /** writeStatus throws this error code for these run IDs (a full disk: ENOSPC). */
  readonly failWrites = new Map<string, string>();
  /** Runs missing from the run list: their creator died after the status, before the list entries. */
  readonly unindexed = new Set<string>();
  /** How many of the next listActive calls throw (the active markers cannot be read). */
  failListActive = 0;
  /** Runs before each heartbeat read: where another process can change the run meanwhile. */
  onReadHeartbeat: ((runId: string) => Promise<void>) | null = null;

  override async createRun(initial: RunStatus): Promise<CreateRunResult> {
    this.createCalls.push(initial.run_id);
    if (this.failCreate.has(initial.run_id)) throw new Error(`EIO: cannot create run ${initial.run_id}`);
    if (this.halfCreated.has(initial.run_id)) return { created: false, reason: 'exists' };
    return super.createRun(initial);
  }

  override async completeRun(initial: RunStatus): Promise<boolean> {
    if (!this.halfCreated.delete(initial.run_id)) return super.completeRun(initial);
    const created = await super.createRun(initial);
    return created.created;
  }

  override async ensureIndexed(status: RunStatus): Promise<void> {
    await super.ensureIndexed(status);
    this.unindexed.delete(status.run_id);
  }

  override async listRuns(query: RunListQuery): Promise<RunListPage> {
    const page = await super.listRuns(query);
    return { ...page, items: page.items.filter((r) => !this.unindexed.has(r.run_id)) };
  }

  override async listActive(): Promise<Array<{ run_id: string; dag_name: string; queue: string }>> {
    if (this.failListActive > 0) {
      this.failListActive--;
      throw new Error('EIO: cannot list the active runs');
    }
    return super.listActive();
  }

  override async readStatus(runId: string): Promise<ReadStatusResult> {
    if (this.halfCreated.has(runId)) return { kind: 'missing' };
    if (this.incomplete.has(runId))
      return {
        kind: 'corrupt',
        error:
          'attempt 1 has no status file: the process that created it probably crashed before writing its status',
        path: `/data/runs/${runId}/attempts/1`,
        incomplete: true,
      };
    if (this.corrupt.has(runId))
      return {
        kind: 'corrupt',
        error: 'Unexpected end of JSON input',
        path: `/data/runs/${runId}/status.json`,
      };
    return super.readStatus(runId);
  }

  override async writeStatus(status: RunStatus): Promise<void> {
    const code = this.failWrites.get(status.run_id);
    if (code !== undefined) throw Object.assign(new Error(`${code}: cannot write the status`), { code });
    return super.writeStatus(status);
  }

  override async readHeartbeat(runId: string, attempt: number): Promise<number | null> {
    await this.onReadHeartbeat?.(runId);
    return super.readHeartbeat(runId, attempt);
  }

  /** How many times a create of `runId` was attempted. */
  createsOf(runId: string): number {
    return this.createCalls.filter((id) => id === runId).length;
  }
}
