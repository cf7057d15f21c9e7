// What starting and retrying a run share: where the attempt's logs go, and running it marked active
// with its status reported to the run store.

import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import type { MaterializationStore } from '../core/build/types';
import type { Config } from '../config/types';
import type { Clock, Logger, Timers } from '../core/ports';
import type { DagSpec, RunStatus, StepStatus } from '../core/types';
import type { StateStore } from '../store/stateStore';
import type { ArtifactStore } from '../store/artifactStore';
import { ArtifactShipper } from './artifactShipper';
import { artifactsFolderName, recordArtifactsDir } from '../store/fileArtifactStore';
import { CALL_CHAIN_ENV } from './localSubDag';
import type { RunLogStore } from '../store/runLogStore';
import type { RunStore } from '../store/types';
import { SECOND } from '../core/units';
import { FINAL_LOG_FLUSH_MS, finalStatusRetryMs } from './finalStatusBudget';
import { errorCode } from '../store/fsutil';
import { FinalStatusUnwrittenError } from './errors';
import { executeRun, type LogShipping } from './executeRun';
import { LogShipper } from './logShipper';
import { notifyRun, notifyStepFailure } from './runNotification';
import { runArtifactsDirPath, runWorkDirPath, type ArtifactsAccess } from './workDir';
import { assertDagName, assertRunId } from '../core/names';
import { dagLogRoot } from './logFiles';

export { dagLogRoot, FINAL_LOG_FLUSH_MS, finalStatusRetryMs };
import { errorText, storeReporter } from './statusReporter';
import type { SubDagRunner } from './subDag';
import type { RetryPath } from '../core/retryPath';

/** The collaborators of a run attempt on this host. */
export interface AttemptContext {
  dag: DagSpec;
  runStore: RunStore;
  config: Config;
  clock: Clock;
  /** Paces the status writes (storeReporter). */
  timers: Timers;
  /** Should already carry `component` and `dag`; the runner adds `run_id`. */
  logger: Logger;
  /** Abort = stop the run; a signal name as the reason (`'SIGINT'`) is what the steps receive. */
  signal: AbortSignal;
  /** Environment the steps inherit: the run process's own, from its composition root. */
  env: NodeJS.ProcessEnv;
  /** Runs `call:` steps; without it they fail with a clear error. */
  subDag?: SubDagRunner;
  /**
   * The run log store when the local files are not it (storage.backend postgres): the run's logs are then
   * shipped there while it runs. Absent: the files the run writes are the store.
   */
  logStore?: Pick<RunLogStore, 'append' | 'createLogs'>;
  /** The state store of the `state.*` steps; absent: they fail, saying there is none. */
  stateStore?: StateStore;
  /**
   * The artifact store when the local files are not it (storage.backend postgres): the run's artifacts are
   * then copied there after each step and before the final status.
   */
  artifactStore?: ArtifactStore;
  /** Build DAGs' manifests and path locks on this host; absent: their steps with paths fail (as on a worker). */
  materializations?: MaterializationStore;
}

/**
 * The attempt's log directory, absolute (from the run store, or under the DAG's own `log_dir`) and relative
 * to the logs root (for the status).
 */
export function attemptLogDir(
  runStore: RunStore,
  config: Config,
  dagName: string,
  runId: string,
  attempt: number,
  dagLogRoot: string | null = null,
): { absolute: string; relative: string } {
  // The store checks the names before they become part of a path, for the DAG's log_dir too.
  const stored = runStore.logDir(dagName, runId, attempt);
  const absolute = dagLogRoot === null ? stored : join(dagLogRoot, dagName, runId, String(attempt));
  const rel = relative(config.paths.log_dir, absolute);
  // A store that keeps logs outside the logs root gets its absolute path recorded rather than a `../..` path.
  const outside = rel.startsWith('..') || isAbsolute(rel);
  return { absolute, relative: outside ? absolute : rel.split(sep).join('/') };
}

/**
 * Where the run's artifacts go (only asked when the DAG has them on): the DAG's `artifacts.dir`, in
 * `<dir>/<dag>/dag-run_<time>_<run id>` as Dagu names it, else the run's own data directory. With
 * storage.backend postgres that folder is scratch: the run's artifacts are copied to the database (see
 * `artifactStore`).
 */
function runArtifactsAccess(ctx: AttemptContext, status: RunStatus): ArtifactsAccess {
  const runId = status.run_id;
  const custom = ctx.dag.artifacts?.dir;
  if (custom) {
    const root = dagLogRoot({ ...ctx.dag, log_dir: custom }, ctx.config, ctx.env)!;
    const folder = artifactsFolderName(assertRunId(runId), status.created_at);
    return { dir: join(root, assertDagName(ctx.dag.name), folder) };
  }
  // A database backend keeps no run in the data directory: the local copy is scratch beside the work dir.
  if (ctx.artifactStore)
    return {
      dir: join(dirname(runWorkDirPath(ctx.config.paths.data_dir, ctx.dag.name, runId)), 'artifacts'),
    };
  return { dir: runArtifactsDirPath(ctx.config.paths.data_dir, runId) };
}

/** How long the changes of a run's steps gather before their status is written (see storeReporter). */
export const STEP_REPORT_SETTLE_MS = 100;

/** Longest wait for the lines logged after the final status (a failed notification) to be shipped. */
const TRAILING_LOG_FLUSH_MS = 2 * SECOND;

/** What an attempt keeps of the one before, and how it was begun (see executeRun's options). */
export interface AttemptOptions {
  resumeFrom?: readonly StepStatus[];
  retryStep?: string;
  retryDownstream?: boolean;
  retryPath?: RetryPath;
  retryFailed?: boolean;
  markedActive?: boolean;
}

/**
 * Runs an attempt whose record exists, marked active for the whole run; returns the final status.
 * `resumeFrom`: the steps of the previous attempt, whose successes are kept rather than run again.
 * `markedActive`: the run (or attempt) was just created running, which marked it active already.
 *
 * The active marker is removed only once the final status is on disk. If it cannot be written (a full disk),
 * the marker stays, a note says why (where it can be made), and FinalStatusUnwrittenError is thrown: the
 * active scheduler's dead-run check then marks the run failed with that reason once its heartbeat is stale.
 * Without the marker the run would show `running` for ever, since that check only looks at marked runs.
 */
export async function runAttempt(
  ctx: AttemptContext,
  status: RunStatus,
  logDir: string,
  opts: AttemptOptions = {},
): Promise<RunStatus> {
  const logger = ctx.logger.child({ run_id: status.run_id });
  const active = { run_id: status.run_id, dag_name: status.dag_name, queue: status.queue };
  if (!opts.markedActive) {
    await ctx.runStore
      .markActive(active)
      .catch((err) => logger.warn('Failed to mark the run active', { error: errorText(err) }));
  }
  // With a database backend the logs are shipped there as the run writes them (see logShipper.ts).
  const shipper = ctx.logStore
    ? new LogShipper({
        store: ctx.logStore,
        clock: ctx.clock,
        timers: ctx.timers,
        logger,
        run: { dag_name: status.dag_name, run_id: status.run_id, attempt: status.attempt },
      })
    : null;
  try {
    return await runAndSettle(ctx, status, logDir, opts, shipper && shipping(shipper, ctx.config, logger));
  } finally {
    if (shipper) {
      // Lines logged after the final status (a notification that failed): shipped if that is quick.
      await shipper.flush(TRAILING_LOG_FLUSH_MS);
      shipper.stop();
    }
  }
}

/** The engine's view of the shipper: the final flush is bounded and its shortfall reported. */
function shipping(shipper: LogShipper, config: Config, logger: Logger): LogShipping {
  return {
    watch: (file) => shipper.watch(file),
    stepEnded: () => shipper.kick(),
    beforeFinalStatus: async () => {
      const outcome = await shipper.flush(Math.min(FINAL_LOG_FLUSH_MS, finalStatusRetryMs(config)));
      if (!outcome.complete) {
        logger.error('Gave up shipping the run logs before the final status', {
          unshipped_bytes: outcome.unshippedBytes,
        });
      }
    },
  };
}

async function runAndSettle(
  ctx: AttemptContext,
  status: RunStatus,
  logDir: string,
  opts: AttemptOptions,
  logShipping: LogShipping | null,
): Promise<RunStatus> {
  const { resumeFrom } = opts;
  const logger = ctx.logger.child({ run_id: status.run_id });
  // A run created running is on disk as running already: its steps' changes may settle before they are
  // written (a quick step then costs no write of its own); its end, or a queued run starting, goes at once.
  const reporter = storeReporter(ctx.runStore, logger, {
    settleMs: STEP_REPORT_SETTLE_MS,
    written: opts.markedActive ? status.status : null,
    timers: ctx.timers,
    nowMs: () => ctx.clock.nowMs(),
  });
  // A throw from the engine (a bug) leaves the marker too: what it last wrote may well say `running`.
  const artifacts = runArtifactsAccess(ctx, status);
  // A DAG's own artifacts.dir (files backend): the run records it, for the API and for history retention.
  if (ctx.dag.artifacts?.enabled && ctx.dag.artifacts.dir && !ctx.artifactStore && artifacts.dir !== null)
    await recordArtifactsDir(ctx.config.paths.data_dir, status.run_id, artifacts.dir).catch((err: unknown) =>
      logger.warn('Could not record the run artifacts folder', { error: errorText(err) }),
    );
  const final = await executeRun({
    dag: ctx.dag,
    status,
    reporter,
    logDir,
    clock: ctx.clock,
    logger: ctx.logger,
    signal: ctx.signal,
    killGraceMs: ctx.config.run.kill_grace_ms,
    heartbeatIntervalMs: ctx.config.run.heartbeat_interval_ms,
    baseEnv: ctx.env,
    envPassthrough: { names: ctx.config.env_passthrough, prefixes: ctx.config.env_passthrough_prefixes },
    workDir: runWorkDirPath(ctx.config.paths.data_dir, status.dag_name, status.run_id),
    artifacts,
    artifactShipping:
      ctx.artifactStore && artifacts.dir !== null
        ? new ArtifactShipper(ctx.artifactStore, status.run_id, artifacts.dir)
        : undefined,
    notify: async (dag, ended) => {
      const error = await notifyRun(dag, ended, ctx.config.paths.log_dir);
      if (error) throw new Error(error);
    },
    notifyStepFailure: async (dag, now, step) => {
      const error = await notifyStepFailure(dag, now, step, ctx.config.paths.log_dir);
      if (error) throw new Error(error);
    },
    // Where the server and the schedulers send a run process's output; a terminal run has none.
    processLog: join(ctx.runStore.logDir(status.dag_name, status.run_id, status.attempt), 'process.log'),
    subDag: ctx.subDag,
    resumeFrom,
    retryStep: opts.retryStep,
    retryDownstream: opts.retryDownstream,
    retryPath: opts.retryPath,
    retryFailed: opts.retryFailed,
    logShipping: logShipping ?? undefined,
    materializations: ctx.materializations ?? null,
    state: ctx.stateStore && {
      store: ctx.stateStore,
      dagName: ctx.dag.name,
      rootDagName: rootDagName(ctx.env, ctx.dag.name),
      runId: status.run_id,
    },
  });
  const settled = await reporter.settle(finalStatusRetryMs(ctx.config));
  if (!settled.written) {
    const code = errorCode(settled.error) ?? 'UNKNOWN';
    await ctx.runStore
      .recordUnwrittenFinalStatus(final.run_id, final.attempt, { state: final.status, error_code: code })
      .catch(() => undefined);
    const error = new FinalStatusUnwrittenError(final.run_id, final.attempt, final.status, settled.error);
    logger.error('Gave up writing the final status; the run stays active for the dead-run check', {
      attempt: final.attempt,
      state: final.status,
      error: errorText(settled.error),
    });
    throw error;
  }
  // Where the final status's write removed the mark with it, a delete of its own would only cost a round trip.
  if (!ctx.runStore.unmarksEnded) {
    await ctx.runStore
      .unmarkActive(status.run_id)
      .catch((err) => logger.warn('Failed to unmark the run active', { error: errorText(err) }));
  }
  return final;
}

/** The DAG at the top of this run's chain of sub-DAG calls (Dagu's root DAG), or the run's own. */
export function rootDagName(env: NodeJS.ProcessEnv, own: string): string {
  try {
    const chain: unknown = JSON.parse(env[CALL_CHAIN_ENV] ?? '[]');
    if (Array.isArray(chain) && typeof chain[0] === 'string' && chain[0] !== '') return chain[0];
  } catch {
    // A chain that does not parse names no caller.
  }
  return own;
}
