// What the coordinator does with what workers send: heartbeats (worker presence, run liveness, cancels back),
// acknowledgements of claims, run statuses, accepted only from the worker that holds the current attempt, and
// the leave of a worker that stops cleanly.

import { relative, isAbsolute, sep } from 'node:path';
import type { Clock, Logger } from '../core/ports';
import { isoUtc } from '../core/runStatus';
import { TERMINAL_RUN_STATES, type RunStatus, type StepStatus } from '../core/types';
import { SECOND } from '../core/units';
import type { CancelRequests, DispatchStore, WorkerRecord, WorkerRegistry } from '../store/dispatchTypes';
import { parseTaskId } from '../store/distributedDir';
import type { ReadStatusResult, RunStore } from '../store/types';
import { CANCELLED_BEFORE_WORKER } from './dispatcher';
import { endedStatus } from '../core/endedStatus';
import type {
  AckRequest,
  HeartbeatRequest,
  HeartbeatResponse,
  LeaveReply,
  LeaveRequest,
  StatusReply,
  StatusReport,
} from './protocol';
import type { LogChunks } from './logChunks';
import { LOG_FILE_PATTERN } from './requestSchemas';
import { RunLocks } from './runLocks';
import { runsOwnedBy } from './workerRuns';
import type { WorkerSightings } from './workerSightings';

/** A run heartbeat is written at most this often per run, however often its worker heartbeats. */
const RUN_HEARTBEAT_MIN_GAP_MS = 1 * SECOND;
/**
 * How long the record this coordinator last wrote for a worker stands in for reading the registry (a poll's
 * registration check, the host an ack records, the registration time a heartbeat keeps). A worker heartbeats
 * every second by default, so its polls and acks find it here; only a worker silent for longer is read.
 */
export const WORKER_RECORD_REUSE_MS = 2 * SECOND;
/** Workers whose last record is remembered at most. */
const MAX_REMEMBERED_WORKERS = 10_000;

export interface WorkerReportsDeps {
  runs: RunStore;
  tasks: DispatchStore;
  workers: WorkerRegistry;
  cancels: CancelRequests;
  clock: Clock;
  logger: Logger;
  /** `paths.log_dir`: statuses record log paths relative to it. */
  logsRoot: string;
  locks?: RunLocks;
  /** Remembers each heartbeat even when the registry cannot take it (shared with the detector). */
  sightings?: WorkerSightings;
  /** Writes the logs a final status report carries; without it they are ignored (the worker ships them). */
  logs?: Pick<LogChunks, 'appendChunks'>;
}

/** The outcome of an ack; `claim_gone`/`wrong_worker` are answered 409. */
export type AckOutcome =
  | { accepted: true; status: RunStatus }
  | { accepted: false; reason: 'claim_gone' | 'wrong_worker' | 'run_gone' | 'cancelled'; error: string };

export class WorkerReports {
  private readonly locks: RunLocks;
  /** Monotonic time of the last run heartbeat written, by run ID. */
  private readonly lastRunHeartbeat = new Map<string, number>();
  /** The record this coordinator last wrote for each worker, and the monotonic time it did. */
  private readonly written = new Map<string, { record: WorkerRecord; atMono: number }>();

  constructor(private readonly d: WorkerReportsDeps) {
    this.locks = d.locks ?? new RunLocks();
  }

  /**
   * Registers or refreshes the worker, keeps its runs alive for the scheduler's reaper, and answers the runs
   * it must stop: cancelled, ended, superseded, gone, or no longer its.
   */
  async heartbeat(req: HeartbeatRequest): Promise<HeartbeatResponse> {
    const now = this.d.clock.nowMs();
    const heard: WorkerRecord = {
      worker_id: req.worker_id,
      labels: req.labels,
      max_active_runs: req.max_active_runs,
      running: req.running,
      host: req.host,
      pid: req.pid,
      registered_at_ms: now,
      last_heartbeat_ms: now,
    };
    // While the registry keeps this heartbeat waiting (a stalled database), the worker is being heard from.
    this.d.sightings?.handling(heard);
    let previous: WorkerRecord | null;
    try {
      previous = this.recentRecord(req.worker_id) ?? (await this.d.workers.get(req.worker_id));
      const record = { ...heard, registered_at_ms: previous?.registered_at_ms ?? now };
      this.written.delete(req.worker_id);
      await this.d.workers.put(record);
      this.remember(record);
      // Written late, the record says when the worker was heard; it could not heartbeat again meanwhile.
      const doneMs = this.d.clock.nowMs();
      if (doneMs > now) this.d.sightings?.saw({ ...record, last_heartbeat_ms: doneMs });
      else this.d.sightings?.forget(req.worker_id);
    } catch (err) {
      // Heard but not read or written: a registry that cannot be used must not make this worker look silent.
      this.d.sightings?.saw({ ...heard, last_heartbeat_ms: Math.max(now, this.d.clock.nowMs()) });
      throw err;
    } finally {
      this.d.sightings?.handled(req.worker_id);
    }
    if (!previous) {
      this.d.logger.info('Worker registered', {
        worker_id: req.worker_id,
        labels: req.labels,
        host: req.host,
      });
    }
    const cancel: string[] = [];
    // One read of the cancel requests for a worker running several runs, rather than one per run.
    const requested = req.running.length > 1 ? new Set(await this.d.cancels.list()) : null;
    const cancelRequested = (runId: string) =>
      requested ? Promise.resolve(requested.has(runId)) : this.d.cancels.has(runId);
    // One read of the runs, and below one write of their heartbeats, where the run store can: a worker with
    // many runs then costs a coordinator the same few statements each second as a worker with one.
    const reads =
      req.running.length > 1 && this.d.runs.readStatusesAndClaims
        ? await this.d.runs.readStatusesAndClaims(req.running.map((r) => r.run_id))
        : null;
    const beats: Array<{ run_id: string; attempt: number }> = [];
    for (const run of req.running) {
      const r = reads?.get(run.run_id)?.read ?? (await this.d.runs.readStatus(run.run_id));
      if (r.kind === 'corrupt') continue; // unreadable is not a reason to kill a run
      if (r.kind === 'missing') {
        cancel.push(run.run_id);
        continue;
      }
      const s = r.status;
      const yours = s.attempt === run.attempt && s.worker_id === req.worker_id;
      if (!yours || TERMINAL_RUN_STATES.includes(s.status) || (await cancelRequested(run.run_id))) {
        cancel.push(run.run_id);
        continue;
      }
      if (this.beatDue(s, now) !== null) beats.push({ run_id: s.run_id, attempt: s.attempt });
    }
    if (beats.length > 1 && this.d.runs.writeHeartbeats) await this.d.runs.writeHeartbeats(beats, now);
    else for (const b of beats) await this.d.runs.writeHeartbeat(b.run_id, b.attempt, now);
    if (this.lastRunHeartbeat.size > 10_000) this.lastRunHeartbeat.clear();
    return { cancel };
  }

  /**
   * A worker stopping cleanly: its record is removed so it leaves the worker list at once. While runs are
   * still its own the record stays: without it the detector would fail them at once as "not registered"
   * rather than after the stale threshold, and the retention removes the record once they are settled.
   */
  async leave(req: LeaveRequest): Promise<LeaveReply> {
    this.written.delete(req.worker_id);
    const record = await this.d.workers.get(req.worker_id);
    if (!record) return { removed: false, run_ids: [] };
    const runIds =
      (await runsOwnedBy(this.d.runs, this.d.tasks, new Set([req.worker_id]))).get(req.worker_id) ?? [];
    if (runIds.length > 0) {
      this.d.logger.info('A worker left with runs still its own; its record stays until they are settled', {
        worker_id: req.worker_id,
        run_ids: runIds,
      });
      return { removed: false, run_ids: runIds };
    }
    this.written.delete(req.worker_id);
    await this.d.workers.remove(req.worker_id);
    this.d.sightings?.forget(req.worker_id);
    this.d.logger.info('A worker left; removed its record', { worker_id: req.worker_id, host: record.host });
    return { removed: true, run_ids: [] };
  }

  /** Turns a claim into the worker's run: the run records the worker; a cancelled run is aborted instead. */
  async ack(taskId: string, req: AckRequest): Promise<AckOutcome> {
    const acked = await this.d.tasks.ack(taskId, req.worker_id, req.token);
    const earlier =
      !acked.ok && acked.reason === 'not_found' ? await this.ackedBefore(taskId, req.worker_id) : null;
    // The worker's earlier ack went through but its reply was lost: the run is already this worker's.
    if (earlier) return { accepted: true, status: earlier };
    if (!acked.ok) {
      return acked.reason === 'wrong_worker'
        ? {
            accepted: false,
            reason: 'wrong_worker',
            error: `the claim of task ${taskId} belongs to another worker`,
          }
        : {
            accepted: false,
            reason: 'claim_gone',
            error: `task ${taskId} has no claim to acknowledge (it expired, or was never made)`,
          };
    }
    const task = acked.task;
    return this.locks.with(task.run_id, async () => {
      const { read: r, cancelRequested } = await this.readWithCancel(task.run_id);
      if (r.kind !== 'ok') {
        return {
          accepted: false,
          reason: 'run_gone',
          error: `run ${task.run_id} cannot be read (${r.kind})`,
        };
      }
      const s = r.status;
      if (s.status !== 'queued' || s.attempt !== task.attempt || s.worker_id !== null) {
        return {
          accepted: false,
          reason: 'run_gone',
          error: `run ${task.run_id} no longer waits for a worker (attempt ${s.attempt} is ${s.status})`,
        };
      }
      const now = this.d.clock.nowMs();
      if (cancelRequested ?? (await this.d.cancels.has(task.run_id))) {
        // Cancelled between the claim and this ack: it ends here, never having started.
        await this.d.runs.writeStatus(endedStatus(s, 'aborted', CANCELLED_BEFORE_WORKER, isoUtc(now)));
        await this.d.runs.unmarkActive(s.run_id);
        await this.d.cancels.clear(s.run_id);
        return { accepted: false, reason: 'cancelled', error: `run ${task.run_id} was cancelled` };
      }
      const worker = this.recentRecord(req.worker_id) ?? (await this.d.workers.get(req.worker_id));
      const taken: RunStatus = { ...s, worker_id: req.worker_id, host: worker?.host ?? null, conditions: [] };
      await this.d.runs.writeStatus(taken, s, { heartbeatMs: this.beatDue(taken, now, true) ?? undefined });
      this.d.logger.info(
        task.hold_until_ms !== null ? 'A worker claimed a held run' : 'A worker took a run',
        {
          dag: s.dag_name,
          run_id: s.run_id,
          attempt: s.attempt,
          worker_id: req.worker_id,
        },
      );
      return { accepted: true, status: taken };
    });
  }

  /** Whether the worker registered (a poll from one that did not is refused). */
  async isRegistered(workerId: string): Promise<boolean> {
    return this.recentRecord(workerId) !== null || (await this.d.workers.get(workerId)) !== null;
  }

  /** The record this coordinator wrote for the worker within WORKER_RECORD_REUSE_MS, else null. */
  private recentRecord(workerId: string): WorkerRecord | null {
    const w = this.written.get(workerId);
    if (!w) return null;
    if (this.d.clock.monoMs() - w.atMono < WORKER_RECORD_REUSE_MS) return w.record;
    this.written.delete(workerId);
    return null;
  }

  private remember(record: WorkerRecord): void {
    this.written.set(record.worker_id, { record, atMono: this.d.clock.monoMs() });
    if (this.written.size > MAX_REMEMBERED_WORKERS) this.written.delete(this.written.keys().next().value!);
  }

  /** The run of `taskId` if this worker already acknowledged it (same attempt, not ended), else null. */
  private async ackedBefore(taskId: string, workerId: string): Promise<RunStatus | null> {
    const id = parseTaskId(taskId);
    if (!id) return null;
    const r = await this.d.runs.readStatus(id.runId);
    const s = r.kind === 'ok' ? r.status : null;
    return s &&
      s.attempt === id.attempt &&
      s.worker_id === workerId &&
      !TERMINAL_RUN_STATES.includes(s.status)
      ? s
      : null;
  }

  /**
   * Accepts a status from the worker that holds the run's latest attempt while it has not ended (the same
   * final status sent twice is accepted). The stored status keeps the coordinator's identity fields and
   * records log paths under the coordinator's log directory, where the worker's log chunks are written.
   */
  async reportStatus(runId: string, report: StatusReport): Promise<StatusReply> {
    if (report.status.run_id !== runId) {
      return reject(`the status names run ${report.status.run_id}, not ${runId}`);
    }
    return this.locks.with(runId, async () => {
      const { read: r, cancelRequested } = await this.readWithCancel(runId);
      if (r.kind === 'missing') return reject(`run ${runId} does not exist`);
      if (r.kind === 'corrupt')
        return { accepted: false, cancel: false, error: `run ${runId} cannot be read` };
      const s = r.status;
      const rep = report.status;
      if (rep.attempt !== s.attempt) return reject(`stale attempt: run ${runId} is at attempt ${s.attempt}`);
      if (s.worker_id !== report.worker_id) return reject(`run ${runId} is not worker ${report.worker_id}'s`);
      if (rep.dag_name !== s.dag_name) return reject(`run ${runId} belongs to DAG ${s.dag_name}`);
      // The attempt is this worker's: its logs go in first, so that the run is never seen ended without
      // them (also when this is a resend of a final status whose reply was lost: a piece already written
      // is answered as taken and not written twice).
      const logs = report.logs && this.d.logs ? { logs: await this.d.logs.appendChunks(s, report.logs) } : {};
      if (TERMINAL_RUN_STATES.includes(s.status)) {
        if (rep.status === s.status) return { accepted: true, cancel: false, ...logs };
        return reject(`run ${runId} already ended (${s.status})`);
      }
      const next = this.merge(s, rep);
      const heartbeatMs = this.beatDue(next, this.d.clock.nowMs()) ?? undefined;
      await this.d.runs.writeStatus(next, s, { heartbeatMs });
      if (TERMINAL_RUN_STATES.includes(next.status)) {
        // A store whose end writes take the run off the active list, and clear its cancel request, did so in
        // the write above.
        if (!this.d.runs.unmarksEnded) await this.d.runs.unmarkActive(runId);
        if (!this.d.runs.clearsCancelsOnEnd) await this.d.cancels.clear(runId);
        this.lastRunHeartbeat.delete(runId);
        return { accepted: true, cancel: false, ...logs };
      }
      // Where the run store read it with the status, a cancel requested after that read reaches the worker
      // with its next heartbeat's reply; else it is asked after the write, and one requested meanwhile comes
      // with this reply.
      const cancel = cancelRequested ?? (await this.d.cancels.has(runId));
      return { accepted: true, cancel, ...logs };
    });
  }

  /**
   * The run's status, and whether a cancel request waits for it where the run store reads both in one read
   * (else null: the cancel store is asked apart).
   */
  private async readWithCancel(
    runId: string,
  ): Promise<{ read: ReadStatusResult; cancelRequested: boolean | null }> {
    if (this.d.runs.readStatusAndCancel) return this.d.runs.readStatusAndCancel(runId);
    return { read: await this.d.runs.readStatus(runId), cancelRequested: null };
  }

  /** The stored status after a report: progress from the worker, identity and placement from the coordinator. */
  private merge(s: RunStatus, rep: RunStatus): RunStatus {
    const logDir = this.relativeLogDir(s);
    const relocate = (st: StepStatus): StepStatus => ({
      ...st,
      stdout: relocatedLog(st.stdout, logDir),
      stderr: relocatedLog(st.stderr, logDir),
    });
    const handlers: RunStatus['handlers'] = {};
    for (const [k, v] of Object.entries(rep.handlers) as Array<[keyof RunStatus['handlers'], StepStatus]>) {
      handlers[k] = relocate(v);
    }
    return {
      ...s,
      status: rep.status,
      started_at: rep.started_at,
      finished_at: rep.finished_at,
      pid: rep.pid,
      error: rep.error,
      steps: rep.steps.map(relocate),
      handlers,
      conditions: rep.status === 'queued' ? rep.conditions : [],
      log_dir: logDir,
    };
  }

  /** The attempt's log directory relative to the logs root, as `RunStatus.log_dir` records it. */
  private relativeLogDir(s: RunStatus): string {
    const absolute = this.d.runs.logDir(s.dag_name, s.run_id, s.attempt);
    const rel = relative(this.d.logsRoot, absolute);
    // A store that keeps logs outside the logs root gets its absolute path recorded rather than `../..`.
    return rel.startsWith('..') || isAbsolute(rel) ? absolute : rel.split(sep).join('/');
  }

  /**
   * The run heartbeat the scheduler's reaper reads, due at most once a second per run: `nowMs` when the
   * status write about to be made should carry it (noted as written), else null.
   */
  private beatDue(s: RunStatus, nowMs: number, force = false): number | null {
    if (s.status !== 'running' && s.status !== 'queued') return null;
    const mono = this.d.clock.monoMs();
    const last = this.lastRunHeartbeat.get(s.run_id);
    if (!force && last !== undefined && mono - last < RUN_HEARTBEAT_MIN_GAP_MS) return null;
    this.lastRunHeartbeat.set(s.run_id, mono);
    return nowMs;
  }
}

function reject(error: string): StatusReply {
  return { accepted: false, cancel: true, error };
}

/** `<logDir>/<file name>` of a worker-side log path; null when it has no usable file name. */
function relocatedLog(workerPath: string | null, logDir: string): string | null {
  if (workerPath === null) return null;
  const name = workerPath.split(/[\\/]/).pop() ?? '';
  if (!LOG_FILE_PATTERN.test(name) || name === '.' || name === '..') return null;
  return logDir.endsWith('/') ? `${logDir}${name}` : `${logDir}/${name}`;
}
