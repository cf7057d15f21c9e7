// Reading the event log over the API: events by type after a given ID, and a long poll that answers as soon
// as a matching event exists (how a controller that starts workers on demand follows `dag.run.queued`).

import { z } from 'zod';
import { EVENT_ID_PATTERN, MAX_EVENT_LIMIT } from '../store/eventRecord';
import type { EventRecord } from '../store/types';
import { describeIssues } from './http';
import { BadRequestError } from './errors';
import type { Services } from './services';

/** Longest a follow request may wait for a matching event. */
export const MAX_FOLLOW_WAIT_MS = 30_000;
/** How often a follow request reads the log again; the log is files on shared storage, not a stream. */
export const FOLLOW_POLL_MS = 200;
/** At most this many `type` filters in one request. */
export const MAX_EVENT_TYPES = 20;

const EVENT_TYPE_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;

const intParam = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

const querySchema = z.strictObject({
  type: z
    .array(z.string().regex(EVENT_TYPE_PATTERN, 'must be an event type such as dag.run.queued'))
    .max(MAX_EVENT_TYPES)
    .optional(),
  after: z.string().regex(EVENT_ID_PATTERN, 'must be the id of an event').optional(),
  limit: intParam(1, MAX_EVENT_LIMIT).optional(),
  follow: z.enum(['0', '1', 'true', 'false']).optional(),
  wait: intParam(0, MAX_FOLLOW_WAIT_MS).optional(),
});

/** A validated events query. */
export interface EventsQuery {
  /** Only these types; empty: every type. */
  types: string[];
  /** Events after this ID (exclusive); absent: from the oldest kept. */
  after?: string;
  limit?: number;
  /** Long poll: wait up to `waitMs` for at least one matching event. */
  follow: boolean;
  waitMs: number;
}

/** What the API answers: the events, oldest first, and the `after` to pass next time. */
export interface EventListing {
  events: EventRecord[];
  /** The last event's ID, or the `after` that was asked for when there was none (null: none either). */
  next_after: string | null;
}

/**
 * `?type=dag.run.queued&type=dag.run.failed&after=<id>&limit=N&follow=1&wait=<ms>` checked once, at the
 * edge; a bad value is a BadRequestError naming the parameter.
 */
export function parseEventsQuery(params: URLSearchParams): EventsQuery {
  const raw: Record<string, string | string[]> = {};
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    // `type` repeats; any other parameter given twice stays a list, which the schema refuses by name.
    raw[key] = key === 'type' || values.length > 1 ? values : values[0];
  }
  const parsed = querySchema.safeParse(raw);
  if (!parsed.success) throw new BadRequestError(describeIssues(parsed.error, 'query'));
  const q = parsed.data;
  const follow = q.follow === '1' || q.follow === 'true';
  if (q.wait !== undefined && !follow) throw new BadRequestError('wait: only allowed with follow=1');
  return {
    types: q.type ?? [],
    after: q.after,
    limit: q.limit,
    follow,
    waitMs: follow ? (q.wait ?? MAX_FOLLOW_WAIT_MS) : 0,
  };
}

export interface ListEventsOptions {
  /** Ends a follow early (the client went away): answers with what there is. */
  signal?: AbortSignal;
  /** How a follow waits between reads (tests pass one that moves their clock). */
  sleep?: (ms: number) => Promise<void>;
}

/** Lists matching events; with `follow`, waits (polling the log) until there is one or the wait is over. */
export async function listEvents(
  svc: Services,
  query: EventsQuery,
  opts: ListEventsOptions = {},
): Promise<EventListing> {
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const deadline = svc.clock.monoMs() + query.waitMs;
  const read = () => svc.events.list({ afterId: query.after, types: query.types, limit: query.limit });
  let events = await read();
  while (query.follow && events.length === 0 && !opts.signal?.aborted) {
    const left = deadline - svc.clock.monoMs();
    if (left <= 0) break;
    await sleep(Math.min(FOLLOW_POLL_MS, left));
    events = await read();
  }
  return { events, next_after: events.at(-1)?.id ?? query.after ?? null };
}
