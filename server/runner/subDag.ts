// Sub-DAG steps (`call`, `action: dag.run` / `dag.enqueue`, `parallel`) as the engine sees them: the runner
// port that starts a child run and waits for its end, the child's deterministic run ID, and executing a call
// step through that port (its status, its `sub_runs`, and the JSON it writes to stdout as Dagu does).

import type { Labels } from '../core/distributed';
import { formatDuration } from '../core/duration';
import { isoTime } from '../core/isoTime';
import { formatParam } from '../core/params';
import type { Clock } from '../core/ports';
import type { RetryPath, StepRetry } from '../core/retryPath';
import type { DagSpec, RunState, RunStatus, StepSpec, StepStatus } from '../core/types';
import { SECOND } from '../core/units';
import { appendFile } from '../store/fileCalls';
import { childCalls, DEFAULT_MAX_CONCURRENT, type ChildCall, type ResolveText } from './parallelItems';
import { mapConcurrently } from '../core/concurrency';

/** Why the whole run is stopping; carried as the `reason` of the run's stop signal (as runStep has it). */
type StopReason =
  { kind: 'aborted'; signal: NodeJS.Signals; message: string } | { kind: 'timed_out'; message: string };

/** The run and step that call a sub-DAG. */
export interface SubDagParent {
  run_id: string;
  dag_name: string;
  step: string;
}

/** One child run to start and follow to its end (or, for `dag.enqueue`, to put in its queue). */
export interface SubDagRequest {
  parent: SubDagParent;
  /** The resolved target: a local document of the parent's file, or a DAG name or path of the catalogue. */
  dagName: string;
  /** The calling DAG: its local documents (`local_dags`, `file`) are looked up before the catalogue. */
  parentDag?: Pick<DagSpec, 'name' | 'file' | 'local_dags' | 'source_file'>;
  /** The child run's ID, fixed before the child starts (see subRunId); the runner may add a random part. */
  runId: string;
  /**
   * The step's params as words (`NAME=value` or a bare value, see parseParamWord), laid over the child's
   * defaults as command-line params are (Dagu's rules).
   */
  params: string[];
  /** `run` waits for the child's end; `enqueue` puts it in `queue` (or its DAG's queue) and returns. */
  mode?: 'run' | 'enqueue';
  queue?: string | null;
  /** The step's own `worker_selector`, or null (the called DAG's selector then decides). */
  workerSelector: Labels | null;
  /**
   * Aborted when the parent stops (abort or timeout): the runner stops the child and still waits for its
   * final state (bounded) before it returns.
   */
  signal: AbortSignal;
  /** The call step's log files (absolute): a local child process's own output is appended to stderr. */
  logFiles: { stdout: string; stderr: string };
  /**
   * `runId` is a child run that exists (`retry --sub-run-id`): with `retry`, a new attempt of it retries that
   * step (and the path's rest below it); without, its result is taken as it is, nothing run.
   */
  existing?: { retry: StepRetry | null };
}

/** How the child run ended (or `queued`, for `dag.enqueue`). */
export interface SubDagResult {
  run_id: string;
  /** The child's DAG name as its run records it (a local document's `name`). */
  dag_name?: string;
  status: RunState;
  error: string | null;
  /** The child's params as its run records them. */
  params?: string[];
  /** Every `output:` variable of the child's steps and handlers, in step order (later ones win). */
  outputs?: Record<string, string>;
  /**
   * The values the child's steps and handlers published (`outputs.write`, `stdout.outputs`, an object-form
   * `output:`), merged in that order: Dagu's `outputValues`, and the call step's own outputs.
   */
  output_values?: Record<string, unknown>;
}

/**
 * A finished child as the parent step reports it, as Dagu's RunStatus has it: the `output:` variables of its
 * steps and handlers (`outputs`) and the values they published (`outputValues`), later ones winning.
 */
export function childResult(s: RunStatus): SubDagResult {
  const outputs: Record<string, string> = Object.create(null);
  const values: Record<string, unknown> = Object.create(null);
  for (const step of [...(s.steps ?? []), ...Object.values(s.handlers ?? {})]) {
    if (step?.output) Object.assign(outputs, step.output);
    if (step?.published_outputs) Object.assign(values, step.published_outputs);
  }
  return {
    run_id: s.run_id,
    dag_name: s.dag_name,
    status: s.status,
    error: s.error,
    params: s.params,
    outputs: { ...outputs },
    ...(Object.keys(values).length > 0 ? { output_values: { ...values } } : {}),
  };
}

/**
 * Starts a child run and resolves with its final state. Rejects with SubDagStartError when the child could
 * not be started at all (unknown DAG, bad params, a recursive call, refused dispatch); the step then fails
 * with exactly that message.
 */
export type SubDagRunner = (r: SubDagRequest) => Promise<SubDagResult>;

/** Thrown by a SubDagRunner when no child run was started; the message is the call step's error. */
export class SubDagStartError extends Error {
  constructor(
    readonly dagName: string,
    message: string,
  ) {
    super(message);
    this.name = 'SubDagStartError';
  }
}

/** The step error when an engine has no runner to start children with (e.g. a runner built for tests). */
export const NO_SUB_DAG_RUNNER = 'call steps need a sub-DAG runner';

const HASH_HEX = 12;
const MAX_RUN_ID = 64;

/**
 * The run ID of a child a call step starts: the parent's run ID (cut to fit) and a short digest of parent
 * run, step, attempt, target and params (and `salt`, random when the step runs again within one attempt).
 * Deterministic, so one attempt's child is always the same run; a new attempt of the parent (retry, resume)
 * starts a new child. Always matches RUN_ID_PATTERN.
 */
export function subRunId(
  parentRunId: string,
  stepName: string,
  attempt = 1,
  identity = '',
  salt = '',
): string {
  // Loaded on use: a run without call steps never needs node:crypto.
  const hash = process
    .getBuiltinModule('node:crypto')
    .createHash('sha256')
    .update(`${parentRunId}\n${stepName}\n${attempt}\n${identity}\n${salt}`)
    .digest('hex')
    .slice(0, HASH_HEX);
  // The prefix keeps the family visible in run lists; only the pattern's characters survive the cut.
  const prefix = parentRunId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, MAX_RUN_ID - HASH_HEX - 1);
  return prefix ? `${prefix}-${hash}` : hash;
}

/**
 * The foreach item whose body a call step runs in. A body step is one of many with its name (one per item), so
 * its children are told apart by the item (in their run IDs) and listed on the foreach step, labelled with it.
 */
export interface LoopItem {
  /** The foreach step: the parent step its children name, and whose status lists them. */
  stepName: string;
  owner: StepStatus;
  /** The item's place among the foreach step's executions and items (`foreach/<log name>/<index>`): unique. */
  path: string;
  /** The item as the foreach step's status labels it. */
  label: string;
}

/** What executing one call step needs; `status` is updated in place and `onChange` called after each update. */
export interface CallStepRun {
  step: StepSpec;
  status: StepStatus;
  parent: SubDagParent;
  /** The parent's attempt: part of the child's run ID. */
  attempt: number;
  runner: SubDagRunner | undefined;
  files: { stdout: string; stderr: string };
  clock: Clock;
  /** Aborted (with a StopReason) when the parent run stops. */
  stop: AbortSignal;
  onChange(): void;
  /** The calling DAG (local documents first); without it only the catalogue is searched. */
  dag?: DagSpec;
  /**
   * Value resolution in the step's scope for the target, params and `parallel` items (`extra` holds `ITEM`).
   * Without it only `${ITEM}` and `${ITEM.field}` are replaced and other text is kept as written.
   */
  resolve?: ResolveText;
  /** True when this step already ran in this attempt (repeat, retry): child run IDs then get a random part. */
  repeated?: boolean;
  /** Set for a step of a foreach body. */
  loop?: LoopItem;
  /**
   * `retry --sub-run-id` goes through this step: instead of new children, the children of its previous attempt
   * (`previous`, in call order) are used again: `runId` retries `step` (and passes `rest` on), every other one
   * keeps the result it had.
   */
  retryThrough?: {
    runId: string;
    step: string;
    downstream: boolean;
    rest: RetryPath | null;
    previous: NonNullable<StepStatus['sub_runs']>;
  };
}

/** One child's end as the parent step sees it. */
interface ChildEnd {
  call: ChildCall;
  result: SubDagResult | null;
  error: string | null;
}

/**
 * Runs a call step: `running` while its children run; then `succeeded`, `partially_succeeded` (a child
 * partially succeeded) or `failed` (a child that did not succeed, or could not start); `aborted` when the
 * parent stops. Stdout gets Dagu's JSON of the child result (or the parallel summary). Never throws.
 */
export async function runCallStep(run: CallStepRun): Promise<StepStatus['status']> {
  const { status, step } = run;
  Object.assign(status, {
    status: 'running',
    started_at: isoTime(run.clock.nowMs()),
    finished_at: null,
    exit_code: null,
    error: null,
    output: null,
    sub_runs: [],
  } satisfies Partial<StepStatus>);
  run.onChange();
  const note = (line: string) => appendFile(run.files.stderr, `${line}\n`).catch(() => undefined);

  try {
    // Both log files exist from the start, as for a command step, so the logs view always finds them.
    await appendFile(run.files.stdout, '');
    await appendFile(run.files.stderr, '');
    if (!run.runner) return finish(run, 'failed', NO_SUB_DAG_RUNNER);
    if (run.stop.aborted) return finishStopped(run, run.stop.reason as StopReason);
    const planned = childCalls(step, run.resolve ?? resolveItemOnly);
    if (!planned.ok) return finish(run, 'failed', planned.error);
    const runner = run.runner;
    const through = run.retryThrough;
    if (through) {
      // Dagu's errTargetRunMissing: the path names a child this step's previous attempt did not have.
      if (!through.previous.some((p) => p.run_id === through.runId))
        return finish(
          run,
          'failed',
          `target child DAG run ${through.runId} is not present in step ${step.name}`,
        );
      if (through.previous.length !== planned.calls.length)
        return finish(
          run,
          'failed',
          `cannot retry child DAG run ${through.runId} in place: step ${step.name} now makes ` +
            `${planned.calls.length} child runs, its previous attempt made ${through.previous.length}`,
        );
    }

    const child = new AbortController();
    const forward = () => child.abort(run.stop.reason);
    run.stop.addEventListener('abort', forward, { once: true });
    let timedOut: string | null = null;
    const timeoutSec = step.timeout_sec;
    const timer =
      timeoutSec !== null && timeoutSec > 0
        ? setTimeout(() => {
            timedOut = `timed out after ${formatDuration(timeoutSec * SECOND)}`;
            child.abort({ kind: 'timed_out', message: timedOut } satisfies StopReason);
          }, timeoutSec * SECOND)
        : null;
    const mode = step.action?.kind === 'dag' ? step.action.mode : 'run';
    const queue = step.action?.kind === 'dag' ? step.action.queue : null;
    const salt = run.repeated ? Math.random().toString(36).slice(2) : '';
    const width = step.parallel ? step.parallel.max_concurrent || DEFAULT_MAX_CONCURRENT : 1;

    let ends: ChildEnd[];
    try {
      ends = await mapConcurrently(planned.calls, width, async (call, index): Promise<ChildEnd> => {
        if (child.signal.aborted) return { call, result: null, error: 'not started: the step stopped' };
        const loop = run.loop;
        const idName = loop ? `${loop.path}/${step.name}` : step.name;
        const again = through?.previous[index];
        const runId = again ? again.run_id : subRunId(run.parent.run_id, idName, run.attempt, call.key, salt);
        const existing =
          again && through
            ? {
                retry:
                  again.run_id === through.runId
                    ? { step: through.step, downstream: through.downstream, path: through.rest }
                    : null,
              }
            : undefined;
        const item = step.parallel && call.item !== null ? call.item : null;
        const label = loop ? (item === null ? loop.label : `${loop.label} / ${item}`) : item;
        const entry: NonNullable<StepStatus['sub_runs']>[number] = {
          dag_name: call.target,
          run_id: runId,
          status: null,
          ...(label !== null ? { item: label } : {}),
        };
        status.sub_runs!.push(entry);
        // The same entry, updated in place below, is what the foreach step's status shows.
        if (loop) (loop.owner.sub_runs ??= []).push(entry);
        run.onChange();
        await note(`starting sub-DAG ${call.target} run ${runId}`);
        try {
          const result = await runner({
            parent: run.parent,
            dagName: call.target,
            parentDag: run.dag,
            runId,
            params: call.params.map(formatParam),
            mode,
            queue,
            workerSelector: step.worker_selector,
            signal: child.signal,
            logFiles: run.files,
            ...(existing ? { existing } : {}),
          });
          Object.assign(entry, {
            run_id: result.run_id,
            dag_name: result.dag_name ?? entry.dag_name,
            status: result.status,
          });
          run.onChange();
          await note(`sub-DAG ${entry.dag_name} run ${result.run_id} ended ${result.status}`);
          return { call, result, error: null };
        } catch (err) {
          const message = err instanceof Error ? err.message : String(err);
          entry.status = 'failed';
          run.onChange();
          await note(`sub-DAG ${call.target} run ${runId} did not start: ${message}`);
          return {
            call,
            result: null,
            error: err instanceof SubDagStartError ? message : `runner error: ${message}`,
          };
        }
      });
    } finally {
      if (timer) clearTimeout(timer);
      run.stop.removeEventListener('abort', forward);
    }

    const stdout = step.parallel ? parallelJson(ends) : singleJson(ends[0]);
    if (stdout !== null) {
      await appendFile(run.files.stdout, stdout);
      if (step.output) status.output = { [step.output]: stdout.trim() };
    }
    // The values a single child published are the call step's own outputs (`${call.outputs.x}`), as in Dagu.
    const published = step.parallel ? undefined : ends[0]?.result?.output_values;
    if (published) status.published_outputs = { ...published };
    if (run.stop.aborted) return finishStopped(run, run.stop.reason as StopReason);
    if (timedOut !== null) return finish(run, 'failed', timedOut);
    return step.parallel ? endParallel(run, ends) : endSingle(run, ends[0]);
  } catch (e) {
    return finish(run, 'failed', `runner error: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function endSingle(run: CallStepRun, end: ChildEnd): StepStatus['status'] {
  if (!end.result) return finish(run, 'failed', end.error);
  const { result } = end;
  if (result.status === 'succeeded' || result.status === 'queued') return finish(run, 'succeeded', null, 0);
  if (result.status === 'partially_succeeded') return finish(run, 'partially_succeeded', null, 0);
  const detail = result.error ? `: ${result.error}` : '';
  return finish(run, 'failed', `sub-DAG run ${result.run_id} ended with status ${result.status}${detail}`, 1);
}

function endParallel(run: CallStepRun, ends: ChildEnd[]): StepStatus['status'] {
  const ok = (s: RunState) => s === 'succeeded' || s === 'partially_succeeded' || s === 'queued';
  const failed = ends.filter((e) => !e.result || !ok(e.result.status));
  if (failed.length > 0) {
    const first = failed[0];
    const why = first.result
      ? `run ${first.result.run_id} ended with status ${first.result.status}`
      : `${first.call.target}: ${first.error}`;
    return finish(
      run,
      'failed',
      `parallel execution failed: ${failed.length} of ${ends.length} sub-DAG runs did not succeed (first: ${why})`,
      1,
    );
  }
  if (ends.some((e) => e.result!.status === 'partially_succeeded')) {
    return finish(run, 'partially_succeeded', null, 0);
  }
  return finish(run, 'succeeded', null, 0);
}

/** Dagu's JSON of one child result: name, dagRunId, params (when any), outputs, outputValues (when any), status. */
function resultObject(r: SubDagResult, fallbackName: string): Record<string, unknown> {
  const params = (r.params ?? []).join(' ');
  const values = r.output_values ?? {};
  return {
    name: r.dag_name ?? fallbackName,
    dagRunId: r.run_id,
    ...(params ? { params } : {}),
    outputs: sortedObject(r.outputs ?? {}),
    ...(Object.keys(values).length > 0 ? { outputValues: sortedObject(values) } : {}),
    status: r.status,
  };
}

function singleJson(end: ChildEnd): string | null {
  return end.result ? goJson(resultObject(end.result, end.call.target)) : null;
}

function parallelJson(ends: ChildEnd[]): string {
  const results = ends.filter((e) => e.result !== null);
  const succeeded = results.filter(
    (e) => e.result!.status === 'succeeded' || e.result!.status === 'partially_succeeded',
  );
  return goJson({
    summary: { total: ends.length, succeeded: succeeded.length, failed: ends.length - succeeded.length },
    results: results.map((e) => resultObject(e.result!, e.call.target)),
    outputs: succeeded.map((e) => sortedObject(e.result!.outputs ?? {})),
  });
}

/** JSON indented by two spaces with a final newline, `<`, `>` and `&` escaped, as Go's encoder writes it. */
function goJson(value: unknown): string {
  const text = JSON.stringify(value, null, 2).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return `${text}\n`;
}

function sortedObject<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The fallback resolver: `${ITEM}` and `${ITEM.field}` (of a JSON object item); other text is kept. */
export const resolveItemOnly: ResolveText = (text, extra) =>
  text.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)((?:\.[A-Za-z0-9_]+)*)\}/g,
    (whole, name: string, path: string) => {
      if (!(name in extra)) return whole;
      const value = extra[name];
      if (!path) return value;
      let cur: unknown;
      try {
        cur = JSON.parse(value);
      } catch {
        return whole;
      }
      for (const key of path.slice(1).split('.')) {
        if (cur === null || typeof cur !== 'object' || !(key in cur)) return whole;
        cur = (cur as Record<string, unknown>)[key];
      }
      return typeof cur === 'string' ? cur : JSON.stringify(cur);
    },
  );

function finish(
  run: CallStepRun,
  state: StepStatus['status'],
  error: string | null,
  exitCode: number | null = null,
): StepStatus['status'] {
  run.status.status = state;
  run.status.error = error;
  if (exitCode !== null) run.status.exit_code = exitCode;
  run.status.finished_at = isoTime(run.clock.nowMs());
  run.onChange();
  return state;
}

function finishStopped(run: CallStepRun, reason: StopReason): StepStatus['status'] {
  return finish(run, reason.kind === 'aborted' ? 'aborted' : 'failed', reason.message);
}
