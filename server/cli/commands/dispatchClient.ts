// What the run commands (start, retry, restart, resume, stop) share: the stores and the dispatcher over
// DAGU_HOME/data, the sub-DAG runner of a run process, following a dispatched run to its end in the
// foreground, and the summary every command prints of a run that ended.

import { buildLine } from '../../core/build/types';
import type { ArtifactStore } from '../../store/artifactStore';
import type { Config } from '../../config/types';
import { systemClock } from '../../core/clock';
import { formatDuration } from '../../core/duration';
import { formatSelector, type Labels } from '../../core/distributed';
import type { Logger } from '../../core/ports';
import type { RunStatus } from '../../core/types';
import { SECOND } from '../../core/units';
import type { CancelOutcome, DispatcherApi, DispatchParams, DispatchResult } from '../../core/dispatcherApi';
import { localSubDagRunner, waitForRunEnd } from '../../runner/localSubDag';
import { runExitCode } from '../../runner/runOutcome';
import type { StateStore } from '../../store/stateStore';
import type { ControlPlane } from '../../store/controlPlane';
import type { DispatchStore } from '../../store/dispatchTypes';
import { withRunEvents } from '../../store/runEvents';
import type { RunLogStore } from '../../store/runLogStore';
import type { QueueStore, RunStore } from '../../store/types';
import type { SubDagRunner } from '../../runner/subDag';
import { EXIT_OK, EXIT_RUN_FAILED } from '../exit';

/** How often a command following a dispatched run reads its status. */
export const FOLLOW_POLL_MS = 250;
/** Beyond the kill grace, how long a cancelled run gets to report its end before the command gives up. */
const CANCEL_SLACK_MS = 10 * SECOND;

/**
 * The stores a run command works with, shared with the API's operations: every status write also appends its
 * `dag.run.*` event, and the dispatcher works over the same run store.
 */
export interface RunCommandStores {
  runs: RunStore;
  tasks: DispatchStore;
  queue: QueueStore;
  dispatcher: DispatcherApi;
  /** Where a run on this host ships its logs as it writes them, or null (its files are the store). */
  logShipping: RunLogStore | null;
  /** The state store of the `state.*` steps. */
  state: StateStore;
  /** Where a run on this host copies its artifacts after each step, or null (its files are the store). */
  artifactShipping: ArtifactStore | null;
}

/** The run command's stores over the process's control plane (server/cli/openControlPlane.ts). */
export function runCommandStores(config: Config, logger: Logger, cp: ControlPlane): RunCommandStores {
  const runs = withRunEvents(cp.runs, cp.events, { logger });
  const tasks = cp.tasks;
  // Only a run that goes to the workers needs the dispatcher: it is loaded then, not on every run's start.
  let loaded: Promise<DispatcherApi> | null = null;
  const load = () =>
    (loaded ??= import('../../coordinator/dispatcher').then((m) =>
      m.storeDispatcher(config, { ...cp, runs }, logger, systemClock),
    ));
  const dispatcher: DispatcherApi = {
    dispatch: async (p) => (await load()).dispatch(p),
    cancel: async (runId) => (await load()).cancel(runId),
  };
  return {
    runs,
    tasks,
    queue: cp.queue,
    dispatcher,
    logShipping: cp.logShipping,
    state: cp.state,
    artifactShipping: cp.artifactShipping,
  };
}

/** The sub-DAG runner of a run process on this host: local children as `dagu start`, the rest dispatched. */
export function cliSubDagRunner(config: Config, logger: Logger, stores: RunCommandStores): SubDagRunner {
  return localSubDagRunner({
    config,
    runStore: stores.runs,
    // `dag.enqueue` steps put their child in this queue store.
    queue: stores.queue,
    dispatcher: stores.dispatcher,
    // bin/dagu sets DAGU_EXECUTABLE; a CLI started some other way runs its children with its own script.
    executable: process.env.DAGU_EXECUTABLE ?? process.argv[1],
    env: process.env,
    clock: systemClock,
    logger,
  });
}

/** Prints a run's state, its steps and its error (the end of every foreground run). */
export function printSummary(s: RunStatus): void {
  const lines = [`${s.dag_name} ${s.run_id} (attempt ${s.attempt}): ${s.status}`];
  for (const step of s.steps) {
    lines.push(
      `  ${step.status.padEnd(10)} ${step.name}${step.exit_code !== null && step.exit_code !== 0 ? ` (exit ${step.exit_code})` : ''}`,
    );
    // A build DAG's step: how it was satisfied, apart from its status (a reused step succeeded unrun).
    if (step.build) lines.push(`             ${buildLine(step.build)}`);
  }
  // A run waiting at human tasks names each open one: its step id, its prompt and its form.
  for (const step of s.steps) {
    if (step.status !== 'waiting' || !step.human_task) continue;
    lines.push(`  human task ${step.human_task.id}: ${step.human_task.prompt}`);
    if (step.human_task.form) lines.push(`    form: ${JSON.stringify(step.human_task.form)}`);
  }
  // A step waiting for its approval: its name, its prompt and the inputs an approver may give.
  for (const step of s.steps) {
    if (step.status !== 'waiting' || !step.approval) continue;
    const a = step.approval;
    lines.push(`  approval ${step.name}${a.prompt ? `: ${a.prompt}` : ''}`);
    if (a.input.length > 0)
      lines.push(
        `    inputs: ${a.input.map((n) => (a.required.includes(n) ? `${n} (required)` : n)).join(', ')}`,
      );
    if (step.push_back) lines.push(`    push-backs so far: ${step.push_back.iteration}`);
  }
  if (s.worker_id) lines.push(`  worker: ${s.worker_id}${s.host ? ` on ${s.host}` : ''}`);
  // A run waiting for a worker says why, and since when.
  for (const c of s.conditions)
    lines.push(`  ${c.type}=${c.status} ${c.reason}: ${c.message} (since ${c.checked_at})`);
  if (s.error) lines.push(`  error: ${s.error}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

/**
 * The exit code of a run that ended in `status`, as Dagu's `dagu start` has it: 0 for a success and for a
 * clean stop (aborted), 1 for a failure, a partial success, or an abort that carries a failure (`init`).
 */
export function exitCodeOf(status: RunStatus): number {
  return runExitCode(status) === 0 ? EXIT_OK : EXIT_RUN_FAILED;
}

/** `Dispatched <id> to a worker matching {zone: b}` or `Holding <id>: no healthy worker matches …; waiting up to 2m0s`. */
export function dispatchLine(
  outcome: 'dispatched' | 'held',
  runId: string,
  selector: Labels,
  waitMs: number,
) {
  return outcome === 'held'
    ? `Holding ${runId}: no healthy worker matches ${formatSelector(selector)}; waiting up to ${formatDuration(waitMs)}`
    : `Dispatched ${runId} to a worker matching ${formatSelector(selector)}`;
}

/** What `dagu stop` (and Ctrl-C of a command following a run) prints for a cancel; null when nothing happened. */
export function cancelLine(outcome: CancelOutcome, runId: string, workerId: string | null): string | null {
  if (outcome.kind === 'aborted') return `Cancelled ${runId} before a worker took it`;
  if (outcome.kind === 'requested') {
    const worker = outcome.status.worker_id ?? workerId;
    // Claimed but not yet acknowledged: the worker is told when it acknowledges or heartbeats.
    return worker
      ? `Asked worker ${worker} to stop ${runId}`
      : `Asked the worker that claimed ${runId} to stop it`;
  }
  return null;
}

export interface DispatchAndFollowOptions {
  config: Config;
  stores: RunCommandStores;
  params: DispatchParams;
  /** Return right after the dispatch instead of waiting for the run's end. */
  detach?: boolean;
  quiet?: boolean;
  /** Called before a refusal is reported (the refusal's status is the run as the dispatcher left it). */
  onRefused?: (result: Extract<DispatchResult, { outcome: 'refused' }>) => Promise<void>;
}

/**
 * Dispatches a run to the workers and, unless detached, waits for its end like a local run: SIGINT/SIGTERM
 * cancel it and the wait goes on (at most the kill grace + 10 s) for its final state. Returns the exit code:
 * 0 for a success (or a detached dispatch), 1 for a refusal or a run that did not succeed.
 */
export async function dispatchAndFollow(o: DispatchAndFollowOptions): Promise<number> {
  const { config, stores, params } = o;
  const result = await stores.dispatcher.dispatch(params);
  if (result.outcome === 'refused') {
    await o.onRefused?.(result);
    process.stderr.write(`dagu: ${result.error}\n`);
    return EXIT_RUN_FAILED;
  }
  const runId = result.status.run_id;
  if (!o.quiet) {
    const waitMs = config.coordinator.worker_wait_timeout_ms;
    process.stdout.write(`${dispatchLine(result.outcome, runId, params.selector, waitMs)}\n`);
  }
  if (o.detach) return EXIT_OK;
  return followRun({ config, stores, runId, quiet: o.quiet });
}

/** Waits in the foreground for a dispatched run to end; prints its summary and returns the exit code. */
export async function followRun(o: {
  config: Config;
  stores: RunCommandStores;
  runId: string;
  quiet?: boolean;
}): Promise<number> {
  const { stores, runId } = o;
  const say = (line: string) => {
    if (!o.quiet) process.stdout.write(`${line}\n`);
  };
  const controller = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    if (controller.signal.aborted) return;
    say(`Received ${sig}; cancelling ${runId}`);
    controller.abort(sig);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const stopWaitMs = o.config.run.kill_grace_ms + CANCEL_SLACK_MS;
  try {
    const end = await waitForRunEnd({
      runs: stores.runs,
      runId,
      clock: systemClock,
      pollMs: FOLLOW_POLL_MS,
      signal: controller.signal,
      stopWaitMs,
      stop: async () => {
        const task = await stores.tasks.findByRun(runId).catch(() => null);
        const outcome = await stores.dispatcher.cancel(runId);
        const line = cancelLine(outcome, runId, task?.claim?.worker_id ?? null);
        if (line) say(line);
        return outcome.kind === 'aborted' ? outcome.status : null;
      },
      onChange: (s) => {
        if (s.status === 'running' && s.worker_id) say(`Running ${runId} on worker ${s.worker_id}`);
      },
    });
    if (end.kind === 'gave_up') {
      process.stderr.write(
        `dagu: run ${runId} did not report its end within ${formatDuration(stopWaitMs)} of the cancel` +
          ` (last seen ${end.status?.status ?? 'nowhere'})\n`,
      );
      return EXIT_RUN_FAILED;
    }
    if (!o.quiet) printSummary(end.status);
    return exitCodeOf(end.status);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
