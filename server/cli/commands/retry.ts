// `dagu retry` (a new attempt of a finished run) and `dagu restart` (stop it if running, then a new run of
// the same DAG with the same params), both in the foreground like `dagu start`. A DAG that belongs on the
// workers is dispatched to them instead and followed to its end.

import { localMaterializations } from '../localMaterializations';
import { hostname } from 'node:os';
import { randomHex } from '../../store/randomHex';
import { stopRun } from '../../api/operations';
import { systemClock, systemTimers } from '../../core/clock';
import { assertRunId } from '../../core/names';
import { newRunId } from '../../core/runId';
import { withRecordedLabels } from '../../core/runLabels';
import { TERMINAL_RUN_STATES, type DagSpec, type RunStatus } from '../../core/types';
import { isDistributed, nextAttemptDispatch, newRunDispatch } from '../../core/dispatcherApi';
import { resumeRun } from '../../runner/resumeRun';
import { retryRun } from '../../runner/retryRun';
import { resolveRetryPath } from '../../runner/resolveRetryPath';
import { parseRetryPath, type RetryPath } from '../../core/retryPath';
import { newRunParams, startRun } from '../../runner/startRun';
import type { RunStore } from '../../store/types';
import { cliContext, type CliContext, type GlobalOptions } from '../context';
import { EXIT_RUN_FAILED, UsageError } from '../exit';
import { loadRunDag } from '../dagNameOverride';
import {
  cliSubDagRunner,
  dispatchAndFollow,
  exitCodeOf,
  printSummary,
  runCommandStores,
  type RunCommandStores,
} from './dispatchClient';
import { withDefaultWorkingDir, type LocalRunContext } from './start';
import { resolveTarget, runOfDag, runningRunsOf } from './target';
import { cliControlPlane, cliServices } from '../openControlPlane';
import { isLocalProcessAlive } from '../../scheduler/zombieReaper';
import { awaitStop, notStoppedMessage, stopWaitMs } from './awaitStop';

type Opts = GlobalOptions & {
  quiet?: boolean;
  detach?: boolean;
  runId?: string;
  step?: string;
  /** With `step`: the steps downstream of it run again too (Dagu's --downstream). */
  downstream?: boolean;
  /** Dagu's `--default-working-dir`: the working_dir of a DAG that sets none. */
  defaultWorkingDir?: string;
  /** Hidden: the scheduler retries the run under its DAG's retry_policy (auto_retry_count). */
  autoRetry?: boolean;
  /** Dagu's `--sub-run-id`: retry `step` in this sub-run of the run, and the call steps on the way to it. */
  subRunId?: string;
  /** Hidden: a parent's call step retries its child along this path (see core/retryPath.ts). */
  retryPath?: string;
};

/** The latest attempt of a run; a usage error when it does not exist or cannot be read. */
export async function readRun(store: Pick<RunStore, 'readStatus'>, runId: string): Promise<RunStatus> {
  const r = await store.readStatus(assertRunId(runId));
  if (r.kind === 'missing') throw new UsageError(`run ${JSON.stringify(runId)} not found`);
  // Like `dagu status`: a damaged record is a failure to report, not a mistake in the command line.
  if (r.kind === 'corrupt')
    throw new UsageError(`status of run ${runId} is unreadable (${r.path}): ${r.error}`, EXIT_RUN_FAILED);
  return r.status;
}

/**
 * Runs `fn` on this host with an AbortController wired to SIGINT/SIGTERM, like `dagu start`; the attempt's
 * call steps start their children through the command's sub-DAG runner.
 */
export async function foreground(
  ctx: CliContext,
  stores: RunCommandStores,
  dag: DagSpec,
  fn: (run: LocalRunContext) => Promise<RunStatus>,
  quiet?: boolean,
): Promise<number> {
  const controller = new AbortController();
  const on = (sig: NodeJS.Signals) => controller.abort(sig);
  process.on('SIGINT', on);
  process.on('SIGTERM', on);
  try {
    const logger = ctx.logger.child({ dag: dag.name });
    const final = await fn({
      dag,
      runStore: stores.runs,
      config: ctx.config,
      clock: systemClock,
      timers: systemTimers,
      env: process.env,
      logger,
      signal: controller.signal,
      subDag: cliSubDagRunner(ctx.config, logger, stores),
      logStore: stores.logShipping ?? undefined,
      artifactStore: stores.artifactShipping ?? undefined,
      stateStore: stores.state,
      materializations: localMaterializations(ctx.config),
    });
    if (!quiet) printSummary(final);
    return exitCodeOf(final);
  } finally {
    process.off('SIGINT', on);
    process.off('SIGTERM', on);
  }
}

export async function retryCommand(word: string, opts: Opts): Promise<number> {
  // As Dagu's: --downstream says which steps besides the --step one run again, so it needs one.
  if (opts.downstream && opts.step === undefined) throw new UsageError('--downstream requires --step');
  if (opts.subRunId !== undefined && opts.step === undefined)
    throw new UsageError('--sub-run-id requires --step');
  if (opts.subRunId !== undefined && opts.retryPath !== undefined)
    throw new UsageError('--sub-run-id cannot be combined with internal child retry flags');
  if (opts.subRunId !== undefined) assertRunId(opts.subRunId);
  const ctx = cliContext(opts, { component: 'runner' });
  const { config } = ctx;
  const stores = runCommandStores(config, ctx.logger, await cliControlPlane(config, ctx.logger));
  const previous = await runNamed(ctx, stores, word, opts, 'retry');
  const runId = previous.run_id;
  if (!TERMINAL_RUN_STATES.includes(previous.status))
    throw new UsageError(`run ${runId} is ${previous.status}; only a finished run can be retried`);
  if (opts.subRunId !== undefined) {
    const resolved = await resolveRetryPath(
      stores.runs,
      previous,
      opts.subRunId,
      opts.step!,
      opts.downstream === true,
    );
    if (!resolved.ok) throw new UsageError(resolved.error, EXIT_RUN_FAILED);
    // The root retries the call step that leads to the sub-run, not its downstream; the path does the rest.
    return nextAttempt(ctx, stores, previous, 'retry', {
      ...opts,
      step: resolved.path.hops[0].step,
      downstream: false,
      path: resolved.path,
    });
  }
  let path: RetryPath | undefined;
  if (opts.retryPath !== undefined) {
    const parsed = parseRetryPath(opts.retryPath);
    if (!parsed.ok) throw new UsageError(parsed.error);
    path = parsed.path;
  }
  // Dagu's --step: a lookup like the run's, so an unknown step exits 1 as an unknown run does.
  if (opts.step !== undefined && !previous.steps.some((s) => s.name === opts.step))
    throw new UsageError(
      `run ${runId} of DAG ${previous.dag_name} has no step ${JSON.stringify(opts.step)} ` +
        `(its steps: ${previous.steps.map((s) => s.name).join(', ')})`,
      EXIT_RUN_FAILED,
    );
  return nextAttempt(ctx, stores, previous, 'retry', { ...opts, path });
}

/**
 * The run a `retry`/`resume` word names: a run ID, or in Dagu's form a DAG with `--run-id` (which Dagu
 * requires for these commands).
 */
export async function runNamed(
  ctx: CliContext,
  stores: RunCommandStores,
  word: string,
  opts: Opts,
  command: 'retry' | 'resume',
): Promise<RunStatus> {
  const target = await resolveTarget(ctx.config, stores.runs, word, opts.runId);
  if (target.kind === 'run') return readRun(stores.runs, target.runId);
  if (target.runId === undefined)
    throw new UsageError(
      `dagu ${command} ${word} needs --run-id: which run of DAG ${target.dagName} to ${command} ` +
        `(dagu history ${target.dagName} lists them), or give the run ID alone`,
    );
  return runOfDag(stores.runs, target.dagName, target.runId);
}

/**
 * Attempt n+1 of a finished run: handed to the workers when its DAG goes there, else run here in the
 * foreground. `resume` keeps the steps that succeeded; `retry` runs them all again.
 */
export async function nextAttempt(
  ctx: CliContext,
  stores: RunCommandStores,
  previous: RunStatus,
  operation: 'retry' | 'resume',
  opts: Opts & { path?: RetryPath },
): Promise<number> {
  const { config } = ctx;
  // The run's own `--default-working-dir` holds for its retries, as in Dagu; a new one replaces it.
  const loaded = await loadRunDag(config, previous);
  const flagDir = opts.defaultWorkingDir;
  const dag = withDefaultWorkingDir(loaded, flagDir ?? previous.default_working_dir ?? undefined);
  const defaultWorkingDir = flagDir !== undefined && dag !== loaded ? dag.working_dir : null;
  if (isDistributed(dag, config.default_execution_mode)) {
    if (opts.step !== undefined)
      throw new UsageError(
        `--step is not supported for DAG ${dag.name}, which runs on workers: retry the whole run, or resume it`,
      );
    return dispatchAndFollow({
      config,
      stores,
      detach: opts.detach,
      quiet: opts.quiet,
      params: nextAttemptDispatch(dag, previous, operation, opts.autoRetry === true),
    });
  }
  const run = operation === 'resume' ? resumeRun : retryRun;
  if (operation === 'retry' && opts.step !== undefined) {
    const step = opts.step;
    const downstream = opts.downstream === true;
    return foreground(
      ctx,
      stores,
      dag,
      (r) =>
        retryRun({
          ...r,
          runId: previous.run_id,
          step,
          downstream,
          defaultWorkingDir,
          ...(opts.path ? { retryPath: opts.path } : {}),
        }),
      opts.quiet,
    );
  }
  const autoRetry = opts.autoRetry === true;
  return foreground(
    ctx,
    stores,
    dag,
    (r) => run({ ...r, runId: previous.run_id, autoRetry, defaultWorkingDir }),
    opts.quiet,
  );
}

export async function restartCommand(word: string, opts: Opts): Promise<number> {
  const ctx = cliContext(opts, { component: 'runner' });
  const { config, logger } = ctx;
  const stores = runCommandStores(config, logger, await cliControlPlane(config, logger));
  const target = await resolveTarget(config, stores.runs, word, opts.runId);
  let previous: RunStatus;
  if (target.kind === 'run') previous = await readRun(stores.runs, target.runId);
  else if (target.runId !== undefined) previous = await runOfDag(stores.runs, target.dagName, target.runId);
  else {
    // Dagu's `restart <dag>`: its running run (the newest, if several); a DAG with none is an error (exit 1).
    const running = await runningRunsOf(stores.runs, target.dagName);
    if (running.length === 0) {
      const latest = (await stores.runs.listRuns({ dag: target.dagName, limit: 1 })).items[0];
      throw new UsageError(
        `DAG ${target.dagName} is not running` +
          (latest ? ` (its latest run ${latest.run_id} is ${latest.status})` : ' (it has no runs)') +
          `; to run a finished run again: dagu restart --run-id ID ${target.dagName}`,
        EXIT_RUN_FAILED,
      );
    }
    previous = running[running.length - 1];
  }
  const runId = previous.run_id;
  const wasRunning = !TERMINAL_RUN_STATES.includes(previous.status);
  if (wasRunning) {
    await stopRun(await cliServices(config, logger), runId);
    const outcome = await awaitStop(
      {
        readRun: (id) => readRun(stores.runs, id),
        readUnwrittenFinalStatus: (id, attempt) => stores.runs.readUnwrittenFinalStatus(id, attempt),
        processAlive: isLocalProcessAlive,
        host: hostname(),
        clock: systemClock,
        timers: systemTimers,
      },
      previous,
      stopWaitMs(config),
    );
    if (outcome.kind !== 'stopped') throw new UsageError(notStoppedMessage(runId, outcome), EXIT_RUN_FAILED);
    previous = outcome.status;
  }
  // The new run keeps the labels of the run it restarts (its DAG's then, and its `--labels`), as in Dagu.
  const dag = withRecordedLabels(await loadRunDag(config, previous), previous);
  const waitSec = dag.restart_wait_sec ?? 0;
  if (wasRunning && waitSec > 0) {
    // As Dagu's `restart`: the DAG's restart_wait_sec between the stop and the new start.
    logger.info('Waiting before the restart (restart_wait_sec)', { dag: dag.name, seconds: waitSec });
    await new Promise((resolve) => setTimeout(resolve, waitSec * 1000));
  }
  const newId = () => newRunId(Date.now(), randomHex(4));
  if (isDistributed(dag, config.default_execution_mode)) {
    return dispatchAndFollow({
      config,
      stores,
      detach: opts.detach,
      quiet: opts.quiet,
      params: newRunDispatch(dag, newId(), {
        params: newRunParams({ dag, params: [], recordParams: previous.params }),
      }),
    });
  }
  return foreground(
    ctx,
    stores,
    dag,
    (run) =>
      startRun({
        ...run,
        triggerType: 'manual',
        scheduleTime: null,
        params: [],
        recordParams: previous.params,
        newRunId: newId,
        dagFile: previous.dag_file ?? null,
      }),
    opts.quiet,
  );
}
