// Reading runs: the paginated run list and one run's latest status.

import { assertDagName, assertRunId } from '../core/names';
import type { RunState, RunStatus, TriggerType } from '../core/types';
import type { RunListPage, RunListQuery } from '../store/types';
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
  /** Created at or after / at or before: RFC 3339 times. */
  from?: string | null;
  to?: string | null;
  limit?: string | number | null;
  cursor?: string | null;
}

export const DEFAULT_RUN_PAGE = 50;
export const MAX_RUN_PAGE = 500;

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

/** Newest first, optionally of one DAG and/or one state; `next_cursor` fetches the following page. */
export async function listRuns(svc: Services, params: RunListParams = {}): Promise<RunListPage> {
  return svc.runs.listRuns(compileRunListQuery(params));
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
