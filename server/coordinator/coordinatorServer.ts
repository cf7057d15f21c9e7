// The worker-facing HTTP API of `dagu coordinator` (protocol.ts): bearer-token check, JSON bodies validated
// at the edge, routes handed to the dispatcher, the long poll, worker reports and log chunks. HTTPS when a
// certificate and key are configured.

import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { workerHealth } from '../core/distributed';
import { InvalidNameError, isValidRunId } from '../core/names';
import type { Clock, Logger } from '../core/ports';
import { isoUtc } from '../core/runStatus';
import { isValidTaskId } from '../store/distributedDir';
import type { LoadDagResult } from '../store/dagCatalog';
import type { WorkerRegistry } from '../store/dispatchTypes';
import type { RunStore } from '../store/types';
import { hasBearerToken } from './auth';
import {
  newRunDispatch,
  resolveSelector,
  stepRetryDispatch,
  type DispatcherApi,
  type DispatchParams,
} from '../core/dispatcherApi';
import type { DagSpec } from '../core/types';
import { DispatchConflictError, DispatchFailedError, RunUnreadableError } from './errors';
import { HttpError, readJson, sendError, sendJson, sendNoContent, validated } from './httpIo';
import type { LogChunks } from './logChunks';
import {
  COORDINATOR_PATHS,
  MAX_POLL_WAIT_MS,
  type AckResponse,
  type DispatchReply,
  type DispatchRequest,
  type PollResponse,
  type WorkerView,
} from './protocol';
import {
  ackSchema,
  dispatchRequestSchema,
  heartbeatSchema,
  leaveSchema,
  logBatchSchema,
  logChunkSchema,
  pollSchema,
  artifactRequestSchema,
  stateRequestSchema,
  statusReportSchema,
} from './requestSchemas';
import type { TaskPoller } from './taskPoller';
import { createTlsServer, readTlsFiles } from './tlsServer';
import type { WorkerReports } from './workerReports';
import type { WorkerArtifacts } from './workerArtifacts';
import type { WorkerState } from './workerState';

/** Body limit of log chunks. */
export const MAX_LOG_BODY_BYTES = 1024 * 1024;
/** Body limit of every other request. */
export const MAX_BODY_BYTES = 256 * 1024;
/**
 * A status report: the whole run, whose steps may list every item of a large foreach or parallel step; one
 * refused for its size would leave the stored run behind the worker's for good.
 */
export const MAX_STATUS_BODY_BYTES = 16 * 1024 * 1024;
/** An artifact copy: the largest artifact (16 MiB) as base64, with room for the rest of the request. */
export const MAX_ARTIFACT_BODY_BYTES = 23 * 1024 * 1024;
/** A state write: the largest value (1 MiB of JSON), which its own escaping can make up to 6 times longer. */
export const MAX_STATE_BODY_BYTES = 7 * 1024 * 1024;

export interface CoordinatorServerDeps {
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  /** Required as `Authorization: Bearer <token>` on every route but GET /health; null: no check. */
  token: string | null;
  tls: { cert_file: string | null; key_file: string | null };
  dispatcher: DispatcherApi;
  reports: WorkerReports;
  logs: LogChunks;
  /** The state store's operations for runs on workers; null: the backend gives the coordinator none. */
  state: WorkerState | null;
  /** The artifact store's operations for runs on workers; null: the backend gives the coordinator none. */
  artifacts: WorkerArtifacts | null;
  poller: TaskPoller;
  runs: RunStore;
  workers: WorkerRegistry;
  /** Loads a DAG of the catalogue by name (a worker's sub-DAG dispatch). */
  loadDag: (name: string) => Promise<LoadDagResult>;
  clock: Clock;
  logger: Logger;
  /** `coordinator.worker_stale_threshold`, for the health shown in the worker list. */
  staleMs: number;
}

type Handler = (req: IncomingMessage, res: ServerResponse, param: string) => Promise<void>;

interface Route {
  method: 'GET' | 'POST';
  pattern: RegExp;
  /** Validates the decoded path parameter; a bad one is answered 400 with this message. */
  param?: { valid: (v: string) => boolean; what: string };
  handle: Handler;
}

/** How long a stopping coordinator lets the requests it is handling finish before it closes their connections. */
const STOP_GRACE_MS = 3_000;

export class CoordinatorServer {
  private server: http.Server | null = null;
  private readonly routes: Route[];
  private readonly inFlight = new Set<Promise<void>>();
  /** Aborted when `stop` begins: waiting polls return at once and claim nothing more. */
  private readonly stopping = new AbortController();
  private listeningPort = 0;
  private scheme: 'http' | 'https' = 'http';

  constructor(private readonly d: CoordinatorServerDeps) {
    const runId = { valid: isValidRunId, what: 'run ID' };
    this.routes = [
      {
        method: 'GET',
        pattern: /^\/health$/,
        handle: async (_q, res) => sendJson(res, 200, { status: 'healthy' }),
      },
      { method: 'POST', pattern: /^\/api\/v1\/workers\/heartbeat$/, handle: (q, s) => this.heartbeat(q, s) },
      { method: 'POST', pattern: /^\/api\/v1\/workers\/leave$/, handle: (q, s) => this.leave(q, s) },
      { method: 'GET', pattern: /^\/api\/v1\/workers$/, handle: (_q, s) => this.listWorkers(s) },
      { method: 'POST', pattern: /^\/api\/v1\/tasks\/poll$/, handle: (q, s) => this.poll(q, s) },
      {
        method: 'POST',
        pattern: /^\/api\/v1\/tasks\/([^/]+)\/ack$/,
        param: { valid: isValidTaskId, what: 'task ID' },
        handle: (q, s, id) => this.ack(q, s, id),
      },
      {
        method: 'POST',
        pattern: /^\/api\/v1\/runs\/([^/]+)\/status$/,
        param: runId,
        handle: (q, s, id) => this.status(q, s, id),
      },
      {
        method: 'POST',
        pattern: /^\/api\/v1\/runs\/([^/]+)\/logs$/,
        param: runId,
        handle: (q, s, id) => this.appendLog(q, s, id),
      },
      {
        method: 'POST',
        pattern: /^\/api\/v1\/runs\/([^/]+)\/state$/,
        param: runId,
        handle: (q, s, id) => this.stateCall(q, s, id),
      },
      {
        method: 'POST',
        pattern: /^\/api\/v1\/runs\/([^/]+)\/artifacts$/,
        param: runId,
        handle: (q, s, id) => this.artifactCall(q, s, id),
      },
      {
        method: 'POST',
        pattern: /^\/api\/v1\/runs\/([^/]+)\/cancel$/,
        param: runId,
        handle: (_q, s, id) => this.cancel(s, id),
      },
      {
        method: 'GET',
        pattern: /^\/api\/v1\/runs\/([^/]+)$/,
        param: runId,
        handle: (_q, s, id) => this.getRun(s, id),
      },
      { method: 'POST', pattern: /^\/api\/v1\/dispatch$/, handle: (q, s) => this.dispatch(q, s) },
    ];
  }

  /** The port the server listens on (after `start`). */
  get port(): number {
    return this.listeningPort;
  }

  /** `http(s)://host:port` as bound (after `start`). */
  get url(): string {
    const host = this.d.host.includes(':') ? `[${this.d.host}]` : this.d.host;
    return `${this.scheme}://${host}:${this.listeningPort}`;
  }

  get tls(): boolean {
    return this.scheme === 'https';
  }

  /** Reads the TLS files (if any) and listens. Throws TlsFileError naming an unreadable file. */
  async start(): Promise<void> {
    const onRequest = (req: IncomingMessage, res: ServerResponse) => {
      const work = this.handle(req, res).finally(() => this.inFlight.delete(work));
      this.inFlight.add(work);
    };
    const tls = await readTlsFiles(this.d.tls);
    this.scheme = tls ? 'https' : 'http';
    const server = tls ? createTlsServer(tls, onRequest) : http.createServer(onRequest);
    server.keepAliveTimeout = 5_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: Error) =>
        reject(new Error(`coordinator.port: cannot listen on ${this.d.host}:${this.d.port}: ${err.message}`)),
      );
      server.listen(this.d.port, this.d.host, () => {
        server.removeAllListeners('error');
        server.on('error', (err) => this.d.logger.error('Coordinator server error', { error: err.message }));
        resolve();
      });
    });
    this.server = server;
    this.listeningPort = (server.address() as AddressInfo).port;
  }

  /**
   * Stops listening. Waiting polls end at once (204, nothing more is claimed); the requests already being
   * handled, an acknowledgement above all, finish and are answered (for at most STOP_GRACE_MS): a worker
   * whose acknowledgement went unanswered would never run the task the coordinator recorded as its own.
   * Then every connection is closed.
   */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    this.stopping.abort();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight]),
      new Promise((resolve) => (timer = setTimeout(resolve, STOP_GRACE_MS))),
    ]);
    clearTimeout(timer);
    server.closeAllConnections();
    await closed;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const pathname = new URL(req.url ?? '/', 'http://coordinator').pathname;
      const isHealth = pathname === COORDINATOR_PATHS.health && req.method === 'GET';
      if (!isHealth && this.d.token !== null && !hasBearerToken(req.headers.authorization, this.d.token)) {
        throw new HttpError(
          401,
          'unauthorized',
          'a valid bearer token is required (Authorization: Bearer <coordinator.token>)',
          {
            'WWW-Authenticate': 'Bearer',
          },
        );
      }
      const matching = this.routes
        .map((route) => ({ route, match: route.pattern.exec(pathname) }))
        .filter((m): m is { route: Route; match: RegExpExecArray } => m.match !== null);
      if (matching.length === 0) throw new HttpError(404, 'not_found', `no such route: ${pathname}`);
      const hit = matching.find((m) => m.route.method === req.method);
      if (!hit) {
        const allow = [...new Set(matching.map((m) => m.route.method))].join(', ');
        throw new HttpError(405, 'method_not_allowed', `${req.method} is not allowed on ${pathname}`, {
          Allow: allow,
        });
      }
      const param = hit.match[1] === undefined ? '' : decodeParam(hit.match[1]);
      if (hit.route.param && !hit.route.param.valid(param)) {
        throw new HttpError(400, 'bad_request', `invalid ${hit.route.param.what} ${JSON.stringify(param)}`);
      }
      await hit.route.handle(req, res, param);
    } catch (err) {
      this.fail(req, res, err);
    }
  }

  private fail(req: IncomingMessage, res: ServerResponse, err: unknown): void {
    if (err instanceof HttpError) return sendError(res, err);
    if (err instanceof InvalidNameError)
      return sendError(res, new HttpError(400, 'bad_request', err.message));
    if (err instanceof DispatchConflictError)
      return sendError(res, new HttpError(409, err.reason, err.message));
    if (err instanceof DispatchFailedError)
      return sendError(res, new HttpError(503, 'hand_off_failed', err.message));
    if (err instanceof RunUnreadableError)
      return sendError(res, new HttpError(409, 'unreadable', err.message));
    this.d.logger.error('Coordinator request failed', {
      method: req.method,
      path: req.url,
      error: err instanceof Error ? (err.stack ?? err.message) : String(err),
    });
    sendError(res, new HttpError(500, 'internal', err instanceof Error ? err.message : String(err)));
  }

  private async heartbeat(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJson(req, heartbeatSchema, MAX_BODY_BYTES);
    sendJson(res, 200, await this.d.reports.heartbeat(body));
  }

  private async leave(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJson(req, leaveSchema, MAX_BODY_BYTES);
    sendJson(res, 200, await this.d.reports.leave(body));
  }

  private async listWorkers(res: ServerResponse): Promise<void> {
    const now = this.d.clock.nowMs();
    const workers: WorkerView[] = (await this.d.workers.list()).map((w) => ({
      worker_id: w.worker_id,
      labels: w.labels,
      max_active_runs: w.max_active_runs,
      running: w.running,
      host: w.host,
      health: workerHealth(w, now, this.d.staleMs),
      registered_at: isoUtc(w.registered_at_ms),
      last_heartbeat_at: isoUtc(w.last_heartbeat_ms),
    }));
    sendJson(res, 200, { workers });
  }

  private async poll(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJson(req, pollSchema, MAX_BODY_BYTES);
    if (!(await this.d.reports.isRegistered(body.worker_id))) {
      throw new HttpError(
        409,
        'not_registered',
        `worker ${body.worker_id} must register first (send a heartbeat)`,
      );
    }
    // The client leaving ends the wait: a task claimed for nobody would sit out the reservation TTL. So does
    // the coordinator stopping: a task claimed now might be answered on a connection about to be closed.
    const gone = new AbortController();
    res.once('close', () => gone.abort());
    const wait = Math.min(body.wait_ms, MAX_POLL_WAIT_MS);
    const task = await this.d.poller.poll(
      { worker_id: body.worker_id, labels: body.labels },
      wait,
      AbortSignal.any([gone.signal, this.stopping.signal]),
    );
    if (!task) return sendNoContent(res);
    if (res.destroyed) {
      this.d.logger.warn(
        'A worker left its poll as a task was claimed for it; the claim returns after the TTL',
        {
          worker_id: body.worker_id,
          run_id: task.run_id,
        },
      );
      return;
    }
    const reply: PollResponse = { task };
    sendJson(res, 200, reply);
  }

  private async ack(req: IncomingMessage, res: ServerResponse, taskId: string): Promise<void> {
    const body = await readJson(req, ackSchema, MAX_BODY_BYTES);
    const outcome = await this.d.reports.ack(taskId, body);
    const reply: AckResponse = outcome.accepted
      ? { accepted: true }
      : { accepted: false, error: outcome.error };
    const conflict =
      !outcome.accepted && (outcome.reason === 'claim_gone' || outcome.reason === 'wrong_worker');
    sendJson(res, conflict ? 409 : 200, reply);
  }

  private async status(req: IncomingMessage, res: ServerResponse, runId: string): Promise<void> {
    const body = await readJson(req, statusReportSchema, MAX_STATUS_BODY_BYTES);
    sendJson(res, 200, await this.d.reports.reportStatus(runId, body));
  }

  private async appendLog(req: IncomingMessage, res: ServerResponse, runId: string): Promise<void> {
    const body = await readJson(req, z.record(z.string(), z.unknown()), MAX_LOG_BODY_BYTES);
    const reply =
      'chunks' in body
        ? await this.d.logs.appendBatch(runId, validated(logBatchSchema, body))
        : await this.d.logs.append(runId, validated(logChunkSchema, body));
    if ('refused' in reply) throw new HttpError(reply.status, reply.code, reply.error);
    sendJson(res, 200, reply);
  }

  private async stateCall(req: IncomingMessage, res: ServerResponse, runId: string): Promise<void> {
    // A value of 1 MiB of JSON text, escaped once more inside the request's JSON.
    const body = await readJson(req, stateRequestSchema, MAX_STATE_BODY_BYTES);
    if (!this.d.state) {
      throw new HttpError(501, 'no_state_store', 'this coordinator has no state store for state.* steps');
    }
    const reply = await this.d.state.handle(runId, body);
    if ('refused' in reply) throw new HttpError(reply.status, reply.code, reply.error);
    sendJson(res, 200, reply);
  }

  private async artifactCall(req: IncomingMessage, res: ServerResponse, runId: string): Promise<void> {
    const body = await readJson(req, artifactRequestSchema, MAX_ARTIFACT_BODY_BYTES);
    if (!this.d.artifacts) {
      throw new HttpError(
        501,
        'no_artifact_store',
        'this coordinator has no artifact store for run artifacts',
      );
    }
    const reply = await this.d.artifacts.handle(runId, body);
    if ('refused' in reply) throw new HttpError(reply.status, reply.code, reply.error);
    sendJson(res, 200, reply);
  }

  private async getRun(res: ServerResponse, runId: string): Promise<void> {
    const r = await this.d.runs.readStatus(runId);
    if (r.kind === 'missing') throw new HttpError(404, 'not_found', `run ${runId} does not exist`);
    if (r.kind === 'corrupt') throw new RunUnreadableError(runId, r.path, r.error);
    sendJson(res, 200, { status: r.status });
  }

  private async cancel(res: ServerResponse, runId: string): Promise<void> {
    const outcome = await this.d.dispatcher.cancel(runId);
    if (outcome.kind === 'not_found') throw new HttpError(404, 'not_found', `run ${runId} does not exist`);
    sendJson(res, 200, {
      cancelled: outcome.kind === 'aborted' || outcome.kind === 'requested',
      outcome: outcome.kind,
      status: outcome.status,
    });
  }

  /** A step on a worker starts a sub-DAG: the coordinator loads it from its own catalogue. */
  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJson(req, dispatchRequestSchema, MAX_BODY_BYTES);
    const loaded = await this.d.loadDag(body.dag_name);
    if (!loaded.ok) {
      if ('notFound' in loaded)
        throw new HttpError(404, 'dag_not_found', `DAG ${body.dag_name} was not found`);
      const first = loaded.errors[0];
      throw new HttpError(
        422,
        'invalid_dag',
        `DAG ${body.dag_name} is invalid: ${first ? first.message : 'unknown error'}`,
      );
    }
    let reply: DispatchReply;
    try {
      const params = body.retry
        ? await this.retryParams(loaded.dag, body, body.retry)
        : newRunDispatch(loaded.dag, body.run_id, {
            triggerType: 'subdag',
            params: body.params,
            selector: resolveSelector(loaded.dag, body.worker_selector),
            parent: body.parent,
          });
      if ('outcome' in params) return sendJson(res, 200, params);
      const result = await this.d.dispatcher.dispatch(params);
      reply =
        result.outcome === 'refused'
          ? {
              outcome: 'refused',
              run_id: body.run_id,
              error: result.error,
              ...(result.status ? { status: result.status } : {}),
            }
          : { outcome: result.outcome, run_id: body.run_id, status: result.status };
    } catch (err) {
      if (!(err instanceof DispatchConflictError) || err.reason !== 'exists') throw err;
      // The same sub-DAG asked for twice (a resent request): the caller follows the run that exists.
      reply = { outcome: 'exists', run_id: body.run_id, ...(err.status ? { status: err.status } : {}) };
    }
    sendJson(res, 200, reply);
  }

  /**
   * A new attempt of the ended sub-run `body.run_id` retrying one step (a `retry --sub-run-id` path through
   * a run on a worker), on a worker matching the selector its first attempt had; the reply itself when there
   * is nothing to dispatch: `exists` when the run is already past that attempt (a resent request).
   */
  private async retryParams(
    dag: DagSpec,
    body: DispatchRequest,
    retry: NonNullable<DispatchRequest['retry']>,
  ): Promise<DispatchParams | DispatchReply> {
    const r = await this.d.runs.readStatus(body.run_id);
    if (r.kind === 'missing') throw new HttpError(404, 'not_found', `run ${body.run_id} does not exist`);
    if (r.kind === 'corrupt') throw new RunUnreadableError(body.run_id, r.path, r.error);
    const s = r.status;
    const refused = (error: string): DispatchReply => ({
      outcome: 'refused',
      run_id: body.run_id,
      error,
      status: s,
    });
    if (s.attempt > retry.attempt) return { outcome: 'exists', run_id: body.run_id, status: s };
    if (s.attempt < retry.attempt)
      return refused(
        `attempt ${retry.attempt} of run ${body.run_id} has not been made (it is at ${s.attempt})`,
      );
    if (s.dag_name !== dag.name) return refused(`run ${body.run_id} belongs to DAG ${s.dag_name}`);
    const params = stepRetryDispatch(dag, s, retry, { selector: body.worker_selector, parent: body.parent });
    return 'error' in params ? refused(params.error) : params;
  }
}

function decodeParam(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new HttpError(
      400,
      'bad_request',
      `the path segment ${JSON.stringify(raw)} is not valid percent-encoding`,
    );
  }
}
