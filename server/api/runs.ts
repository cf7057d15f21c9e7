// Reading runs: the paginated run list (with `dagu history --labels`'s label filters) and one run's latest
// status.

import { assertDagName, assertRunId } from '../core/names';
import { matchesLabelFilters, parseLabelFilters, type LabelFilter } from '../core/runLabels';
import type { RunState, RunStatus, TriggerType } from '../core/types';
import type { RunListPage, RunListQuery, RunSummary } from '../store/types';
import { RUN_STATES, TRIGGER_TYPES } from './runStates';
import { BadRequestError, CorruptRecordError, NotFoundError } from './errors';
import type { Services } from './services';
import { withConditionsNow } from './waitingNow';

/** The run list query as it arrives from a URL or the CLI: every field optional and untrusted. */
export interface RunListParams {
  dag?: string | null;
  status?: string | null;
  /** A trigger type (`scheduler`, `manual`, ...). */
  trigger?: string | null;
  /** Label filters separated by commas (`key`, `key=value`, `!key`, globs), as `dagu history --labels`. */
  labels?: string | null;
  /** Created at or after / at or before: RFC 3339 times. */
  from?: string | null;
  to?: string | null;
  limit?: string | number | null;
  cursor?: string | null;
}

export const DEFAULT_RUN_PAGE = 50;
export const MAX_RUN_PAGE = 500;
/** The longest `labels` filter text accepted. */
export const MAX_LABELS_FILTER = 1024;
/**
 * The most runs (and store pages) one request with a `labels` filter examines: a filter that matches few runs
 * would otherwise read the whole history. The page may then be short, even empty, and its cursor continues
 * the search.
 */
export const MAX_LABEL_SCAN = 5000;
export const MAX_LABEL_SCAN_PAGES = 12;

/** Validates the query once, at the edge, into what the store accepts. */
export function compileRunListQuery(params: RunListParams): RunListQuery {
  const query: RunListQuery = {};
  if (params.dag) query.dag = assertDagName(params.dag);
  if (params.status) {
    if (!RUN_STATES.includes(params.status as RunState)) {
      throw new BadRequestError(
        `status: ${JSON.stringify(params.status)} is not one of ${RUN_STATES.join(', ')}`,
      );
    }
    query.status = params.status as RunState;
  }
  if (params.trigger) {
    if (!TRIGGER_TYPES.includes(params.trigger as TriggerType)) {
      throw new BadRequestError(
        `trigger: ${JSON.stringify(params.trigger)} is not one of ${TRIGGER_TYPES.join(', ')}`,
      );
    }
    query.trigger = params.trigger as TriggerType;
  }
  if (params.from) query.createdFromMs = parseTime('from', params.from);
  if (params.to) query.createdToMs = parseTime('to', params.to);
  if (query.createdFromMs !== undefined && query.createdToMs !== undefined) {
    if (query.createdFromMs > query.createdToMs) {
      throw new BadRequestError(`from: ${params.from} is after to: ${params.to}`);
    }
  }
  if (params.limit !== undefined && params.limit !== null && params.limit !== '') {
    const limit = Number(params.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RUN_PAGE) {
      throw new BadRequestError(
        `limit: ${JSON.stringify(String(params.limit))} must be an integer from 1 to ${MAX_RUN_PAGE}`,
      );
    }
    query.limit = limit;
  } else {
    query.limit = DEFAULT_RUN_PAGE;
  }
  if (params.cursor) {
    if (params.cursor.length > 1024) throw new BadRequestError('cursor: too long');
    query.cursor = params.cursor;
  }
  return query;
}

/** An RFC 3339 time with its zone (`2026-03-01T10:00:00Z`), as ms; 400 naming the field otherwise. */
function parseTime(field: string, text: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i.test(text)
    ? Date.parse(text)
    : NaN;
  if (!Number.isFinite(ms)) {
    throw new BadRequestError(
      `${field}: ${JSON.stringify(text.slice(0, 64))} is not an RFC 3339 time such as 2026-03-01T10:00:00Z`,
    );
  }
  return ms;
}

/** The filters of a `labels` query (none when absent or blank); 400 when it is too long. */
export function compileLabelFilters(text: string | null | undefined): LabelFilter[] {
  if (!text) return [];
  if (text.length > MAX_LABELS_FILTER)
    throw new BadRequestError(`labels: longer than ${MAX_LABELS_FILTER} characters`);
  return parseLabelFilters(text);
}

/**
 * Newest first, optionally of one DAG, one state, one trigger, a time range and labels; `next_cursor`
 * fetches the following page.
 */
export async function listRuns(svc: Services, params: RunListParams = {}): Promise<RunListPage> {
  const query = compileRunListQuery(params);
  const filters = compileLabelFilters(params.labels);
  if (filters.length === 0) return svc.runs.listRuns(query);
  return listRunsWithLabels(svc, query, filters);
}

/**
 * The store has no label filter: walk its pages and keep the runs whose labels match. A store cursor is
 * opaque, so a page ends where a store page ends: when a chunk holds more matches than the page needs, the
 * store is asked again for just the runs up to the last one needed, and its cursor is the page's.
 */
async function listRunsWithLabels(
  svc: Services,
  query: RunListQuery,
  filters: readonly LabelFilter[],
): Promise<RunListPage> {
  const limit = query.limit ?? DEFAULT_RUN_PAGE;
  const matches = (run: RunSummary) => matchesLabelFilters(run.labels ?? [], filters);
  const items: RunSummary[] = [];
  let cursor = query.cursor;
  let scanned = 0;
  let pages = 0;
  // Most runs may match: start with twice what the page needs, then read larger chunks.
  for (let chunk = Math.min(2 * limit, MAX_RUN_PAGE); ; chunk = Math.min(2 * chunk, MAX_RUN_PAGE)) {
    const want = limit - items.length;
    const page = await svc.runs.listRuns({ ...query, limit: chunk, cursor });
    const hits = page.items.flatMap((run, i) => (matches(run) ? [i] : []));
    if (hits.length > want) {
      const exact = await svc.runs.listRuns({ ...query, limit: hits[want - 1] + 1, cursor });
      items.push(...exact.items.filter(matches));
      return { items, next_cursor: exact.next_cursor };
    }
    items.push(...hits.map((i) => page.items[i]));
    scanned += page.items.length;
    pages += 1;
    if (
      page.next_cursor === null ||
      items.length === limit ||
      scanned >= MAX_LABEL_SCAN ||
      pages >= MAX_LABEL_SCAN_PAGES
    ) {
      return { items, next_cursor: page.next_cursor };
    }
    cursor = page.next_cursor;
  }
}

/** The latest attempt's status of a run. A corrupt status file is reported as such, naming the file. */
/**
 * A run as the console shows it: its latest status, with the conditions of a run waiting for a worker as
 * they are now (no coordinator alive: `NoAvailableCoordinator`). getRun is the record as stored.
 */
export async function viewRun(svc: Services, runId: string): Promise<RunStatus> {
  return withConditionsNow(svc, await getRun(svc, runId));
}

export async function getRun(svc: Services, runId: string): Promise<RunStatus> {
  assertRunId(runId);
  const result = await svc.runs.readStatus(runId);
  if (result.kind === 'missing') throw new NotFoundError(`run ${runId} not found`);
  if (result.kind === 'corrupt') {
    throw new CorruptRecordError(
      `run ${runId} has a corrupt status file (${result.path}): ${result.error}`,
      result.path,
    );
  }
  return result.status;
}
