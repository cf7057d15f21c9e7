// The sub-DAG runner of a run process on this host (`dagu start`, `dagu retry`, `dagu resume`): a called DAG
// that belongs on the workers is dispatched through the coordinator's dispatcher and followed in the run store;
// any other runs as its own `dagu start` process, which this runner waits for.

import { runProcessEnv } from './runProcessEnv';
import { closeSync, openSync } from 'node:fs';
import type { Config } from '../config/types';
import { formatDagError } from '../core/dag/dagError';
import { formatSelector } from '../core/distributed';
import { formatDuration } from '../core/duration';
import { resolveParams } from '../core/params';
import type { Clock, Logger } from '../core/ports';
import { TERMINAL_RUN_STATES, type DagSpec, type RunStatus } from '../core/types';
import { SECOND } from '../core/units';
import {
  isDistributed,
  resolveSelector,
  type DispatcherApi,
  newRunDispatch,
} from '../coordinator/dispatcherApi';
import { loadDag, type LoadDagResult } from '../store/dagCatalog';
import type { RunStore } from '../store/types';
import { signalGroup } from './processGroup';
import { errorText } from './statusReporter';
import { SubDagStartError, type SubDagRequest, type SubDagResult, type SubDagRunner } from './subDag';
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
  runStore: Pick<RunStore, 'readStatus'>;
  /** For called DAGs that belong on the workers; null where no dispatch is possible (they then fail). */
  dispatcher: DispatcherApi | null;
  /** The `dagu` script child processes run (bin/dagu, or DAGU_EXECUTABLE). */
  executable: string;
  /** The environment child processes inherit (DAGU_HOME is set from the config on top). */
  env: NodeJS.ProcessEnv;
  clock: Clock;
  logger: Logger;
  /** Defaults: the DAG catalogue, a real detached spawn, process-group signals, 250 ms polls. */
  loadDag?: (nameOrFile: string) => Promise<LoadDagResult>;
  spawnChild?: ChildSpawner;
  signalChild?: (pid: number, signal: NodeJS.Signals) => void;
  pollMs?: number;
}

const DEFAULT_POLL_MS = 250;
/** Beyond the kill grace, how long a stopped child gets to record its end. */
const STOP_SLACK_MS = 10 * SECOND;

/** A SubDagRunner for run processes on this host. */
export function localSubDagRunner(deps: LocalSubDagDeps): SubDagRunner {
  const load = deps.loadDag ?? ((name: string) => loadDag(deps.config.paths.dags_dir, name));
  return async (req) => {
    const dag = await loadCalledDag(load, req.dagName, deps.config.paths.dags_dir);
    const logger = deps.logger.child({ sub_dag: dag.name, sub_run_id: req.runId });
    if (isDistributed(dag, deps.config.default_execution_mode, req.workerSelector)) {
      return dispatchChild(deps, dag, req, logger);
    }
    return spawnChildRun(deps, dag, req, logger);
  };
}

async function loadCalledDag(
  load: (name: string) => Promise<LoadDagResult>,
  name: string,
  dagsDir: string,
): Promise<DagSpec> {
  let r: LoadDagResult;
  try {
    r = await load(name);
  } catch (err) {
    throw new SubDagStartError(name, `cannot load sub-DAG ${JSON.stringify(name)}: ${errorText(err)}`);
  }
  if (r.ok) return r.dag;
  if ('notFound' in r)
    throw new SubDagStartError(name, `sub-DAG ${JSON.stringify(name)} not found in ${dagsDir}`);
  const first = r.errors[0];
  throw new SubDagStartError(
    name,
    `sub-DAG ${JSON.stringify(name)} is invalid: ${first ? formatDagError(first) : 'unknown error'}`,
  );
}

/** The called DAG goes to the workers: dispatched (or held) like a `dagu start`, then followed in the run store. */
async function dispatchChild(
  deps: LocalSubDagDeps,
  dag: DagSpec,
  req: SubDagRequest,
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
        params: resolveChildParams(dag, req.params),
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
      req.logFiles.stdout,
      outcome.outcome === 'held'
        ? `holding sub-DAG run ${req.runId}: no healthy worker matches ${formatSelector(selector)}; waiting up to ${formatDuration(waitMs)}\n`
        : `dispatched sub-DAG run ${req.runId} to a worker matching ${formatSelector(selector)}\n`,
    )
    .catch(() => {});
  logger.info('Dispatched a sub-DAG run', { outcome: outcome.outcome, selector: formatSelector(selector) });

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
  dag: DagSpec,
  req: SubDagRequest,
  logger: Logger,
): Promise<SubDagResult> {
  const args = ['start', '--quiet', '--trigger-type', 'subdag', '--run-id', req.runId, dag.file ?? dag.name];
  if (req.params.length > 0) args.push('--', ...req.params);
  const stderrOffset = await fileSize(req.logFiles.stderr);
  let child: ChildProcessHandle;
  try {
    child = (deps.spawnChild ?? spawnChildProcess)({
      executable: deps.executable,
      args,
      // The child must see the same DAGU_HOME as this process, even when it came from a flag.
      env: runProcessEnv({ ...deps.env, DAGU_HOME: deps.config.home }),
      stdoutFile: req.logFiles.stdout,
      stderrFile: req.logFiles.stderr,
    });
  } catch (err) {
    throw new SubDagStartError(dag.name, `sub-DAG ${dag.name} did not start: ${errorText(err)}`);
  }
  logger.info('Started a sub-DAG run process', { pid: child.pid });

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
  const read = await deps.runStore.readStatus(req.runId);
  if (read.kind === 'ok' && TERMINAL_RUN_STATES.includes(read.status.status)) {
    return { run_id: req.runId, status: read.status.status, error: read.status.error };
  }
  if (read.kind === 'ok') {
    // Killed before it could record its end; the scheduler's reaper marks the record failed later.
    return {
      run_id: req.runId,
      status: 'failed',
      error: `the sub-DAG process ${how} while its run was ${read.status.status}`,
    };
  }
  if (read.kind === 'corrupt') {
    return {
      run_id: req.runId,
      status: 'failed',
      error: `the sub-DAG run's status is unreadable: ${read.error}`,
    };
  }
  const why = await lastLine(req.logFiles.stderr, stderrOffset);
  throw new SubDagStartError(
    dag.name,
    `sub-DAG ${dag.name} did not start: its process ${how}${why ? ` (${why})` : ''}`,
  );
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
  if (end.kind === 'ended') return { run_id: runId, status: end.status.status, error: end.status.error };
  const state = end.status?.status ?? 'unknown';
  return {
    run_id: runId,
    status: 'aborted',
    error: `asked the sub-DAG run to stop, but it was still ${state} when the wait ended`,
  };
}

/** A dispatched child's params are resolved here, as `dagu start` resolves them for a local child. */
function resolveChildParams(dag: DagSpec, overrides: string[]): string[] {
  return resolveParams(dag.params, overrides).list;
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
