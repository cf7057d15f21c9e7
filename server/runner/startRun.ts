// `dagu start`: creates a run (or takes over a queued one) and executes it in this process.

import { hostname } from 'node:os';
import { claimOwnerText } from '../core/claimOwner';
import { assertRunId } from '../core/names';
import { readParamList, paramList, resolveRunParams } from '../core/params';
import { newRunStatus } from '../core/runStatus';
import type { ParamSpec, RunStatus, TriggerType } from '../core/types';
import { beginClaimedRun } from './beginClaimedRun';
import { RunConflictError } from './errors';
import { finalStatusRetryMs } from './finalStatusBudget';
import { attemptLogDir, dagLogRoot, runAttempt, type AttemptContext } from './runAttempt';
import { isoNow } from './runStep';

/** Inputs of `dagu start`. */
export interface StartRunOptions extends AttemptContext {
  /** An existing queued run (from the queue or the scheduler) or a fresh slot ID; a new ID when absent. */
  runId?: string;
  triggerType: TriggerType;
  scheduleTime: string | null;
  /**
   * The caller's params, laid over the DAG's by Dagu's rule (core/params.ts resolveRunParams); ignored when
   * taking over a queued run, which has its params.
   */
  params: readonly ParamSpec[];
  /** Instead of `params`: the resolved list of an earlier run (a restart), taken as it is. */
  recordParams?: readonly string[];
  newRunId: () => string;
  /** The DAG's file when it runs under another name (`dagu start -N`); kept on the record as `dag_file`. */
  dagFile?: string | null;
  /** The directory `--default-working-dir` gave the DAG (already in `dag.working_dir`), kept on the record. */
  defaultWorkingDir?: string | null;
  /** The caller's params as one JSON text (RunStatus.params_json), with `params` read from it. */
  paramsJson?: string | null;
  /** `--no-reuse`: a build DAG's steps execute even where a committed output matches (RunStatus.no_reuse). */
  noReuse?: boolean;
}

/** Thrown when the caller's params are refused (unknown name, too many positional values, a failed check). */
export class ParamsRejectedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ParamsRejectedError';
  }
}

/** The params a new run's record starts with; throws ParamsRejectedError when the caller's are refused. */
export function newRunParams(o: Pick<StartRunOptions, 'dag' | 'params' | 'recordParams'>): string[] {
  if (o.recordParams !== undefined) return paramList(readParamList(o.dag.params, o.recordParams));
  const resolved = resolveRunParams(o.dag.params, o.params, o.dag.param_schema);
  if (!resolved.ok) throw new ParamsRejectedError(resolved.error);
  return resolved.list;
}

/**
 * Runs the DAG once and returns the final status. A queued run with `runId` is taken over (same attempt);
 * throws RunConflictError if `runId` belongs to a run in any other state, and ParamsRejectedError (before
 * anything is recorded) for refused params. Never exits the process.
 */
export async function startRun(opts: StartRunOptions): Promise<RunStatus> {
  const runId = assertRunId(opts.runId ?? opts.newRunId());
  // The scheduler may offer one queued run twice (a slow start looks like a failed one): exactly one
  // process claims it, the other stops here without touching it.
  const owner = claimOwnerText(hostname(), process.pid, opts.clock.nowMs());
  const existing = opts.runId !== undefined ? await readAndClaim(opts.runStore, runId, owner) : null;
  // A queued run keeps the directory `enqueue --default-working-dir` gave it, for a DAG that sets none.
  const own = existing?.default_working_dir;
  const o = own && !opts.dag.working_dir ? { ...opts, dag: { ...opts.dag, working_dir: own } } : opts;

  if (existing !== null) {
    const queued = existing;
    const logDir = attemptLogDir(
      o.runStore,
      o.config,
      queued.dag_name,
      runId,
      queued.attempt,
      dagLogRoot(o.dag, o.config, o.env),
    );
    // Same attempt, same params, trigger and slot; executeRun sets it running and writes it at once,
    // which is what the queue consumer waits for before it removes the queue item.
    const status: RunStatus = { ...queued, status: 'running', conditions: [], log_dir: logDir.relative };
    if (!o.runStore.releasesClaims) return runAttempt(o, status, logDir.absolute);
    // Where a claim can be given back, nothing runs before the start is recorded under the claim.
    await beginClaimedRun(
      { ...o, budgetMs: finalStatusRetryMs(o.config) },
      { ...status, pid: process.pid, host: hostname(), started_at: isoNow(o.clock) },
      owner,
    );
    return runAttempt(o, status, logDir.absolute, { markedActive: true });
  }

  const params = newRunParams(o);
  const logDir = attemptLogDir(
    o.runStore,
    o.config,
    o.dag.name,
    runId,
    1,
    dagLogRoot(o.dag, o.config, o.env),
  );
  const status = newRunStatus({
    dag: o.dag,
    runId,
    status: 'running',
    triggerType: o.triggerType,
    scheduleTime: o.scheduleTime,
    params,
    nowIso: isoNow(o.clock),
    logDir: logDir.relative,
    paramsJson: o.recordParams === undefined ? o.paramsJson : null,
    noReuse: o.noReuse,
  });
  // The first record already names this process, so a run killed before its first step is still
  // recognisable (pid, host) when the scheduler marks it failed.
  Object.assign(status, { pid: process.pid, host: hostname(), started_at: status.created_at });
  if (o.dagFile) status.dag_file = o.dagFile;
  if (o.defaultWorkingDir) status.default_working_dir = o.defaultWorkingDir;
  const created = await o.runStore.createRun(status);
  if (!created.created) {
    const now = await o.runStore.readStatus(runId);
    throw new RunConflictError(runId, now.kind === 'ok' ? now.status.status : 'unknown');
  }
  return runAttempt(o, status, logDir.absolute, { markedActive: true });
}

/**
 * The queued run `runId` claimed for `owner`, or null when there is no such run (a new run of that ID is
 * made). Throws RunConflictError when the run is not queued, or another process claimed it.
 */
async function readAndClaim(
  store: StartRunOptions['runStore'],
  runId: string,
  owner: string,
): Promise<RunStatus | null> {
  // One step where the store can: a run process's first read and its claim are one statement there.
  if (store.claimQueued) {
    const r = await store.claimQueued(runId, owner);
    if (r.kind === 'missing') return null;
    if (r.status.status !== 'queued') throw new RunConflictError(runId, r.status.status);
    if (!r.claimed) throw new RunConflictError(runId, 'claimed');
    return r.status;
  }
  const existing = await store.readStatus(runId);
  if (existing.kind === 'missing') return null;
  if (existing.kind === 'corrupt') throw new RunConflictError(runId, 'corrupt', existing.error);
  const queued = existing.status;
  if (queued.status !== 'queued') throw new RunConflictError(runId, queued.status);
  if (!(await store.claimAttempt(runId, queued.attempt, owner))) throw new RunConflictError(runId, 'claimed');
  return queued;
}
