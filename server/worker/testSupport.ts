// Helpers for the worker's tests: an in-memory coordinator that implements the client's operations the way
// the real one answers, and a task builder. Not used by production code.

import { loadConfig } from '../config/loadConfig';
import type { Config } from '../config/types';
import type { DagSpec, RunStatus } from '../core/types';
import type {
  AckRequest,
  AckResponse,
  DispatchReply,
  DispatchRequest,
  HeartbeatRequest,
  HeartbeatResponse,
  LeaveReply,
  LeaveRequest,
  LogBatch,
  LogChunk,
  LogReply,
  ArtifactReply,
  ArtifactRequest,
  PollRequest,
  StateReply,
  StateRequest,
  StatusReply,
  StatusReport,
  WorkerView,
} from '../coordinator/protocol';
import type { DispatchTask } from '../store/dispatchTypes';
import { WorkerArtifacts } from '../coordinator/workerArtifacts';
import { WorkerState } from '../coordinator/workerState';
import { MemoryArtifactStore } from '../store/artifactStore';
import { MemoryStateStore } from '../store/memoryStateStore';
import {
  CoordinatorError,
  CoordinatorUnreachableError,
  type CancelReply,
  type CoordinatorApi,
} from './coordinatorClient';

/** A coordinator in memory: records every request and answers like the real one unless told otherwise. */
export class FakeCoordinator implements CoordinatorApi {
  readonly url = 'http://coordinator.test';
  /** Every request in order, as `<operation>:<detail>` (e.g. `ack:<task id>`, `status:running`, `log:a.out`). */
  readonly calls: string[] = [];
  readonly heartbeats: HeartbeatRequest[] = [];
  readonly acks: Array<{ taskId: string; req: AckRequest }> = [];
  readonly statuses: RunStatus[] = [];
  readonly logChunks: LogChunk[] = [];
  /** Bytes held per `<run id>/<file>`. */
  readonly logs = new Map<string, Buffer>();
  readonly runs = new Map<string, RunStatus>();
  readonly dispatches: DispatchRequest[] = [];
  readonly cancels: string[] = [];
  /** False: log batches are refused 400, as a coordinator older than them does. */
  acceptsLogBatches = true;
  /** False: as a coordinator older than `StatusReport.logs`, it ignores them (and answers without `logs`). */
  acceptsStatusLogs = true;
  /** While true every operation fails as a network error would. */
  unreachable = false;
  /** While true every operation waits for ever, as a coordinator behind a dropped route would. */
  silent = false;
  /** When set, heartbeats are answered with this error (a coordinator whose store is down). */
  heartbeatError: Error | null = null;
  readonly leaves: LeaveRequest[] = [];
  leaveReply: (req: LeaveRequest) => LeaveReply = () => ({ removed: true, run_ids: [] });
  /** Run IDs the next heartbeat replies tell the worker to stop. */
  cancelOnHeartbeat: string[] = [];
  ackReply: (taskId: string, req: AckRequest) => AckResponse = () => ({ accepted: true });
  statusReply: (report: StatusReport) => StatusReply = () => ({ accepted: true, cancel: false });
  dispatchReply: (req: DispatchRequest) => DispatchReply = (req) => ({
    outcome: 'dispatched',
    run_id: req.run_id,
  });
  private readonly tasks: DispatchTask[] = [];
  private readonly polls: Array<(task: DispatchTask | null) => void> = [];
  private readonly changeListeners: Array<() => void> = [];

  /** Polls waiting for a task right now. */
  get openPolls(): number {
    return this.polls.length;
  }

  /** Hands a task to the oldest waiting poll, or to the next one. */
  pushTask(task: DispatchTask): void {
    const waiting = this.polls.shift();
    if (waiting) waiting(task);
    else this.tasks.push(task);
  }

  /** The log text the coordinator holds for a run's file. */
  logText(runId: string, file: string): string {
    return (this.logs.get(`${runId}/${file}`) ?? Buffer.alloc(0)).toString('utf8');
  }

  /** Resolves once `check` holds after some request (or at once). */
  async until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline)
        throw new Error(`condition not met; calls: ${this.calls.slice(-20).join(', ')}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 20);
        this.changeListeners.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  async health() {
    this.record('health');
    return { status: 'healthy' };
  }

  async heartbeat(req: HeartbeatRequest): Promise<HeartbeatResponse> {
    await this.answer('heartbeat');
    if (this.heartbeatError) throw this.heartbeatError;
    this.heartbeats.push(structuredClone(req));
    const cancel = this.cancelOnHeartbeat;
    this.cancelOnHeartbeat = [];
    return { cancel };
  }

  async leave(req: LeaveRequest): Promise<LeaveReply> {
    await this.answer('leave');
    this.leaves.push(structuredClone(req));
    return this.leaveReply(req);
  }

  poll(_req: PollRequest, signal?: AbortSignal): Promise<DispatchTask | null> {
    this.record('poll');
    const task = this.tasks.shift();
    if (task) return Promise.resolve(task);
    return new Promise((resolve) => {
      const waiter = (t: DispatchTask | null) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(t);
      };
      const onAbort = () => {
        const i = this.polls.indexOf(waiter);
        if (i >= 0) this.polls.splice(i, 1);
        resolve(null);
      };
      this.polls.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  async ack(taskId: string, req: AckRequest): Promise<AckResponse> {
    this.record(`ack:${taskId}`);
    this.acks.push({ taskId, req });
    return this.ackReply(taskId, req);
  }

  async reportStatus(runId: string, report: StatusReport): Promise<StatusReply> {
    const inline = report.logs && this.acceptsStatusLogs ? report.logs : null;
    this.record(
      `status:${report.status.status}${inline ? `+logs:${inline.map((c) => c.file).join(',')}` : ''}`,
    );
    const reply = this.statusReply(report);
    if (reply.accepted) {
      // As the coordinator: the logs are written before the status.
      const logs = inline?.map((c) => {
        const chunk = { worker_id: report.worker_id, attempt: report.status.attempt, ...c };
        this.logChunks.push(chunk);
        return this.hold(runId, chunk);
      });
      this.statuses.push(structuredClone(report.status));
      this.runs.set(runId, structuredClone(report.status));
      this.changed();
      return logs ? { ...reply, logs } : reply;
    }
    this.changed();
    return reply;
  }

  async sendLog(runId: string, chunk: LogChunk): Promise<LogReply> {
    this.record(`log:${chunk.file}`);
    this.logChunks.push(chunk);
    return this.hold(runId, chunk);
  }

  /** Takes a chunk as the coordinator does: only at the end of what it holds of the file. */
  private hold(runId: string, chunk: LogChunk): LogReply {
    const key = `${runId}/${chunk.file}`;
    const held = this.logs.get(key) ?? Buffer.alloc(0);
    if (chunk.offset !== held.length) return { accepted: false, next_offset: held.length };
    const data = Buffer.from(chunk.data, chunk.encoding);
    const next = Buffer.concat([held, data]);
    this.logs.set(key, next);
    return { accepted: true, next_offset: next.length };
  }

  async sendLogs(runId: string, batch: LogBatch): Promise<LogReply[]> {
    this.record(`logs:${batch.chunks.map((c) => c.file).join(',')}`);
    if (!this.acceptsLogBatches)
      throw new CoordinatorError(400, 'bad_request', 'file: expected string, received undefined');
    const replies: LogReply[] = [];
    for (const c of batch.chunks) {
      const chunk = { worker_id: batch.worker_id, attempt: batch.attempt, ...c };
      this.logChunks.push(chunk);
      replies.push(this.hold(runId, chunk));
    }
    return replies;
  }

  /** The state store behind `state` (the coordinator's, in memory). */
  readonly stateStore = new MemoryStateStore();

  /** As the real coordinator: the operation on its store, for a run it holds as the asker's, running. */
  async state(runId: string, req: StateRequest): Promise<StateReply> {
    this.record(`state:${req.op}`);
    // A run the test did not place is taken to be the asker's running attempt.
    const held =
      this.runs.get(runId) ??
      ({ run_id: runId, attempt: req.attempt, worker_id: req.worker_id, status: 'running' } as RunStatus);
    const reply = await new WorkerState({
      runs: { readStatus: async () => ({ kind: 'ok', status: held }) },
      state: this.stateStore,
    }).handle(runId, req);
    if ('refused' in reply) throw new CoordinatorError(reply.status, reply.code, reply.error);
    return reply;
  }

  /** The artifact store behind `artifacts` (the coordinator's backend store, in memory). */
  readonly artifactStore = new MemoryArtifactStore();

  /** As the real coordinator: the operation on its store, for a run it holds as the asker's, running. */
  async artifacts(runId: string, req: ArtifactRequest): Promise<ArtifactReply> {
    this.record(`artifacts:${req.op}`);
    const held =
      this.runs.get(runId) ??
      ({ run_id: runId, attempt: req.attempt, worker_id: req.worker_id, status: 'running' } as RunStatus);
    const reply = await new WorkerArtifacts({
      runs: { readStatus: async () => ({ kind: 'ok', status: held }) },
      artifacts: this.artifactStore,
    }).handle(runId, req);
    if ('refused' in reply) throw new CoordinatorError(reply.status, reply.code, reply.error);
    return reply;
  }

  async getRun(runId: string): Promise<RunStatus | null> {
    this.record(`getRun:${runId}`);
    return this.runs.get(runId) ?? null;
  }

  async cancel(runId: string): Promise<CancelReply | null> {
    this.record(`cancel:${runId}`);
    this.cancels.push(runId);
    const status = this.runs.get(runId) ?? null;
    return { cancelled: status !== null, status };
  }

  async dispatch(req: DispatchRequest): Promise<DispatchReply> {
    this.record(`dispatch:${req.run_id}`);
    this.dispatches.push(req);
    return this.dispatchReply(req);
  }

  async listWorkers(): Promise<WorkerView[]> {
    this.record('listWorkers');
    return [];
  }

  /** Records the call; while `silent`, never answers it. */
  private answer(call: string): Promise<void> {
    if (!this.silent) {
      this.record(call);
      return Promise.resolve();
    }
    this.calls.push(`${call}…`);
    this.changed();
    return new Promise(() => {});
  }

  private record(call: string): void {
    if (this.unreachable) {
      this.calls.push(`${call}!`);
      this.changed();
      throw new CoordinatorUnreachableError(this.url, `coordinator at ${this.url} unreachable: ECONNREFUSED`);
    }
    this.calls.push(call);
    this.changed();
  }

  private changed(): void {
    for (const l of this.changeListeners.splice(0)) l();
  }
}

/** A claimed task of `dag` (start of attempt 1 unless `extra` says otherwise). */
export function taskOf(dag: DagSpec, extra: Partial<DispatchTask> = {}): DispatchTask {
  const runId = extra.run_id ?? 'run-1';
  const attempt = extra.attempt ?? 1;
  return {
    version: 1,
    task_id: `1700000000000-${runId}-${attempt}`,
    run_id: runId,
    dag_name: dag.name,
    attempt,
    operation: 'start',
    trigger_type: 'manual',
    worker_selector: {},
    dag,
    params: [],
    schedule_time: null,
    previous: null,
    parent: null,
    enqueued_at_ms: 1_700_000_000_000,
    hold_until_ms: null,
    wait_ms: null,
    claim: { worker_id: 'w1', token: 'tok-1', claimed_at_ms: 1_700_000_000_000 },
    ...extra,
  };
}

/** The default configuration for a DAGU_HOME of `home` (nothing is read from the environment). */
export function workerConfig(home: string, worker: Partial<Config['worker']> = {}): Config {
  const config = loadConfig({ home, env: { NODE_ENV: 'test' } });
  Object.assign(config.worker, worker);
  return config;
}
