// "Run now": starts a DAG run as a detached `dagu start` process (its own session, so it outlives the server)
// and waits briefly for its record so the console can show it at once. A DAG that runs on workers goes to
// the dispatcher instead, which records the run and hands it to a worker (or holds it until one matches).

import { randomHex } from '../store/randomHex';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { isDistributed, newRunDispatch } from '../core/dispatcherApi';
import { NO_COORDINATORS, type WaitReason } from '../core/distributed';
import { parseParamArgs, resolveRunParams } from '../core/params';
import { newRunId } from '../core/runId';
import type { RunStatus } from '../core/types';
import { SECOND } from '../core/units';
import { DispatchConflictError, DispatchFailedError } from '../coordinator/errors';
import { checkSchemaParams } from '../runner/schemaParams';
import { HttpError } from '../core/httpError';
import { BadRequestError, ConflictError } from './errors';
import { recordEvent } from './recordEvent';
import { requireDag } from './requireDag';
import type { Services } from './services';

/**
 * What `startDag` knows: the run ID and how the run was started. `started`: a run process on this host
 * (its status once the process wrote it); `dispatched`: a task waits for the first matching worker to poll;
 * `held`: no healthy worker matches yet, the run waits `queued` for one (see its conditions).
 */
export interface StartResult {
  run_id: string;
  dag_name: string;
  outcome: 'started' | 'dispatched' | 'held';
  /** The local run process; null for a run handed to the workers. */
  pid: number | null;
  /** Null when the run process had not written its record within the wait. */
  status: RunStatus | null;
  /** Where the local run process's own output goes (useful when it fails before writing a record). */
  process_log: string | null;
}

/** Thrown when a DAG that runs on workers cannot be handed to one now and waiting is off (409 `no_worker`). */
export class NoWorkerError extends HttpError {
  constructor(message: string) {
    super(409, 'no_worker', message);
    this.name = 'NoWorkerError';
  }
}

/**
 * Thrown when a run of a DAG that runs on workers is asked for while no coordinator has been seen alive
 * (409 `no_coordinator`, `no coordinators available`): nothing is recorded.
 */
export class NoCoordinatorError extends HttpError {
  constructor(message = NO_COORDINATORS) {
    super(409, 'no_coordinator', message);
    this.name = 'NoCoordinatorError';
  }
}

/** The API error of a dispatch the dispatcher refused. */
export function refusalError(refused: { reason: WaitReason; error: string }): HttpError {
  return refused.reason === 'NoAvailableCoordinator'
    ? new NoCoordinatorError(refused.error)
    : new NoWorkerError(refused.error);
}

export interface StartOptions {
  /** How long to wait for the run record (default 2 s). */
  waitMs?: number;
  /** Poll interval while waiting (default 50 ms). */
  pollMs?: number;
  /**
   * `dagu start --no-reuse`: a build DAG's steps execute even where a committed output matches (the run's
   * record keeps `no_reuse`). Harmless for other DAGs.
   */
  noReuse?: boolean;
}

export async function startDag(
  svc: Services,
  dagName: string,
  params: readonly string[],
  opts: StartOptions = {},
): Promise<StartResult> {
  const dag = await requireDag(svc, dagName);
  // Params the DAG refuses are refused here, before a run process or a dispatch records anything.
  const resolved = resolveRunParams(dag.params, parseParamArgs(params), dag.param_schema);
  if (!resolved.ok) throw new BadRequestError(`DAG ${dag.name}: ${resolved.error}`);
  if (dag.param_schema) {
    const checked = await checkSchemaParams(dag, dag.param_schema, resolved.list);
    if (!checked.ok) throw new BadRequestError(`DAG ${dag.name}: ${checked.error}`);
  }
  const runId = newRunId(svc.clock.nowMs(), randomHex(4));
  if (isDistributed(dag, svc.config.default_execution_mode)) {
    const result = await svc.dispatcher
      .dispatch(newRunDispatch(dag, runId, { params: resolved.list }))
      .catch(dispatchError);
    if (result.outcome === 'refused') throw refusalError(result);
    svc.logger.info('Run handed to the workers', { dag: dag.name, run_id: runId, outcome: result.outcome });
    return {
      run_id: runId,
      dag_name: dag.name,
      outcome: result.outcome,
      pid: null,
      status: result.status,
      process_log: null,
    };
  }
  // Same place the scheduler uses: beside the first attempt's step logs.
  const processLog = path.join(svc.runs.logDir(dag.name, runId, 1), 'process.log');
  const args = ['start', '--quiet', '--run-id', runId, '--trigger-type', 'manual'];
  if (opts.noReuse) args.push('--no-reuse');
  args.push(dag.name);
  if (params.length > 0) args.push('--', ...params);
  const pid = await svc.startProcess(args, processLog);
  await recordEvent(svc, 'run:start_requested', { run_id: runId, dag: dag.name, pid });
  svc.logger.info('Run started', { dag: dag.name, run_id: runId, pid });
  const status = await waitForRecord(svc, runId, opts.waitMs ?? 2 * SECOND, opts.pollMs ?? 50);
  return { run_id: runId, dag_name: dag.name, outcome: 'started', pid, status, process_log: processLog };
}

/**
 * The dispatcher's errors as API errors: the task could not be stored (the run was written `failed`), or the
 * run ID is taken.
 */
export function dispatchError(err: unknown): never {
  if (err instanceof DispatchFailedError) throw new HttpError(500, 'dispatch_failed', err.message);
  if (err instanceof DispatchConflictError) throw new ConflictError(err.message);
  throw err;
}

/** bin/dagu sets DAGU_EXECUTABLE to itself; code run outside it (tests, benches) falls back to the project's. */
export function daguExecutable(env: NodeJS.ProcessEnv): string {
  if (env.DAGU_EXECUTABLE) return env.DAGU_EXECUTABLE;
  const root = env.DAGU_PROJECT_ROOT ?? process.cwd();
  const candidate = path.join(root, 'bin', 'dagu');
  if (!existsSync(candidate)) throw new Error(`cannot find the dagu executable (set DAGU_EXECUTABLE)`);
  return candidate;
}

async function waitForRecord(
  svc: Services,
  runId: string,
  waitMs: number,
  pollMs: number,
): Promise<RunStatus | null> {
  const deadline = svc.clock.monoMs() + waitMs;
  for (;;) {
    const read = await svc.runs.readStatus(runId);
    if (read.kind === 'ok') return read.status;
    if (svc.clock.monoMs() >= deadline) return null;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
