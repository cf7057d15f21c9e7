// The sub-DAG runner of a run process on this host (`dagu start`, `dagu retry`, `dagu resume`): finds the
// called DAG (a local document of the calling file first, then the DAG catalogue), lays the step's params
// over its defaults, refuses a recursive call, and then queues the child (`dag.enqueue`), dispatches it to the
// workers, or runs it as its own `dagu start` process, which this runner waits for. A local child's run is
// created here, `queued` with its parent and params, and its process takes it over: so the record names its
// parent from the first write, and the params are checked before any process starts.

import { encodeRetryPath, type StepRetry } from '../core/retryPath';
import { runProcessEnv } from './runProcessEnv';
import { closeSync, openSync } from 'node:fs';
import type { Config } from '../config/types';
import { formatDagError } from '../core/dag/dagError';
import { formatSelector } from '../core/distributed';
import { formatDuration } from '../core/duration';
import type { Clock, Logger } from '../core/ports';
import { isoUtc, newRunStatus } from '../core/runStatus';
import { TERMINAL_RUN_STATES, type DagSpec, type RunStatus } from '../core/types';
import { SECOND } from '../core/units';
import { endedStatus } from '../core/endedStatus';
import {
  isDistributed,
  newRunDispatch,
  resolveSelector,
  stepRetryDispatch,
  type DispatcherApi,
} from '../core/dispatcherApi';
import { loadDag, type LoadDagResult } from '../store/dagCatalog';
import type { QueueStore, RunStore } from '../store/types';
import { parseParamWord } from '../core/params';
import { applyChildParams } from './childParams';
import { signalGroup } from './processGroup';
import { errorText } from './statusReporter';
import {
  childResult,
  SubDagStartError,
  subRunId,
  type SubDagRequest,
  type SubDagResult,
  type SubDagRunner,
} from './subDag';
import { findDagFile, LocalDocumentFiles } from './subDagTarget';
import { superviseChild } from './children';
import { spawnProcess } from './spawnProcess';
import * as files from '../store/fileCalls';

/** How a child `dagu start` process ended. */
export interface ChildExit {
  code: number | null;
  signal: string | null;
}

/** A started child process: its process group leader's pid and its end. */
export interface ChildProcessHandle {
  pid: number;
  exited: Promise<ChildExit>;
}

/** Starts `node <executable> <args>` in its own process group with its output appended to the two files. */
export type ChildSpawner = (o: {
  executable: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  stdoutFile: string;
  stderrFile: string;
}) => ChildProcessHandle;

/** The collaborators of the local sub-DAG runner. */
export interface LocalSubDagDeps {
  config: Config;
  runStore: Pick<RunStore, 'readStatus' | 'createRun' | 'writeStatus' | 'unmarkActive'>;
  /** Where `dag.enqueue` puts its child; null where queueing is not possible (such steps then fail). */
  queue?: Pick<QueueStore, 'enqueue'> | null;
  /** For called DAGs that belong on the workers; null where no dispatch is possible (they then fail). */
  dispatcher: DispatcherApi | null;
  /** The `dagu` script child processes run (bin/dagu, or DAGU_EXECUTABLE). */
  executable: string;
  /**
   * The environment child processes inherit (DAGU_HOME is set from the config on top). Its CALL_CHAIN_ENV
   * names the DAGs that called this run, outermost first.
   */
  env: NodeJS.ProcessEnv;
  clock: Clock;
  logger: Logger;
  /** Defaults: the DAG catalogue, a real detached spawn, process-group signals, 250 ms polls. */
  loadDag?: (nameOrFile: string, opts?: { sourceFile?: string }) => Promise<LoadDagResult>;
  spawnChild?: ChildSpawner;
  signalChild?: (pid: number, signal: NodeJS.Signals) => void;
  pollMs?: number;
}

/**
 * The environment variable that carries the names of the calling DAGs (a JSON array, outermost first) to a
 * child process, so that a call back into one of them is refused instead of starting processes for ever.
 */
export const CALL_CHAIN_ENV = 'DAGU_CALL_CHAIN';
/** Deepest nesting of sub-DAG calls; far beyond any real workflow, well before the host runs out of processes. */
export const MAX_CALL_DEPTH = 32;

const DEFAULT_POLL_MS = 250;
/** Beyond the kill grace, how long a stopped child gets to record its end. */
const STOP_SLACK_MS = 10 * SECOND;

/** The called DAG as found: its spec, the file its process loads, and the temp file to release after. */
interface CalledDag {
  dag: DagSpec;
  file: string | null;
  local: boolean;
  /** For a local DAG: the file it was written in, whose directory its relative paths are in. */
  sourceFile?: string;
  release: () => void;
}

/** A SubDagRunner for run processes on this host. */
export function localSubDagRunner(deps: LocalSubDagDeps): SubDagRunner {
  const load =
    deps.loadDag ??
    ((name: string, opts?: { sourceFile?: string }) => loadDag(deps.config.paths.dags_dir, name, opts));
  const localFiles = new LocalDocumentFiles();
  return async (req) => {
    const called = await findCalledDag(deps, load, localFiles, req);
    try {
      const { dag } = called;
      const chain = callChain(deps.env, req.parent.dag_name);
      if (chain.includes(dag.name)) {
        throw new SubDagStartError(
          dag.name,
          `recursive sub-DAG call refused: ${[...chain, dag.name].join(' -> ')}`,
        );
      }
      if (chain.length >= MAX_CALL_DEPTH) {
        throw new SubDagStartError(
          dag.name,
          `sub-DAG calls nest deeper than ${MAX_CALL_DEPTH} levels: ${[...chain, dag.name].join(' -> ')}`,
        );
      }
      const params = applyChildParams(dag.params, req.params.map(parseParamWord), dag.param_schema);
      if (!params.ok) throw new SubDagStartError(dag.name, `sub-DAG ${dag.name}: ${params.error}`);
      const logger = deps.logger.child({ sub_dag: dag.name, sub_run_id: req.runId });
      if (req.existing) return await againChildRun(deps, called, req, [...chain], logger);
      if (req.mode === 'enqueue') return await enqueueChild(deps, called, req, params.list);
      if (isDistributed(dag, deps.config.default_execution_mode, req.workerSelector)) {
        return await dispatchChild(deps, dag, req, params.list, logger);
      }
      return await spawnChildRun(deps, called, req, params.list, [...chain], logger);
    } finally {
      called.release();
    }
  };
}

/** The names of the DAGs that called this run (from the environment) and the calling DAG itself. */
function callChain(env: NodeJS.ProcessEnv, callerName: string): string[] {
  let outer: string[] = [];
  try {
    const parsed: unknown = JSON.parse(env[CALL_CHAIN_ENV] ?? '[]');
    if (Array.isArray(parsed)) outer = parsed.filter((x): x is string => typeof x === 'string');
  } catch {
    outer = [];
  }
  return [...outer, callerName];
}

async function findCalledDag(
  deps: LocalSubDagDeps,
  load: (name: string, opts?: { sourceFile?: string }) => Promise<LoadDagResult>,
  localFiles: LocalDocumentFiles,
  req: SubDagRequest,
): Promise<CalledDag> {
  const name = req.dagName;
  if (name === '') throw new SubDagStartError(name, 'the sub-DAG target is empty');
  const caller = req.parentDag;
  if (caller?.local_dags && Object.hasOwn(caller.local_dags, name)) {
    if (!caller.file) {
      throw new SubDagStartError(name, `local DAG ${JSON.stringify(name)} has no file to run it from`);
    }
    let temp: { file: string; key: string };
    try {
      temp = await localFiles.acquire(caller.file, name);
    } catch (err) {
      throw new SubDagStartError(name, `cannot prepare local DAG ${JSON.stringify(name)}: ${errorText(err)}`);
    }
    const release = () => localFiles.release(temp.key);
    // The temp file is a copy: the child's relative paths are those of the file it was written in (Dagu's
    // authored file), else they would point into the temp directory, which goes when the step ends.
    const sourceFile = caller.source_file ?? caller.file;
    try {
      const dag = await loadCalledDag((f) => load(f, { sourceFile }), temp.file, name);
      return { dag, file: temp.file, local: true, sourceFile, release };
    } catch (err) {
      release();
      throw err;
    }
  }
  const dagsDir = deps.config.paths.dags_dir;
  const file = await findDagFile(name, { dagsDir, callerFile: caller?.file ?? null });
  const dag = await loadCalledDag(load, file ?? name, name);
  return { dag, file: dag.file ?? file, local: false, release: () => undefined };
}

async function loadCalledDag(
  load: (name: string) => Promise<LoadDagResult>,
  nameOrFile: string,
  target: string,
): Promise<DagSpec> {
  let r: LoadDagResult;
  try {
    r = await load(nameOrFile);
  } catch (err) {
    throw new SubDagStartError(target, `failed to find DAG ${JSON.stringify(target)}: ${errorText(err)}`);
  }
  if (r.ok) return r.dag;
  if ('notFound' in r) {
    throw new SubDagStartError(
      target,
      `failed to find DAG ${JSON.stringify(target)}: no local DAG of that name and no such DAG file`,
    );
  }
  const first = r.errors[0];
  throw new SubDagStartError(
    target,
    `sub-DAG ${JSON.stringify(target)} is invalid: ${first ? formatDagError(first) : 'unknown error'}`,
  );
}

/** The child's first record: queued, with its parent and params, under `runId` or (taken) a fresh one. */
async function createChildRecord(
  deps: LocalSubDagDeps,
  dag: DagSpec,
  req: SubDagRequest,
  params: string[],
  queue: string,
  /** For a local DAG: the file it was written in (RunStatus.local_dag_file). */
  local: string | null = null,
): Promise<RunStatus> {
  let runId = req.runId;
  for (let tries = 0; ; tries++) {
    const status: RunStatus = {
      ...newRunStatus({
        dag,
        runId,
        status: 'queued',
        triggerType: 'subdag',
        scheduleTime: null,
        params,
        nowIso: isoUtc(deps.clock.nowMs()),
        parent: req.parent,
      }),
      queue,
      // A local DAG has no file of its own: its retries find it again in the file it was written in.
      ...(local ? { local_dag_file: local } : {}),
    };
    const created = await deps.runStore.createRun(status);
    if (created.created) return status;
    // The step ran before in this attempt (a repeat) and its child kept the ID: this one gets its own.
    if (tries >= 3) throw new SubDagStartError(dag.name, `sub-DAG run ${runId} already exists`);
    runId = subRunId(req.runId, dag.name, 1, '', Math.random().toString(36).slice(2));
  }
}

/** `dag.enqueue`: the child waits in its queue for the scheduler, and the step is done. */
async function enqueueChild(
  deps: LocalSubDagDeps,
  called: CalledDag,
  req: SubDagRequest,
  params: string[],
): Promise<SubDagResult> {
  const { dag } = called;
  if (called.local) {
    throw new SubDagStartError(
      dag.name,
      `dag.enqueue cannot queue the local DAG ${dag.name}: the queue starts DAGs of the DAGs directory only`,
    );
  }
  if (!deps.queue) throw new SubDagStartError(dag.name, `cannot queue sub-DAG ${dag.name}: no queue here`);
  const queue = req.queue ?? dag.queue;
  const status = await createChildRecord(deps, dag, req, params, queue);
  try {
    await deps.queue.enqueue({
      queue,
      run_id: status.run_id,
      dag_name: dag.name,
      enqueued_at: status.created_at,
    });
  } catch (err) {
    const why = `could not be put in queue ${queue}: ${errorText(err)}`;
    await endChild(deps, status, why);
    throw new SubDagStartError(dag.name, `sub-DAG run ${status.run_id} ${why}`);
  }
  return { run_id: status.run_id, dag_name: dag.name, status: 'queued', error: null, params, outputs: {} };
}

/** Ends a child record this runner created and nobody took over. */
async function endChild(deps: LocalSubDagDeps, status: RunStatus, why: string): Promise<void> {
  await deps.runStore
    .writeStatus(endedStatus(status, 'failed', why, isoUtc(deps.clock.nowMs())))
    .catch(() => undefined);
  await deps.runStore.unmarkActive(status.run_id).catch(() => undefined);
}

/** The called DAG goes to the workers: dispatched (or held) like a `dagu start`, then followed in the run store. */
async function dispatchChild(
  deps: LocalSubDagDeps,
  dag: DagSpec,
  req: SubDagRequest,
  params: string[],
  logger: Logger,
): Promise<SubDagResult> {
  const dispatcher = deps.dispatcher;
  if (!dispatcher) {
    throw new SubDagStartError(
      dag.name,
      `sub-DAG ${dag.name} must run on a worker, but no dispatcher is available`,
    );
  }
  const selector = resolveSelector(dag, req.workerSelector);
  let outcome: Awaited<ReturnType<DispatcherApi['dispatch']>>;
  try {
    outcome = await dispatcher.dispatch(
      newRunDispatch(dag, req.runId, {
        triggerType: 'subdag',
        params,
        selector,
        parent: req.parent,
      }),
    );
  } catch (err) {
    throw new SubDagStartError(dag.name, errorText(err));
  }
  if (outcome.outcome === 'refused') throw new SubDagStartError(dag.name, outcome.error);
  const waitMs = deps.config.coordinator.worker_wait_timeout_ms;
  await files
    .appendFile(
      req.logFiles.stderr,
      outcome.outcome === 'held'
        ? `holding sub-DAG run ${req.runId}: no healthy worker matches ${formatSelector(selector)}; waiting up to ${formatDuration(waitMs)}\n`
        : `dispatched sub-DAG run ${req.runId} to a worker matching ${formatSelector(selector)}\n`,
    )
    .catch(() => {});
  logger.info('Dispatched a sub-DAG run', { outcome: outcome.outcome, selector: formatSelector(selector) });
  return followDispatchedChild(deps, dispatcher, req, logger);
}

/**
 * `retry --sub-run-id` through a child that ran on a worker: a new attempt of it that retries the path's step
 * is dispatched to a worker matching the child's selector, as its first attempt was, and followed to its end.
 */
async function dispatchChildRetry(
  deps: LocalSubDagDeps,
  dag: DagSpec,
  req: SubDagRequest,
  previous: RunStatus,
  retry: StepRetry,
  logger: Logger,
): Promise<SubDagResult> {
  const dispatcher = deps.dispatcher;
  const failed = (message: string): never => {
    throw new SubDagStartError(dag.name, `retry of child DAG run ${req.runId} did not start: ${message}`);
  };
  if (!dispatcher) return failed('it ran on a worker, and no dispatcher is available');
  const params = stepRetryDispatch(dag, previous, retry, {
    selector: req.workerSelector,
    parent: req.parent,
  });
  if ('error' in params) return failed(params.error);
  const selector = params.selector;
  let outcome: Awaited<ReturnType<DispatcherApi['dispatch']>>;
  try {
    outcome = await dispatcher.dispatch(params);
  } catch (err) {
    return failed(errorText(err));
  }
  if (outcome.outcome === 'refused') return failed(outcome.error);
  await files
    .appendFile(
      req.logFiles.stderr,
      `dispatched a retry of step ${retry.step} of sub-DAG run ${req.runId} to a worker matching ${formatSelector(selector)}\n`,
    )
    .catch(() => {});
  logger.info('Dispatched a retry of a sub-DAG run', {
    outcome: outcome.outcome,
    step: retry.step,
    selector: formatSelector(selector),
  });
  return followDispatchedChild(deps, dispatcher, req, logger);
}

/** Waits for a child dispatched to the workers to end (cancelling it when the parent stops) and returns it. */
async function followDispatchedChild(
  deps: LocalSubDagDeps,
  dispatcher: DispatcherApi,
  req: SubDagRequest,
  logger: Logger,
): Promise<SubDagResult> {
  const end = await waitForRunEnd({
    runs: deps.runStore,
    runId: req.runId,
    clock: deps.clock,
    pollMs: deps.pollMs ?? DEFAULT_POLL_MS,
    signal: req.signal,
    stopWaitMs: deps.config.run.kill_grace_ms + STOP_SLACK_MS,
    stop: async () => {
      try {
        const c = await dispatcher.cancel(req.runId);
        return c.kind === 'aborted' ? c.status : null;
      } catch (err) {
        logger.warn('Failed to cancel the sub-DAG run', { error: errorText(err) });
        return null;
      }
    },
  });
  return resultOf(req.runId, end);
}

/** The called DAG runs on this host as its own `dagu start` process, in its own process group. */
async function spawnChildRun(
  deps: LocalSubDagDeps,
  called: CalledDag,
  req: SubDagRequest,
  params: string[],
  chain: string[],
  logger: Logger,
): Promise<SubDagResult> {
  const { dag } = called;
  const local = called.local ? (called.sourceFile ?? null) : null;
  const record = await createChildRecord(deps, dag, req, params, dag.queue, local);
  const runId = record.run_id;
  // The child takes its params (and parent) over from the queued record, so none go on its command line.
  const args = [
    'start',
    '--quiet',
    '--trigger-type',
    'subdag',
    '--run-id',
    runId,
    ...(called.sourceFile ? ['--local-dag-source', called.sourceFile] : []),
    called.file ?? dag.name,
  ];
  return followChildProcess(deps, dag, req, runId, args, params, chain, logger, {
    spawnFailed: (message) => endChild(deps, record, message),
    endedUnstarted: async (message) => {
      await endChild(deps, record, message);
      throw new SubDagStartError(dag.name, `sub-DAG ${dag.name} did not start: ${message}`);
    },
  });
}

/**
 * `retry --sub-run-id` through a call step: its child of the previous attempt is used again. The one on the
 * path gets a new attempt retrying the path's step, in a `dagu retry` process like a child's `dagu start`;
 * any other keeps the result it had, nothing run.
 */
async function againChildRun(
  deps: LocalSubDagDeps,
  called: CalledDag,
  req: SubDagRequest,
  chain: string[],
  logger: Logger,
): Promise<SubDagResult> {
  const { dag } = called;
  const read = await deps.runStore.readStatus(req.runId);
  if (read.kind !== 'ok')
    throw new SubDagStartError(
      dag.name,
      `child DAG run ${req.runId} cannot be used again: ${read.kind === 'missing' ? 'it is gone' : `its status is unreadable: ${read.error}`}`,
    );
  const retry = req.existing?.retry ?? null;
  if (retry === null) {
    if (TERMINAL_RUN_STATES.includes(read.status.status)) return childResult(read.status);
    throw new SubDagStartError(
      dag.name,
      `child DAG run ${req.runId} is ${read.status.status}; it cannot be kept`,
    );
  }
  // A child that ran on a worker is retried there: a retry task of this one step, followed to its end.
  if (read.status.worker_id) return dispatchChildRetry(deps, dag, req, read.status, retry, logger);
  const args = [
    'retry',
    '--quiet',
    '--step',
    retry.step,
    ...(retry.downstream ? ['--downstream'] : []),
    ...(retry.path ? ['--retry-path', encodeRetryPath(retry.path)] : []),
    req.runId,
  ];
  const failed = (message: string) => {
    throw new SubDagStartError(dag.name, `retry of child DAG run ${req.runId} did not start: ${message}`);
  };
  return followChildProcess(deps, dag, req, req.runId, args, read.status.params, chain, logger, {
    spawnFailed: async () => undefined,
    endedUnstarted: async (message) => failed(message),
    // The attempt it had is the one to replace: a status of it is not the retry's.
    previousAttempt: read.status.attempt,
  });
}

/** What to do when the child process does not start, or ends before it took the run over. */
interface ChildProcessEnds {
  spawnFailed: (message: string) => Promise<unknown>;
  endedUnstarted: (message: string) => Promise<never>;
  /** The attempt the run had before this process: until a newer one is there, the process has not begun. */
  previousAttempt?: number;
}

/** Starts a `dagu` process for the child run `runId`, follows it to its end and returns the child's result. */
async function followChildProcess(
  deps: LocalSubDagDeps,
  dag: DagSpec,
  req: SubDagRequest,
  runId: string,
  args: string[],
  params: string[],
  chain: string[],
  logger: Logger,
  ends: ChildProcessEnds,
): Promise<SubDagResult> {
  const stderrOffset = await fileSize(req.logFiles.stderr);
  let child: ChildProcessHandle;
  try {
    child = (deps.spawnChild ?? spawnChildProcess)({
      executable: deps.executable,
      args,
      // The child must see the same DAGU_HOME as this process, even when it came from a flag.
      env: runProcessEnv({
        ...deps.env,
        DAGU_HOME: deps.config.home,
        [CALL_CHAIN_ENV]: JSON.stringify(chain),
      }),
      // The step's stdout is the child's result JSON alone: the child process's own output goes to stderr.
      stdoutFile: req.logFiles.stderr,
      stderrFile: req.logFiles.stderr,
    });
  } catch (err) {
    await ends.spawnFailed(`the sub-DAG process did not start: ${errorText(err)}`);
    throw new SubDagStartError(dag.name, `sub-DAG ${dag.name} did not start: ${errorText(err)}`);
  }
  logger.info('Started a sub-DAG run process', { pid: child.pid, run_id: runId });

  const signalChild = deps.signalChild ?? ((pid, sig) => void signalGroup(pid, sig));
  let killTimer: ReturnType<typeof setTimeout> | null = null;
  const onAbort = () => {
    // `dagu start` aborts its steps on SIGTERM and records `aborted`; SIGKILL only if it does not end in time.
    signalChild(child.pid, 'SIGTERM');
    killTimer = setTimeout(
      () => signalChild(child.pid, 'SIGKILL'),
      deps.config.run.kill_grace_ms + STOP_SLACK_MS,
    );
  };
  if (req.signal.aborted) onAbort();
  else req.signal.addEventListener('abort', onAbort, { once: true });
  let exit: ChildExit;
  try {
    exit = await child.exited;
  } finally {
    req.signal.removeEventListener('abort', onAbort);
    if (killTimer) clearTimeout(killTimer);
  }

  const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
  const read = await deps.runStore.readStatus(runId);
  const begun =
    read.kind !== 'ok' || ends.previousAttempt === undefined || read.status.attempt > ends.previousAttempt;
  if (read.kind === 'ok' && begun && TERMINAL_RUN_STATES.includes(read.status.status)) {
    return childResult(read.status);
  }
  if (read.kind === 'ok' && begun && read.status.status === 'running') {
    // Killed before it could record its end; the scheduler's reaper marks the record failed later.
    return {
      run_id: runId,
      dag_name: dag.name,
      status: 'failed',
      error: `the sub-DAG process ${how} while its run was running`,
      params,
      outputs: {},
    };
  }
  if (read.kind === 'corrupt') {
    return {
      run_id: runId,
      dag_name: dag.name,
      status: 'failed',
      error: `the sub-DAG run's status is unreadable: ${read.error}`,
      params,
      outputs: {},
    };
  }
  // Still queued (or gone): the process ended before it took the run over.
  const why = await lastLine(req.logFiles.stderr, stderrOffset);
  return ends.endedUnstarted(`its process ${how}${why ? ` (${why})` : ''} before it started the run`);
}

/** What `waitForRunEnd` saw: the run ended, or it was asked to stop and did not end within the stop wait. */
export type RunEnd = { kind: 'ended'; status: RunStatus } | { kind: 'gave_up'; status: RunStatus | null };

/** Following a run in the run store until it ends. */
export interface WaitForRunEndOptions {
  runs: Pick<RunStore, 'readStatus'>;
  runId: string;
  clock: Clock;
  pollMs: number;
  /** Aborted = stop the run: `stop` is called once, then the wait lasts at most `stopWaitMs` longer. */
  signal?: AbortSignal;
  /** Asks the run to stop; may return its final status when that is immediate. */
  stop?: () => Promise<RunStatus | null>;
  stopWaitMs?: number;
  /** Called with each status read that differs in state from the previous one. */
  onChange?: (status: RunStatus) => void;
}

/** Polls the run store until the run is in a terminal state (or a stop request ran out of time). */
export async function waitForRunEnd(o: WaitForRunEndOptions): Promise<RunEnd> {
  let last: RunStatus | null = null;
  let stopDeadline: number | null = null;
  for (;;) {
    if (o.signal?.aborted && stopDeadline === null) {
      stopDeadline = o.clock.monoMs() + (o.stopWaitMs ?? 0);
      const ended = o.stop ? await o.stop() : null;
      if (ended && TERMINAL_RUN_STATES.includes(ended.status)) return { kind: 'ended', status: ended };
    }
    const read = await o.runs.readStatus(o.runId);
    if (read.kind === 'ok') {
      if (last === null || last.status !== read.status.status) o.onChange?.(read.status);
      last = read.status;
      if (TERMINAL_RUN_STATES.includes(last.status)) return { kind: 'ended', status: last };
    }
    if (stopDeadline !== null && o.clock.monoMs() >= stopDeadline) return { kind: 'gave_up', status: last };
    await sleep(o.pollMs, stopDeadline === null ? o.signal : undefined);
  }
}

function resultOf(runId: string, end: RunEnd): SubDagResult {
  if (end.kind === 'ended') return childResult(end.status);
  const state = end.status?.status ?? 'unknown';
  return {
    run_id: runId,
    status: 'aborted',
    error: `asked the sub-DAG run to stop, but it was still ${state} when the wait ended`,
  };
}

/** Resolves after `ms`, or as soon as `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

async function fileSize(file: string): Promise<number> {
  const fd = await files.open(file, 'a+').catch(() => null);
  if (fd === null) return 0;
  try {
    return (await files.fstat(fd)).size;
  } finally {
    await files.close(fd);
  }
}

/** The last non-empty line written to `file` after `offset` (at most 4 KiB of it), or null. */
async function lastLine(file: string, offset: number): Promise<string | null> {
  const fd = await files.open(file, 'r').catch(() => null);
  if (fd === null) return null;
  try {
    const size = (await files.fstat(fd)).size;
    const start = Math.max(offset, size - 4096);
    const buf = Buffer.alloc(Math.max(0, size - start));
    await files.readAt(fd, buf, start);
    const lines = buf
      .toString('utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    return lines.at(-1) ?? null;
  } finally {
    await files.close(fd);
  }
}

/** The real spawner: a detached `node <executable> …` (own process group) that this process waits for. */
export const spawnChildProcess: ChildSpawner = (o) => {
  const out = openSync(o.stdoutFile, 'a');
  const err = openSync(o.stderrFile, 'a');
  try {
    const child = spawnProcess({
      file: process.execPath,
      args: [o.executable, ...o.args],
      env: o.env,
      detached: true,
      stdoutFd: out,
      stderrFd: err,
    });
    if (child.pid === null) throw new Error(`could not start ${process.execPath} ${o.executable}`);
    const exited = child.exited.then((end): ChildExit =>
      end.kind === 'exited' ? { code: end.exitCode, signal: end.signal } : { code: null, signal: null },
    );
    superviseChild(exited);
    return { pid: child.pid, exited };
  } finally {
    closeSync(out);
    closeSync(err);
  }
};
