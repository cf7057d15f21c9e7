// Queue operations: enqueue a DAG run and dequeue a queued run (the queue view is in queueListing.ts).

import { renamedDag } from '../core/dag/dagName';
import { isDistributed } from '../core/dispatcherApi';
import { errorCode } from '../store/fsutil';
import { randomHex } from '../store/randomHex';
import { assertDagName, assertRunId } from '../core/names';
import { parseParamArgs, rawJsonParams, resolveRunParams } from '../core/params';
import { withExtraLabels } from '../core/runLabels';
import { newRunId } from '../core/runId';
import { isoUtc, newRunStatus } from '../core/runStatus';
import type { RunStatus, TriggerType } from '../core/types';
import { HttpError } from '../core/httpError';
import { BadRequestError, ConflictError } from './errors';
import { recordEvent } from './recordEvent';
import { requireDag } from './requireDag';
import { getRun } from './runs';
import { NoCoordinatorError } from './startDag';
import { availabilityNow } from './waitingNow';
import type { Services } from './services';

export interface EnqueueOptions {
  runId?: string;
  triggerType?: TriggerType;
  /** RFC 3339 UTC slot time, for catch-up runs. */
  scheduleTime?: string | null;
  /**
   * Dagu's `enqueue -N`: queue the run under this name; its record keeps the DAG's file (`dag_file`) for the
   * scheduler to start it from.
   */
  name?: string;
  /** Dagu's `enqueue -u/--queue`: this queue instead of the DAG's. */
  queue?: string;
  /** The caller's params as one JSON text when `params` were read from it (RunStatus.params_json). */
  paramsJson?: string | null;
  /**
   * Dagu's `enqueue --default-working-dir` (absolute): kept on the record, the run works there when it starts
   * if its DAG then sets no working_dir.
   */
  defaultWorkingDir?: string;
  /**
   * Dagu's `enqueue --labels`: labels (`key` or `key=value`, already read by core/runLabels.ts) the run gets
   * besides its DAG's, kept on its record.
   */
  labels?: readonly string[];
  /**
   * Dagu's `enqueue --no-reuse`: a build DAG's steps execute even where a committed output matches, when the
   * run starts (kept on its record as `no_reuse`). Harmless for other DAGs.
   */
  noReuse?: boolean;
}

/** Text of the error `enqueue` fails with when queues are turned off. */
export const QUEUES_DISABLED = 'queues are disabled (queues.enabled: false)';

/**
 * Records a run as `queued` and puts it in its DAG's queue; the active scheduler starts it when the queue
 * has room. The run record comes first so a queue item never points at nothing. Its params are the DAG's
 * with the caller's laid over them (each word a value or `NAME=value`, or one JSON object/array word); params
 * the DAG refuses are a BadRequestError and nothing is recorded.
 */
export async function enqueueDag(
  svc: Services,
  dagName: string,
  params: readonly string[],
  opts: EnqueueOptions = {},
): Promise<RunStatus> {
  if (!svc.config.queues.enabled) throw new ConflictError(QUEUES_DISABLED);
  const own = await requireDag(svc, dagName);
  const named = opts.name !== undefined ? renamedDag(own, assertDagName(opts.name)) : own;
  const queued =
    opts.queue !== undefined ? { ...named, queue: assertDagName(opts.queue, 'queue name') } : named;
  const dag = withExtraLabels(queued, opts.labels ?? []);
  if (opts.name !== undefined && isDistributed(dag, svc.config.default_execution_mode))
    throw new BadRequestError(`a name override is not supported for DAG ${own.name}, which runs on workers`);
  const resolved = resolveRunParams(dag.params, parseParamArgs(params), dag.param_schema);
  if (!resolved.ok) throw new BadRequestError(`DAG ${dag.name}: ${resolved.error}`);
  // A run for the workers is refused at once while no coordinator is alive, as a start is: its caller is
  // there to read why, and nothing is recorded. (A scheduled slot is held instead: see decideDispatch.)
  if (isDistributed(dag, svc.config.default_execution_mode) && !(await availabilityNow(svc)).available) {
    throw new NoCoordinatorError();
  }
  const nowMs = svc.clock.nowMs();
  const runId = opts.runId !== undefined ? assertRunId(opts.runId) : newRunId(nowMs, randomHex(4));
  const now = isoUtc(nowMs);
  const status = newRunStatus({
    dag,
    runId,
    status: 'queued',
    triggerType: opts.triggerType ?? 'manual',
    scheduleTime: opts.scheduleTime ?? null,
    params: resolved.list,
    nowIso: now,
    // The caller's one JSON word (the API's list), or the CLI's JSON text it turned into words.
    paramsJson: opts.paramsJson ?? (params.length === 1 ? rawJsonParams(params[0]) : null),
    noReuse: opts.noReuse,
  });
  if (opts.name !== undefined) status.dag_file = own.file ?? own.name;
  if (opts.defaultWorkingDir) status.default_working_dir = opts.defaultWorkingDir;
  const created = await svc.runs.createRun(status);
  if (!created.created) throw new ConflictError(`run ${runId} already exists`);
  // createRun marked it active; the queue item makes it wait for its turn.
  try {
    await svc.queue.enqueue({ queue: dag.queue, run_id: runId, dag_name: dag.name, enqueued_at: now });
  } catch (err) {
    // The run exists, listed and queued: failing the call would tell its caller that nothing was queued, and
    // a second enqueue would run the DAG twice. A queued run with no queue item is put back in its queue by
    // the active scheduler's dead-run check once run.heartbeat_stale_threshold has passed.
    svc.logger.warn(
      'Queued a run whose queue item could not be written; the active scheduler queues it again',
      {
        dag: dag.name,
        run_id: runId,
        queue: dag.queue,
        error: err instanceof Error ? err.message : String(err),
      },
    );
  }
  await recordEvent(svc, 'run:enqueued', { run_id: runId, dag: dag.name, queue: dag.queue });
  svc.logger.info('Run enqueued', { dag: dag.name, run_id: runId, queue: dag.queue });
  return status;
}

/** Removes a queued run from its queue; the run ends `aborted` with the error "dequeued by user". */
export async function dequeueRun(svc: Services, runId: string): Promise<RunStatus> {
  const status = await getRun(svc, runId);
  if (status.status !== 'queued') {
    throw new ConflictError(`run ${runId} is not queued (status: ${status.status})`);
  }
  await svc.queue.dequeue(status.queue, runId);
  // The scheduler may have started the run between our read and the removal: only a run that is still
  // queued once its item is gone is aborted here. (A run process that read `queued` just before this write
  // can still overwrite it; the runner re-checks the record when it takes over a queued run.)
  const latest = await getRun(svc, runId);
  if (latest.status !== 'queued') {
    throw new ConflictError(`run ${runId} started before it could be dequeued (status: ${latest.status})`);
  }
  const aborted: RunStatus = {
    ...latest,
    status: 'aborted',
    error: 'dequeued by user',
    finished_at: isoUtc(svc.clock.nowMs()),
    conditions: [],
  };
  try {
    await svc.runs.writeStatus(aborted);
  } catch (err) {
    throw await unrecordedDequeue(svc, latest, err);
  }
  // A marker left on an ended run is cleared by the dead-run check; the run is dequeued either way.
  await svc.runs.unmarkActive(runId).catch(() => undefined);
  await recordEvent(svc, 'run:dequeued', { run_id: runId, dag: latest.dag_name, queue: latest.queue });
  svc.logger.info('Run dequeued', { dag: latest.dag_name, run_id: runId, queue: latest.queue });
  return aborted;
}

/**
 * A dequeue whose `aborted` could not be written (a full disk): the item is gone, and the run reads `queued`.
 * An empty note, which needs no data block, tells the dead-run check that the run ended, so that it fails
 * the run instead of queueing it again; without the note, the run would run after all, and the error says so.
 */
async function unrecordedDequeue(svc: Services, run: RunStatus, cause: unknown): Promise<HttpError> {
  const why = cause instanceof Error ? cause.message : String(cause);
  const noted = await svc.runs
    .recordUnwrittenFinalStatus(run.run_id, run.attempt, {
      state: 'aborted',
      error_code: errorCode(cause) ?? 'UNKNOWN',
    })
    .then(
      () => true,
      () => false,
    );
  svc.logger.warn('Dequeued a run whose end could not be written', {
    dag: run.dag_name,
    run_id: run.run_id,
    error: why,
    noted,
  });
  const what = `run ${run.run_id} was taken out of its queue, but could not be marked aborted (${why})`;
  return new HttpError(
    500,
    'dequeue_unrecorded',
    noted
      ? `${what}; it will not run: the active scheduler marks it failed`
      : `${what}; the active scheduler queues it again: dequeue it again once the storage is back`,
  );
}
