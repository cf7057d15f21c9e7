// Every /api/v1 route handler in one table, so `dagu server` can call the very same handlers without
// routing each API request through Next (which adds several milliseconds a request). Next still serves
// these files as route handlers under `next dev`/`next start`. Anything a request must pass (auth,
// same-origin checks) therefore lives in the handlers and server/api, never in Next middleware.

import * as rest from './[...rest]/route';
import * as dag from './dags/[name]/route';
import * as enqueue from './dags/[name]/enqueue/route';
import * as events from './events/route';
import * as start from './dags/[name]/start/route';
import * as dags from './dags/route';
import * as health from './health/route';
import * as overview from './overview/route';
import * as queue from './queue/route';
import * as cancel from './queue/cancel/route';
import * as dequeue from './runs/[id]/dequeue/route';
import * as logs from './runs/[id]/logs/[step]/route';
import * as retry from './runs/[id]/retry/route';
import * as run from './runs/[id]/route';
import * as stop from './runs/[id]/stop/route';
import * as runs from './runs/route';
import * as session from './session/route';
import * as logout from './session/logout/route';
import * as workers from './workers/route';

type Params = Record<string, string>;
export type ApiHandler = (req: Request, ctx: { params: Promise<Params> }) => Promise<Response> | Response;

export interface ApiRoute {
  /** Path with `:name` segments, e.g. `/api/v1/runs/:id`. */
  path: string;
  handlers: Partial<Record<'GET' | 'POST', ApiHandler>>;
}

const h = (f: unknown) => f as ApiHandler;

export const API_ROUTES: readonly ApiRoute[] = [
  { path: '/api/v1/health', handlers: { GET: h(health.GET) } },
  { path: '/api/v1/session', handlers: { GET: h(session.GET), POST: h(session.POST) } },
  { path: '/api/v1/session/logout', handlers: { POST: h(logout.POST) } },
  { path: '/api/v1/overview', handlers: { GET: h(overview.GET) } },
  { path: '/api/v1/dags', handlers: { GET: h(dags.GET) } },
  { path: '/api/v1/dags/:name', handlers: { GET: h(dag.GET) } },
  { path: '/api/v1/dags/:name/start', handlers: { POST: h(start.POST) } },
  { path: '/api/v1/dags/:name/enqueue', handlers: { POST: h(enqueue.POST) } },
  { path: '/api/v1/queue', handlers: { GET: h(queue.GET) } },
  { path: '/api/v1/queue/cancel', handlers: { POST: h(cancel.POST) } },
  { path: '/api/v1/runs', handlers: { GET: h(runs.GET) } },
  { path: '/api/v1/runs/:id', handlers: { GET: h(run.GET) } },
  { path: '/api/v1/runs/:id/stop', handlers: { POST: h(stop.POST) } },
  { path: '/api/v1/runs/:id/dequeue', handlers: { POST: h(dequeue.POST) } },
  { path: '/api/v1/runs/:id/retry', handlers: { POST: h(retry.POST) } },
  { path: '/api/v1/runs/:id/logs/:step', handlers: { GET: h(logs.GET) } },
  { path: '/api/v1/events', handlers: { GET: h(events.GET) } },
  { path: '/api/v1/workers', handlers: { GET: h(workers.GET) } },
];

/** The handler for any /api/v1 path no route matches (a JSON 404). */
export const API_NOT_FOUND: ApiHandler = h(rest.GET);
