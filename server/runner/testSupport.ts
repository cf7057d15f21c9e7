// Helpers for the runner's tests: DAG and step builders, a reporter that records what it is given,
// temp directories and a process-group probe. Not used by production code.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../core/clock';
import { silentLogger, type Logger, type LogFields } from '../core/ports';
import { newRunStatus } from '../core/runStatus';
import type { DagSpec, RunStatus, StepSpec } from '../core/types';
import { executeRun, type ExecuteRunOptions } from './executeRun';
import type { StatusReporter } from './statusReporter';

export function stepOf(
  name: string,
  command: string | string[] | null,
  extra: Partial<StepSpec> = {},
): StepSpec {
  return {
    name,
    command: command === null ? null : Array.isArray(command) ? command : [command],
    script: null,
    shell: null,
    dir: null,
    env: {},
    depends: [],
    timeout_sec: null,
    retry_policy: null,
    continue_on: { failure: false },
    output: null,
    call: null,
    worker_selector: null,
    ...extra,
  };
}

export function dagOf(steps: StepSpec[], extra: Partial<DagSpec> = {}): DagSpec {
  return {
    name: 'test-dag',
    description: '',
    tags: [],
    schedule: [],
    steps,
    params: [],
    env: {},
    queue: 'test-dag',
    max_active_runs: 1,
    overlap_policy: 'skip',
    catchup_window_ms: 0,
    retry_policy: null,
    timeout_sec: null,
    worker_selector: null,
    handler_on: { success: null, failure: null, abort: null, exit: null },
    signal_handling: { enable_propagation: false },
    file: null,
    ...extra,
  };
}

/** Steps without `depends` made into a chain, the way the DAG loader hands them over. */
export function chain(steps: StepSpec[]): StepSpec[] {
  return steps.map((s, i) => (i === 0 ? s : { ...s, depends: [steps[i - 1].name] }));
}

/** A reporter keeping every status it was given (as copies) and counting heartbeats. */
export function recordingReporter(): StatusReporter & { statuses: RunStatus[]; heartbeats: number[] } {
  const statuses: RunStatus[] = [];
  const heartbeats: number[] = [];
  return {
    statuses,
    heartbeats,
    async write(status) {
      statuses.push(structuredClone(status));
    },
    async heartbeat(nowMs) {
      heartbeats.push(nowMs);
    },
  };
}

/** Just enough environment for `sh` to find its commands (the tests check what else steps receive). */
export function minimalEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, NODE_ENV: process.env.NODE_ENV };
}

/** A temp directory removed by the returned cleanup. */
export function tempDir(prefix = 'dagu-runner-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Runs `dag` with a recording reporter and short timings; `logDir` is `<dir>/logs`. */
export async function runDag(
  dag: DagSpec,
  dir: string,
  extra: Partial<ExecuteRunOptions> & { params?: string[]; scheduleTime?: string | null } = {},
) {
  const reporter = recordingReporter();
  const status = newRunStatus({
    dag,
    runId: 'run-1',
    status: 'running',
    triggerType: 'manual',
    scheduleTime: extra.scheduleTime ?? null,
    params: extra.params ?? [],
    nowIso: new Date().toISOString(),
    logDir: 'test-dag/run-1/1',
  });
  const final = await executeRun({
    dag,
    status,
    reporter,
    logDir: join(dir, 'logs'),
    clock: systemClock,
    logger: silentLogger,
    signal: new AbortController().signal,
    killGraceMs: 300,
    heartbeatIntervalMs: 50,
    baseEnv: minimalEnv(),
    workDir: join(dir, 'work'),
    ...extra,
  });
  return { final, reporter };
}

/**
 * Polls `check` every 10 ms until it is true; rejects after `timeoutMs`. The default is generous: what tests
 * wait for is often a process starting, which takes seconds while the whole suite loads the machine.
 */
export async function waitFor(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A line a recordingLogger got. */
export interface Logged {
  level: string;
  msg: string;
  fields: LogFields;
}

/** A logger that keeps every line in `into`; its children write there too. */
export function recordingLogger(into: Logged[]): Logger {
  const at =
    (level: string) =>
    (msg: string, fields: LogFields = {}) =>
      into.push({ level, msg, fields });
  const logger: Logger = {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: () => logger,
  };
  return logger;
}
