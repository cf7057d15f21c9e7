// Runs one task a worker claimed: acknowledges the claim, executes the DAG in a local working directory with
// the same engine as `dagu start`, and sends status and step logs back to the coordinator as it goes.

import { rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Config } from '../config/types';
import { isValidRunId } from '../core/names';
import type { Clock, Logger, Timers } from '../core/ports';
import { isoUtc, newRunStatus } from '../core/runStatus';
import type { RunStatus, StepStatus } from '../core/types';
import { MINUTE, SECOND } from '../core/units';
import { ArtifactShipper } from '../runner/artifactShipper';
import { executeRun } from '../runner/executeRun';
import { notifyRun, notifyStepFailure } from '../runner/runNotification';
import { STEP_REPORT_SETTLE_MS } from '../runner/runAttempt';
import { isoNow } from '../runner/runStep';
import { errorText } from '../runner/statusReporter';
import type { DispatchTask } from '../store/dispatchTypes';
import { CoordinatorUnreachableError, type CoordinatorApi } from './coordinatorClient';
import { LogShipper } from './logShipper';
import { remoteArtifactStore } from './remoteArtifactStore';
import { remoteStateStore } from './remoteStateStore';
import { remoteReporter, type Delivery } from './remoteReporter';
import { remoteSubDagRunner } from './remoteSubDag';
import { retryBackoffMs, sleep } from './retryBackoff';
import { attemptDirs } from './workDirs';

/** The collaborators of the tasks of one worker. */
export interface TaskExecutorDeps {
  config: Config;
  client: Pick<
    CoordinatorApi,
    'ack' | 'reportStatus' | 'sendLog' | 'sendLogs' | 'dispatch' | 'getRun' | 'cancel' | 'state' | 'artifacts'
  >;
  clock: Clock;
  timers: Timers;
  /** Carries `component: 'worker'`; the executor adds `dag` and `run_id`. */
  logger: Logger;
  /** Environment the steps inherit (the worker process's, from its composition root). */
  env: NodeJS.ProcessEnv;
  /** Step log shipping period; default 500 ms. */
  logIntervalMs?: number;
}

/** What the worker service gives each task. */
export interface TaskContext {
  workerId: string;
  /** Abort = stop the run (cancel, shutdown). Aborted before the ack: the task is left to another worker. */
  signal: AbortSignal;
  /** Called once the coordinator took the ack: from then on the run is this worker's (heartbeats list it). */
  onAccepted(): void;
}

/** How a task ended on this worker. */
export type TaskOutcome =
  { kind: 'dropped'; reason: string } | { kind: 'finished'; status: RunStatus; delivery: Delivery };

/** A worker the coordinator cannot reach for this long gives up on the ack (the claim goes back anyway). */
const ACK_TIMEOUT_MS = 20 * SECOND;
/** How long the final status of a run is retried. */
const FINAL_REPORT_TIMEOUT_MS = MINUTE;

export async function executeTask(
  deps: TaskExecutorDeps,
  task: DispatchTask,
  ctx: TaskContext,
): Promise<TaskOutcome> {
  const logger = deps.logger.child({ dag: task.dag_name, run_id: task.run_id });
  if (!isValidRunId(task.run_id) || !Number.isInteger(task.attempt) || task.attempt < 1) {
    logger.error('Dropped a task with an invalid run ID or attempt', { attempt: task.attempt });
    return { kind: 'dropped', reason: 'invalid task' };
  }
  if (task.claim === null) {
    logger.error('Dropped a task that carries no claim to acknowledge');
    return { kind: 'dropped', reason: 'no claim' };
  }

  const ack = await acknowledge(deps, task, task.claim.token, ctx, logger);
  if (ack !== null) return { kind: 'dropped', reason: ack };
  ctx.onAccepted();
  return runAccepted(deps, task, ctx, logger);
}

/** Null when the coordinator took the ack, else why the task is dropped. */
async function acknowledge(
  deps: TaskExecutorDeps,
  task: DispatchTask,
  token: string,
  ctx: TaskContext,
  logger: Logger,
): Promise<string | null> {
  const deadline = deps.clock.monoMs() + ACK_TIMEOUT_MS;
  for (let failures = 1; ; failures++) {
    // Not acknowledged yet: the claim goes back to pending and another worker runs the task.
    if (ctx.signal.aborted) return 'stopped before the ack';
    try {
      const reply = await deps.client.ack(task.task_id, { worker_id: ctx.workerId, token });
      if (reply.accepted) return null;
      logger.info('The coordinator refused the claim; not running the task', {
        task_id: task.task_id,
        error: reply.error ?? null,
      });
      return reply.error ?? 'ack refused';
    } catch (err) {
      if (!(err instanceof CoordinatorUnreachableError) || deps.clock.monoMs() >= deadline) {
        logger.warn('Could not acknowledge the claim; not running the task', {
          task_id: task.task_id,
          error: errorText(err),
        });
        return `ack failed: ${errorText(err)}`;
      }
      await sleep(deps.timers, retryBackoffMs(failures, 250, 2 * SECOND), ctx.signal);
    }
  }
}

async function runAccepted(
  deps: TaskExecutorDeps,
  task: DispatchTask,
  ctx: TaskContext,
  logger: Logger,
): Promise<TaskOutcome> {
  const { config, clock, timers } = deps;
  const dirs = attemptDirs(config.worker.work_dir, ctx.workerId, task.run_id, task.attempt);
  // Left-overs of an earlier try of this very attempt would be shipped as this attempt's logs.
  await rm(dirs.logDir, { recursive: true, force: true }).catch(() => {});

  const dag = { ...task.dag, file: null };
  const status = newRunStatus({
    dag,
    runId: task.run_id,
    attempt: task.attempt,
    status: 'queued',
    triggerType: task.trigger_type,
    scheduleTime: task.schedule_time,
    params: task.params,
    nowIso: isoNow(clock),
    logDir: dirs.logDirRelative,
    parent: task.parent ?? task.previous?.parent,
  });
  status.queued_at = isoUtc(task.enqueued_at_ms);
  status.worker_id = ctx.workerId;
  status.worker_selector = task.worker_selector;

  const stop = new AbortController();
  const forward = () => stop.abort(typeof ctx.signal.reason === 'string' ? ctx.signal.reason : 'SIGTERM');
  if (ctx.signal.aborted) forward();
  else ctx.signal.addEventListener('abort', forward, { once: true });

  const shipper = new LogShipper({
    client: deps.client,
    workerId: ctx.workerId,
    runId: task.run_id,
    attempt: task.attempt,
    dir: dirs.logDir,
    timers,
    logger,
    intervalMs: deps.logIntervalMs,
  });
  const reporter = remoteReporter({
    client: deps.client,
    workerId: ctx.workerId,
    clock,
    logger,
    onRejected: (why) => {
      logger.info(
        why.cancel ? 'Run cancelled by the coordinator' : "Run is no longer this worker's; stopping it",
        {
          error: why.error,
        },
      );
      stop.abort('SIGTERM');
    },
    // The rest of the logs goes with the final status (or before it, when it is more than one chunk).
    finalLogs: () => shipper.takeRest(),
    // As a run process writes its status: a quick step's changes ride along with the next change of state.
    settleMs: STEP_REPORT_SETTLE_MS,
    timers,
  });

  const stepRetry = task.operation === 'retry' ? (task.step_retry ?? null) : null;
  logger.info('Running task', {
    attempt: task.attempt,
    operation: task.operation,
    dir: dirs.dir,
    ...(stepRetry ? { step: stepRetry.step } : {}),
  });
  shipper.start();
  const artifactsDir = join(dirs.dir, 'artifacts');
  let final: RunStatus;
  try {
    final = await executeRun({
      dag,
      status,
      reporter,
      logDir: dirs.logDir,
      clock,
      // The engine adds run_id itself.
      logger: deps.logger.child({ dag: task.dag_name }),
      signal: stop.signal,
      killGraceMs: config.run.kill_grace_ms,
      heartbeatIntervalMs: config.worker.heartbeat_interval_ms,
      baseEnv: deps.env,
      envPassthrough: { names: config.env_passthrough, prefixes: config.env_passthrough_prefixes },
      // The attempt's directory on this worker is its run work directory (DAG_RUN_WORK_DIR).
      workDir: dirs.dir,
      subDag: remoteSubDagRunner({
        client: deps.client,
        clock,
        timers,
        logger,
        stopWaitMs: config.run.kill_grace_ms + 10 * SECOND,
      }),
      // A resume keeps the successes of the attempt before; a retry what did not fail (Dagu's retry plan);
      // a one-step retry (a `retry --sub-run-id` path through this run) only that step and its path below.
      resumeFrom: task.operation === 'start' ? undefined : (task.previous?.steps ?? []),
      retryFailed: task.operation === 'retry' && !stepRetry,
      ...(stepRetry
        ? {
            retryStep: stepRetry.step,
            retryDownstream: stepRetry.downstream,
            ...(stepRetry.path ? { retryPath: stepRetry.path } : {}),
          }
        : {}),
      // Run notifications are sent from here, as Dagu's agent sends them where it runs; logs to attach are
      // this worker's copies.
      notify: async (d, ended) => {
        const error = await notifyRun(d, withLocalLogs(ended, dirs.logDir), dirs.logDir);
        if (error) throw new Error(error);
      },
      notifyStepFailure: async (d, now, step) => {
        const error = await notifyStepFailure(d, withLocalLogs(now, dirs.logDir), step, dirs.logDir);
        if (error) throw new Error(error);
      },
      // A worker reaches the coordinator, not the storage: its state steps go through the coordinator.
      state: {
        store: remoteStateStore({
          client: deps.client,
          runId: task.run_id,
          attempt: task.attempt,
          workerId: ctx.workerId,
        }),
        dagName: task.dag_name,
        rootDagName: await rootDagOf(deps.client, task, logger),
        runId: task.run_id,
      },
      // Nor the run's data directory: its artifacts are made in the attempt's folder here and copied through
      // the coordinator into the backend's store after each step and before the final status.
      artifacts: { dir: artifactsDir },
      artifactShipping: new ArtifactShipper(
        remoteArtifactStore({
          client: deps.client,
          runId: task.run_id,
          attempt: task.attempt,
          workerId: ctx.workerId,
        }),
        task.run_id,
        artifactsDir,
      ),
    });
  } finally {
    ctx.signal.removeEventListener('abort', forward);
  }
  const delivery = await reporter.settle(FINAL_REPORT_TIMEOUT_MS, timers);
  shipper.stop();
  if (delivery === 'undelivered')
    logger.error('Could not report the final status to the coordinator', { state: final.status });
  return { kind: 'finished', status: final, delivery };
}

/** Most sub-DAG levels followed up to the root DAG (Dagu's own call depth limit is far below it). */
const MAX_ROOT_HOPS = 64;

/**
 * The DAG at the top of the task's chain of sub-DAG calls (the `root_dag` scope of its state steps): its
 * own for a run nobody called, else found by reading the parent runs from the coordinator. A parent that
 * cannot be read ends the walk there, logged: its DAG stands in for the root.
 */
async function rootDagOf(
  client: Pick<CoordinatorApi, 'getRun'>,
  task: DispatchTask,
  logger: Logger,
): Promise<string> {
  let parent: NonNullable<DispatchTask['parent']> | null = task.parent;
  if (!parent) return task.dag_name;
  for (let hop = 0; hop < MAX_ROOT_HOPS; hop++) {
    const runId: string = parent.run_id;
    const status: RunStatus | null = await client.getRun(runId).catch((err: unknown) => {
      logger.warn('Could not read a parent run to find the root DAG', {
        parent_run_id: runId,
        error: err instanceof Error ? err.message : String(err),
      });
      return null;
    });
    const next: NonNullable<DispatchTask['parent']> | null = status?.parent ?? null;
    if (!next) return parent.dag_name;
    parent = next;
  }
  return parent.dag_name;
}

/** The status with its steps' log paths pointing at this worker's files (a status records them relative). */
function withLocalLogs(status: RunStatus, logDir: string): RunStatus {
  const local = (p: string | null) => (p === null ? null : join(logDir, basename(p)));
  const relocate = (st: StepStatus): StepStatus => ({
    ...st,
    stdout: local(st.stdout),
    stderr: local(st.stderr),
  });
  return { ...status, steps: status.steps.map(relocate) };
}
