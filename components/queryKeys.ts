// The console's query keys: the only place they are spelled. A key starts with its family, so that a mutation
// marks a whole family stale with the family's key (`queryKeys.runLists()` matches every run-list page) and a
// run's key covers its step logs. The filters that make a view are part of its key, with an unset field and an
// empty one spelled alike, so that equal views share one cache entry.

/** The run list's view state, as held in the URL. */
export interface RunFilter {
  dag?: string;
  status?: string;
  trigger?: string;
  /** Label filters separated by commas (`team=data`, `!nightly`, `env=prod-*`), as the API's `labels`. */
  labels?: string;
  /** A time preset (`1h`, `24h`, `7d`, `30d`), or absent with `from`/`to` (RFC 3339) for a custom range. */
  range?: string;
  from?: string;
  to?: string;
  cursor?: string;
}

/** The run list's filter fields, in URL order. */
export const RUN_FILTER_KEYS = [
  'dag',
  'status',
  'trigger',
  'labels',
  'range',
  'from',
  'to',
  'cursor',
] as const satisfies ReadonlyArray<keyof RunFilter>;

/** The queue page's view state, as held in the URL. */
export interface QueueFilter {
  queue?: string;
  dag?: string;
  selector?: string;
  reason?: string;
}

export const QUEUE_FILTER_KEYS = ['queue', 'dag', 'selector', 'reason'] as const satisfies ReadonlyArray<
  keyof QueueFilter
>;

export type LogStream = 'stdout' | 'stderr';

const DAGS = 'dags';
const RUNS = 'runs';
const RUN = 'run';
const QUEUE = 'queue';
const LOG = 'log';

export const queryKeys = {
  session: () => ['session'] as const,
  overview: () => ['overview'] as const,
  workers: () => ['workers'] as const,
  /** The DAG list, and the prefix of every DAG's detail. */
  dags: () => [DAGS] as const,
  dag: (name: string) => [DAGS, name] as const,
  /**
   * A DAG file's text and version, for the editor. Outside the DAG family: what invalidates DAGs (a run
   * started) must not reload a text being edited; the editor fetches it again itself after a save.
   */
  dagSpec: (name: string) => ['dag-spec', name] as const,
  /** A DAG's last runs with their step states (the history grid and duration charts). */
  dagHistory: (name: string, limit: number) => [DAGS, name, 'history', limit] as const,
  /** The prefix of every run-list page, whatever its filter. */
  runLists: () => [RUNS] as const,
  runList: (filter: RunFilter) =>
    [
      RUNS,
      Object.fromEntries(RUN_FILTER_KEYS.map((k) => [k, filter[k] ?? ''])) as Record<keyof RunFilter, string>,
    ] as const,
  /** One run, and the prefix of its step logs. */
  run: (runId: string) => [RUN, runId] as const,
  /** `version` (the step's attempt, state and finish) changes the key, so a finished step is fetched once more. */
  stepLog: (runId: string, step: string, stream: LogStream, version: string) =>
    [RUN, runId, LOG, step, stream, version] as const,
  /** A run's artifacts; `version` (its state and attempt) changes the key, so an ended run is listed once more. */
  runArtifacts: (runId: string, version: string) => [RUN, runId, 'artifacts', version] as const,
  /** The state and times of a page of child runs (a separate family: a run ID could be any word). */
  runTimings: (runIds: readonly string[]) => ['run-timings', runIds.join(',')] as const,
  /** The prefix of every queue listing, whatever its filter. */
  queues: () => [QUEUE] as const,
  queue: (filter: QueueFilter) =>
    [
      QUEUE,
      {
        queue: filter.queue ?? '',
        dag: filter.dag ?? '',
        selector: filter.selector ?? '',
        reason: filter.reason ?? '',
      },
    ] as const,
};

/** Whether `key` is a step log of `step` in `stream` (any run, any version). */
export function isStepLogOf(key: readonly unknown[] | undefined, step: string, stream: LogStream): boolean {
  return key?.[0] === RUN && key[2] === LOG && key[3] === step && key[4] === stream;
}
