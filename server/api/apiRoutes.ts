// Every /api/v1 route in one table: the path, and per method the handler that reads the request, runs one
// operation through `respond` (auth, same-origin check, JSON answer, error mapping) and answers. `dagu server`
// serves it with createApiRouter (apiRouter.ts), handing every handler the services its command built.
// Anything a request must pass lives in `respond` and the operations, so no route can skip it.

import { createBodySchema, createDag } from './dagEditing';
import { DAG_EDIT_ROUTES } from './dagEditRoutes';
import { BadRequestError } from './errors';
import { listEvents, parseEventsQuery } from './events';
import { eventHubOf, openEventStream, parseResumeId } from './eventStream';
import { assertSameOrigin } from './http';
import {
  downloadRunLogs,
  downloadStepLog,
  listLogSources,
  readLogLines,
  searchRunLogs,
} from './runLogConsole';
import { searchEverything } from './search';
import { downloadRunArtifact, listRunArtifacts } from './runArtifacts';
import {
  cancelBodySchema,
  enqueueBodySchema,
  approvalInputsBodySchema,
  approvalRejectBodySchema,
  humanTaskBodySchema,
  jsonResponse,
  readJsonBody,
  retryBodySchema,
  Reply,
  respond,
} from './http';
import { completeHumanTask } from './humanTask';
import { approveStep, pushBackStep, rejectStep } from './approval';
import { signInBodySchema, startBodySchema, suspendBodySchema } from './http';
import {
  cancelQueuedRuns,
  dequeueOrCancel,
  enqueueDag,
  getDag,
  getOverview,
  listDags,
  listQueue,
  listRuns,
  parseQueueQuery,
  readRunLog,
  requestStop,
  retryRun,
  setDagSuspended,
  startDag,
  viewRun,
  type LogStream,
} from './operations';
import type { Services } from './services';
import { getSession, signIn, signOut } from './session';
import { listWorkers } from './workers';
import { getDagHistory, parseHistoryLimit } from './dagHistory';
import { getRunTimings, parseTimingIds } from './runTimings';
import { VERSION } from '../core/version';

/** Path parameters, percent-decoded: `{ id: 'a-b' }` for `/api/v1/runs/a%2Db`. */
export type Params = Record<string, string>;
export type ApiHandler = (svc: Services, req: Request, params: Params) => Promise<Response>;

export interface ApiRoute {
  /** Path with `:name` segments, e.g. `/api/v1/runs/:id`. */
  path: string;
  handlers: Partial<Record<'GET' | 'POST', ApiHandler>>;
}

const query = (req: Request) => new URL(req.url).searchParams;

export const API_ROUTES: readonly ApiRoute[] = [
  {
    // Needs no credentials, so load balancers and probes can use it.
    path: '/api/v1/health',
    handlers: {
      GET: (svc, req) =>
        respond(
          req,
          svc,
          async (s) => ({ status: 'ok', version: VERSION, time: new Date(s.clock.nowMs()).toISOString() }),
          { public: true },
        ),
    },
  },
  {
    // GET: how the server is protected and whether this browser is signed in (never needs auth).
    // POST {token}: with auth.token, checks the token and sets the HttpOnly cookie; 401 if wrong.
    path: '/api/v1/session',
    handlers: {
      GET: (svc, req) => respond(req, svc, async (s) => getSession(s, req), { public: true }),
      POST: (svc, req) =>
        respond(req, svc, async (s) => signIn(s, req, (await readJsonBody(req, signInBodySchema)).token), {
          public: true,
        }),
    },
  },
  {
    path: '/api/v1/session/logout',
    handlers: { POST: (svc, req) => respond(req, svc, async (s) => signOut(s, req), { public: true }) },
  },
  {
    // Scheduler instances and the active one, failover settings and history, counts of running, queued
    // and held runs and of workers, and whether the server is open without auth.
    path: '/api/v1/overview',
    handlers: { GET: (svc, req) => respond(req, svc, (s) => getOverview(s)) },
  },
  {
    // Every DAG file with its schedule, next run, last run and any validation errors.
    // POST {name, template?}: creates a DAG from a template (201); 409 when the name is taken.
    path: '/api/v1/dags',
    handlers: {
      GET: (svc, req) => respond(req, svc, (s) => listDags(s)),
      POST: (svc, req) =>
        respond(req, svc, async (s) => createDag(s, await readJsonBody(req, createBodySchema))),
    },
  },
  ...DAG_EDIT_ROUTES,
  {
    // One DAG's definition, errors and recent runs.
    path: '/api/v1/dags/:name',
    handlers: { GET: (svc, req, p) => respond(req, svc, (s) => getDag(s, p.name)) },
  },
  {
    // ?limit= (default 30): the DAG's last runs with each step's state, for the history grid and charts.
    path: '/api/v1/dags/:name/history',
    handlers: {
      GET: (svc, req, p) =>
        respond(req, svc, (s) => getDagHistory(s, p.name, parseHistoryLimit(query(req).get('limit')))),
    },
  },
  {
    // {params?, no_reuse?}: "run now"; answers with the new run's ID (and status once written).
    path: '/api/v1/dags/:name/start',
    handlers: {
      POST: (svc, req, p) =>
        respond(req, svc, async (s) => {
          const body = await readJsonBody(req, startBodySchema);
          return startDag(s, p.name, body.params ?? [], { noReuse: body.no_reuse });
        }),
    },
  },
  {
    // {suspend: bool} (Dagu's form): suspends or resumes the DAG's schedule; the answer is its new state.
    path: '/api/v1/dags/:name/suspend',
    handlers: {
      POST: (svc, req, p) =>
        respond(req, svc, async (s) => {
          const body = await readJsonBody(req, suspendBodySchema);
          const auth = s.config.auth;
          return setDagSuspended(
            s,
            p.name,
            body.suspend,
            auth.mode === 'basic' ? `api:${auth.username}` : 'api',
          );
        }),
    },
  },
  {
    // {params?, run_id?, no_reuse?}: queues a run; the scheduler starts it when there is room.
    path: '/api/v1/dags/:name/enqueue',
    handlers: {
      POST: (svc, req, p) =>
        respond(req, svc, async (s) => {
          const body = await readJsonBody(req, enqueueBodySchema);
          return enqueueDag(s, p.name, body.params ?? [], { runId: body.run_id, noReuse: body.no_reuse });
        }),
    },
  },
  {
    // ?queue=&dag=&selector=&reason=&limit=: every run that waits (local queues, held and dispatched runs)
    // with why it waits; the filters are exact matches (see QueueFilter).
    path: '/api/v1/queue',
    handlers: { GET: (svc, req) => respond(req, svc, (s) => listQueue(s, parseQueueQuery(query(req)))) },
  },
  {
    // {run_ids: [...]} (1 to 500): cancels each waiting run; the answer lists, per run, whether it worked
    // and why not. One failure does not stop the others.
    path: '/api/v1/queue/cancel',
    handlers: {
      POST: (svc, req) =>
        respond(req, svc, async (s) =>
          cancelQueuedRuns(s, (await readJsonBody(req, cancelBodySchema)).run_ids),
        ),
    },
  },
  {
    // ?dag=&status=&trigger=&labels=&from=&to=&limit=&cursor=: runs newest first, one page at a time.
    path: '/api/v1/runs',
    handlers: {
      GET: (svc, req) => {
        const q = query(req);
        return respond(req, svc, (s) =>
          listRuns(s, {
            dag: q.get('dag'),
            status: q.get('status'),
            trigger: q.get('trigger'),
            labels: q.get('labels'),
            from: q.get('from'),
            to: q.get('to'),
            limit: q.get('limit'),
            cursor: q.get('cursor'),
          }),
        );
      },
    },
  },
  {
    // ?ids=a,b,c (1 to 100): each run's state, start, end and duration (a parent run's child runs).
    path: '/api/v1/run-timings',
    handlers: {
      GET: (svc, req) => respond(req, svc, (s) => getRunTimings(s, parseTimingIds(query(req).get('ids')))),
    },
  },
  {
    // The latest attempt's full status, with why it waits as it is now.
    path: '/api/v1/runs/:id',
    handlers: { GET: (svc, req, p) => respond(req, svc, (s) => viewRun(s, p.id)) },
  },
  {
    // SIGTERM to a running run on this host, dequeue a queued one, cancel a run waiting for a worker (200),
    // or ask the worker running it to stop it (202: it ends `aborted` shortly).
    path: '/api/v1/runs/:id/stop',
    handlers: {
      POST: (svc, req, p) =>
        respond(req, svc, async (s) => {
          const r = await requestStop(s, p.id);
          return r.outcome === 'requested' ? new Reply(r.status, 202) : r.status;
        }),
    },
  },
  {
    // Removes a queued run from its queue, or cancels one waiting for a worker (its task is dropped);
    // either way it ends aborted.
    path: '/api/v1/runs/:id/dequeue',
    handlers: { POST: (svc, req, p) => respond(req, svc, (s) => dequeueOrCancel(s, p.id)) },
  },
  {
    // A new attempt of a finished run (202: started or handed to the workers); 409 when it has not finished.
    path: '/api/v1/runs/:id/retry',
    handlers: {
      POST: (svc, req, p) =>
        respond(req, svc, async (s) => {
          const body = await readJsonBody(req, retryBodySchema);
          return new Reply(await retryRun(s, p.id, body), 202);
        }),
    },
  },
  {
    // Completes an open human task of a waiting run (its input typed as JSON); the run resumes once none is open.
    path: '/api/v1/runs/:id/human-tasks/:step/complete',
    handlers: {
      POST: (svc, req, p) =>
        respond(req, svc, async (s) => {
          const body = await readJsonBody(req, humanTaskBodySchema);
          return completeHumanTask(s, {
            runId: p.id,
            step: p.step,
            input: { kind: 'json', text: JSON.stringify(body.inputs ?? {}) },
          });
        }),
    },
  },
  {
    // Approves a step waiting for its approval (`inputs` become its output variables); resumes the run once
    // nothing of it waits any more.
    path: '/api/v1/runs/:id/approvals/:step/approve',
    handlers: {
      POST: (svc, req, p) =>
        respond(req, svc, async (s) => {
          const body = await readJsonBody(req, approvalInputsBodySchema);
          return approveStep(s, { runId: p.id, step: p.step, inputs: body.inputs ?? {} });
        }),
    },
  },
  {
    // Rejects a step waiting for its approval: the step and the run end `rejected`.
    path: '/api/v1/runs/:id/approvals/:step/reject',
    handlers: {
      POST: (svc, req, p) =>
        respond(req, svc, async (s) => {
          const body = await readJsonBody(req, approvalRejectBodySchema);
          return rejectStep(s, { runId: p.id, step: p.step, reason: body.reason });
        }),
    },
  },
  {
    // Pushes a step waiting for its approval back: it (or its rewind_to step) and what follows run again.
    path: '/api/v1/runs/:id/approvals/:step/push-back',
    handlers: {
      POST: (svc, req, p) =>
        respond(req, svc, async (s) => {
          const body = await readJsonBody(req, approvalInputsBodySchema);
          return pushBackStep(s, { runId: p.id, step: p.step, inputs: body.inputs ?? {} });
        }),
    },
  },
  {
    // ?stream=stdout|stderr&tail=<bytes>: one step's log (or its tail).
    path: '/api/v1/runs/:id/logs/:step',
    handlers: {
      GET: (svc, req, p) => {
        const q = query(req);
        return respond(req, svc, (s) => {
          const stream = q.get('stream') ?? 'stdout';
          if (stream !== 'stdout' && stream !== 'stderr') {
            throw new BadRequestError(`stream: ${JSON.stringify(stream)} must be stdout or stderr`);
          }
          const tail = q.get('tail');
          const tailBytes = tail === null || tail === '' ? undefined : Number(tail);
          if (tailBytes !== undefined && !(Number.isInteger(tailBytes) && tailBytes > 0)) {
            throw new BadRequestError(`tail: ${JSON.stringify(tail)} must be a positive integer`);
          }
          return readRunLog(s, p.id, p.step, stream as LogStream, { tailBytes });
        });
      },
    },
  },
  {
    // The run's logs for the console: each step's stdout and stderr with their line counts, in start order.
    path: '/api/v1/runs/:id/log-sources',
    handlers: { GET: (svc, req, p) => respond(req, svc, (s) => listLogSources(s, p.id)) },
  },
  {
    // ?stream=&from=&limit=: a page of one step's log, by line number (never the whole file).
    path: '/api/v1/runs/:id/logs/:step/lines',
    handlers: { GET: (svc, req, p) => respond(req, svc, (s) => readLogLines(s, p.id, p.step, query(req))) },
  },
  {
    // ?stream=: one step's log file as it is, as an attachment.
    path: '/api/v1/runs/:id/logs/:step/download',
    handlers: {
      GET: (svc, req, p) =>
        respond(req, svc, (s) => {
          assertSameOrigin(req);
          return downloadStepLog(s, p.id, p.step, query(req));
        }),
    },
  },
  {
    // The run's artifacts (DAG_RUN_ARTIFACTS_DIR): path and size of each file.
    path: '/api/v1/runs/:id/artifacts',
    handlers: { GET: (svc, req, p) => respond(req, svc, (s) => listRunArtifacts(s, p.id)) },
  },
  {
    // ?path=: one artifact as an attachment; a path that is not clean and relative is refused (400).
    path: '/api/v1/runs/:id/artifacts/download',
    handlers: {
      GET: (svc, req, p) =>
        respond(req, svc, (s) => {
          assertSameOrigin(req);
          return downloadRunArtifact(s, p.id, query(req).get('path'));
        }),
    },
  },
  {
    // Every log of the run in one attachment, each under a `==> step (stream) <==` line.
    path: '/api/v1/runs/:id/log-download',
    handlers: {
      GET: (svc, req, p) =>
        respond(req, svc, (s) => {
          assertSameOrigin(req);
          return downloadRunLogs(s, p.id);
        }),
    },
  },
  {
    // ?q=&step=&stream=&limit=&context=: lines containing q (case-insensitive) with their neighbours.
    path: '/api/v1/runs/:id/log-search',
    handlers: { GET: (svc, req, p) => respond(req, svc, (s) => searchRunLogs(s, p.id, query(req))) },
  },
  {
    // ?q=: DAGs by name, tag, description or step command, and runs by ID (exact or prefix), best first.
    path: '/api/v1/search',
    handlers: { GET: (svc, req) => respond(req, svc, (s) => searchEverything(s, query(req).get('q'))) },
  },
  {
    // text/event-stream of the event log (and `scheduler`/`workers` changes); resumes after Last-Event-ID.
    path: '/api/v1/events/stream',
    handlers: {
      GET: (svc, req) =>
        respond(req, svc, (s) => {
          assertSameOrigin(req);
          return openEventStream(s, eventHubOf(s), parseResumeId(req), req.signal);
        }),
    },
  },
  {
    // ?type=dag.run.queued&type=...&after=<id>&limit=N[&follow=1&wait=<ms>]: events oldest first; with
    // follow, answers as soon as one matches (or with none after the wait, at most 30 s).
    path: '/api/v1/events',
    handlers: {
      GET: (svc, req) =>
        respond(req, svc, (s) => listEvents(s, parseEventsQuery(query(req)), { signal: req.signal })),
    },
  },
  {
    // The coordinator's workers with their labels, health and the runs they execute.
    path: '/api/v1/workers',
    handlers: { GET: (svc, req) => respond(req, svc, (s) => listWorkers(s)) },
  },
];

/** Any /api/v1 path no route matches: a JSON 404 rather than the console's HTML not-found page. */
export function apiNotFound(req: Request): Response {
  const { pathname } = new URL(req.url);
  return jsonResponse(
    { error: { code: 'not_found', message: `no API route ${req.method} ${pathname}` } },
    404,
  );
}
