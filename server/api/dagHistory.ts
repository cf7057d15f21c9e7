// A DAG's recent history in one answer, for the history grid and duration charts of its page: the last N runs
// (newest first) with each step's state and times, and the step columns (the definition's steps, then steps
// only seen in history). Only the N newest runs are read, found through the per-DAG run index; what can be
// kept between requests is (dagHistoryCache.ts), so a page poll reads the DAG file and the running runs only.

import { assertDagName } from '../core/names';
import {
  TERMINAL_RUN_STATES,
  type RunState,
  type RunStatus,
  type StepState,
  type TriggerType,
} from '../core/types';
import { loadDagByName } from '../store/dagCatalog';
import type { DagSpecCache } from '../store/dagSpecCache';
import type { RunSummary } from '../store/types';
import { DagHistoryCache } from './dagHistoryCache';
import { BadRequestError, NotFoundError } from './errors';
import type { Services } from './services';
import { FILE_READ_CONCURRENCY, mapConcurrently } from '../core/concurrency';

export const DEFAULT_HISTORY_LIMIT = 30;
export const MAX_HISTORY_LIMIT = 100;

/** One step of one run, as the grid shows it. */
export interface HistoryStep {
  status: StepState;
  started_at: string | null;
  finished_at: string | null;
  retry_count: number;
}

/** One run of the history. `steps` is null when its record cannot be read. */
export interface HistoryRun {
  run_id: string;
  attempt: number;
  status: RunState | 'corrupt';
  trigger_type: TriggerType | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** Wall time from start to end; null while running or never started. */
  duration_ms: number | null;
  steps: Record<string, HistoryStep> | null;
}

export interface DagHistory {
  dag_name: string;
  /** Step columns: the definition's steps in file order, then steps only seen in these runs. */
  steps: string[];
  runs: HistoryRun[];
}

const caches = new WeakMap<Services, DagHistoryCache<HistoryRun>>();

function cacheOf(svc: Services): DagHistoryCache<HistoryRun> {
  let cache = caches.get(svc);
  if (!cache) {
    // Its own reader of the event log: a feed hands each event to one reader only.
    caches.set(svc, (cache = new DagHistoryCache<HistoryRun>(svc.eventFeed())));
  }
  return cache;
}

/** The process's parses of DAG files, reused while a file's text is unchanged (the DAG page's calls). */
export function dagParseCache(svc: Services): DagSpecCache {
  return cacheOf(svc).specs;
}

/** Validates `?limit=` at the edge. */
export function parseHistoryLimit(raw: string | null): number {
  if (raw === null || raw === '') return DEFAULT_HISTORY_LIMIT;
  const limit = Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_HISTORY_LIMIT) {
    throw new BadRequestError(
      `limit: ${JSON.stringify(raw)} must be an integer from 1 to ${MAX_HISTORY_LIMIT}`,
    );
  }
  return limit;
}

export async function getDagHistory(
  svc: Services,
  name: string,
  limit = DEFAULT_HISTORY_LIMIT,
): Promise<DagHistory> {
  assertDagName(name);
  const cache = cacheOf(svc);
  await cache.sync().catch((err: unknown) => {
    // An unreadable event log: answer from the stores; cached listings still expire on their own.
    svc.logger.warn('Could not read the event log', {
      error: err instanceof Error ? err.message : String(err),
    });
  });
  const [loaded, items] = await Promise.all([
    loadDagByName(svc.config.paths.dags_dir, name, { cache: cache.specs }),
    cache.listing(
      name,
      limit,
      svc.clock.monoMs(),
      async () => (await svc.runs.listRuns({ dag: name, limit })).items,
    ),
  ]);
  const known = loaded.ok || !('notFound' in loaded);
  if (!known && items.length === 0) throw new NotFoundError(`DAG ${JSON.stringify(name)} not found`);
  const runs = await mapConcurrently(items, FILE_READ_CONCURRENCY, (summary) =>
    historyRun(svc, cache, summary),
  );
  const steps = loaded.ok ? loaded.dag.steps.map((s) => s.name) : [];
  const seen = new Set(steps);
  for (const run of runs) {
    for (const step of Object.keys(run.steps ?? {})) {
      if (!seen.has(step)) {
        seen.add(step);
        steps.push(step);
      }
    }
  }
  return { dag_name: name, steps, runs };
}

async function historyRun(
  svc: Services,
  cache: DagHistoryCache<HistoryRun>,
  summary: RunSummary,
): Promise<HistoryRun> {
  const cached = cache.row(`${summary.run_id}#${summary.attempt}`);
  if (cached) return cached;
  if (summary.status === 'corrupt') return rowOf(summary, null);
  const read = await svc.runs.readStatus(summary.run_id);
  // The listing may be a moment older than the record (a new attempt): the record wins.
  const row = read.kind === 'ok' ? rowOf(read.status, read.status.steps) : rowOf(summary, null);
  if (read.kind === 'ok' && TERMINAL_RUN_STATES.includes(read.status.status)) {
    cache.keepRow(`${row.run_id}#${row.attempt}`, row);
  }
  return row;
}

function rowOf(run: RunSummary | RunStatus, steps: RunStatus['steps'] | null): HistoryRun {
  const start = run.started_at ? Date.parse(run.started_at) : NaN;
  const end = run.finished_at ? Date.parse(run.finished_at) : NaN;
  return {
    run_id: run.run_id,
    attempt: run.attempt,
    status: run.status,
    trigger_type: run.trigger_type,
    created_at: run.created_at,
    started_at: run.started_at,
    finished_at: run.finished_at,
    duration_ms: Number.isFinite(start) && Number.isFinite(end) ? Math.max(0, end - start) : null,
    steps: steps
      ? Object.fromEntries(
          steps.map((s) => [
            s.name,
            {
              status: s.status,
              started_at: s.started_at,
              finished_at: s.finished_at,
              retry_count: s.retry_count,
            },
          ]),
        )
      : null,
  };
}
