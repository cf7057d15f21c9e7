// The HTTP client of the coordinator API (server/coordinator/protocol.ts), used by workers and by sub-DAG
// steps on workers. Plain node:http(s) rather than fetch: a private CA needs an agent option that the global
// fetch only takes through undici, which is not a dependency.

import { readFileSync } from 'node:fs';
import {
  Agent as HttpAgent,
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { ConfigError } from '../config/loadConfig';
import type { Config } from '../config/types';
import type { RunStatus } from '../core/types';
import { SECOND } from '../core/units';
import type { DispatchTask } from '../store/dispatchTypes';
import {
  COORDINATOR_PATHS,
  type AckRequest,
  type ArtifactReply,
  type ArtifactRequest,
  type AckResponse,
  type DispatchReply,
  type DispatchRequest,
  type HeartbeatRequest,
  type HeartbeatResponse,
  type LeaveReply,
  type LeaveRequest,
  type LogBatch,
  type LogBatchReply,
  type LogChunk,
  type LogReply,
  type PollRequest,
  type StateReply,
  type StateRequest,
  type StatusReply,
  type StatusReport,
  type WorkerView,
} from '../coordinator/protocol';

/** Thrown when the coordinator answered with an error status; `code` comes from the JSON error body. */
export class CoordinatorError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'CoordinatorError';
  }
}

/** Thrown when no answer came: connection refused or reset, DNS, TLS failure, or the request timed out. */
export class CoordinatorUnreachableError extends Error {
  constructor(
    readonly url: string,
    message: string,
  ) {
    super(message);
    this.name = 'CoordinatorUnreachableError';
  }
}

/** What the coordinator answers to a cancel request. */
export interface CancelReply {
  cancelled: boolean;
  status: RunStatus | null;
}

export interface CoordinatorClientOptions {
  /** Base URL, http:// or https://, without a trailing slash. */
  url: string;
  /** Sent as `Authorization: Bearer <token>` when set. */
  token: string | null;
  /** PEM CA bundle trusted instead of the system store for an https URL (private CA, self-signed). */
  ca?: string | null;
  /** Timeout of one request; a poll gets its wait on top. Default 10 s. */
  requestTimeoutMs?: number;
}

/** A long poll may outlive its wait by this much before the client gives up on it. */
const POLL_GRACE_MS = 10 * SECOND;
const DEFAULT_TIMEOUT_MS = 10 * SECOND;
/** A reply bigger than this is not from a sane coordinator (a run status is a few KiB). */
const MAX_REPLY_BYTES = 32 * 1024 * 1024;

interface Reply {
  status: number;
  body: unknown;
}

interface SendOptions {
  body?: unknown;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** How long one artifact copy may take: up to 16 MiB each way. */
const ARTIFACT_TIMEOUT_MS = 60 * SECOND;

/** The client's operations: what the worker's parts take, so tests can hand them a fake. */
export type CoordinatorApi = Pick<
  CoordinatorClient,
  | 'url'
  | 'health'
  | 'heartbeat'
  | 'leave'
  | 'poll'
  | 'ack'
  | 'reportStatus'
  | 'sendLog'
  | 'sendLogs'
  | 'getRun'
  | 'cancel'
  | 'dispatch'
  | 'listWorkers'
  | 'state'
  | 'artifacts'
>;

/** One client per process: it keeps connections alive between requests. */
export class CoordinatorClient {
  readonly url: string;
  private readonly base: URL;
  private readonly agent: HttpAgent;
  private readonly timeoutMs: number;

  constructor(private readonly opts: CoordinatorClientOptions) {
    this.url = opts.url.replace(/\/+$/, '');
    this.base = new URL(this.url);
    this.timeoutMs = opts.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.agent =
      this.base.protocol === 'https:'
        ? new HttpsAgent({ keepAlive: true, ...(opts.ca ? { ca: opts.ca } : {}) })
        : new HttpAgent({ keepAlive: true });
  }

  /** The client for `config.coordinator`; throws ConfigError when the CA file cannot be read. */
  static fromConfig(config: Config): CoordinatorClient {
    const { url, token, tls } = config.coordinator;
    let ca: string | null = null;
    if (tls.ca_file !== null && url.startsWith('https:')) {
      try {
        ca = readFileSync(tls.ca_file, 'utf8');
      } catch (err) {
        throw new ConfigError(
          `coordinator.tls.ca_file: cannot read ${JSON.stringify(tls.ca_file)}: ${(err as Error).message}`,
        );
      }
    }
    return new CoordinatorClient({ url, token, ca });
  }

  async health(): Promise<{ status: string }> {
    const r = await this.expectOk(await this.send('GET', COORDINATOR_PATHS.health));
    return r as { status: string };
  }

  /** `timeoutMs` overrides the request timeout (a stopping worker waits less). */
  async heartbeat(req: HeartbeatRequest, timeoutMs?: number): Promise<HeartbeatResponse> {
    const body = await this.expectOk(
      await this.send('POST', COORDINATOR_PATHS.heartbeat, { body: req, timeoutMs }),
    );
    const cancel = (body as Partial<HeartbeatResponse>).cancel;
    return { cancel: Array.isArray(cancel) ? cancel.filter((c) => typeof c === 'string') : [] };
  }

  /** Tells the coordinator this worker is stopping for good; `timeoutMs` overrides the request timeout. */
  async leave(req: LeaveRequest, timeoutMs?: number): Promise<LeaveReply> {
    const body = (await this.expectOk(
      await this.send('POST', COORDINATOR_PATHS.leave, { body: req, timeoutMs }),
    )) as Partial<LeaveReply>;
    const runIds = Array.isArray(body.run_ids) ? body.run_ids.filter((r) => typeof r === 'string') : [];
    return { removed: body.removed === true, run_ids: runIds };
  }

  /**
   * Waits up to `req.wait_ms` for a task; null when none came or when `signal` aborted the wait (a task
   * claimed in that moment goes back to pending after the reservation TTL).
   */
  async poll(req: PollRequest, signal?: AbortSignal): Promise<DispatchTask | null> {
    let reply: Reply;
    try {
      reply = await this.send('POST', COORDINATOR_PATHS.poll, {
        body: req,
        timeoutMs: req.wait_ms + POLL_GRACE_MS,
        signal,
      });
    } catch (err) {
      if (signal?.aborted) return null;
      throw err;
    }
    if (reply.status === 204) return null;
    const body = (await this.expectOk(reply)) as { task?: DispatchTask } | null;
    return body?.task ?? null;
  }

  /** `accepted: false` (also for 409, a claim that is gone or not ours): the task must not run. */
  async ack(taskId: string, req: AckRequest): Promise<AckResponse> {
    const reply = await this.send('POST', COORDINATOR_PATHS.ack(taskId), { body: req });
    if (reply.status === 409 || reply.status === 404) return { accepted: false, error: errorMessage(reply) };
    const body = (await this.expectOk(reply)) as Partial<AckResponse>;
    return { accepted: body.accepted === true, ...(body.error ? { error: body.error } : {}) };
  }

  /** `accepted: false` (also for 404/409/410): the run is no longer this worker's. */
  async reportStatus(runId: string, report: StatusReport): Promise<StatusReply> {
    const reply = await this.send('POST', COORDINATOR_PATHS.status(runId), { body: report });
    if ([404, 409, 410].includes(reply.status))
      return { accepted: false, cancel: false, error: errorMessage(reply) };
    const body = (await this.expectOk(reply)) as Partial<StatusReply>;
    const logs = Array.isArray(body.logs) && body.logs.every(isLogReply) ? body.logs : undefined;
    return {
      accepted: body.accepted === true,
      cancel: body.cancel === true,
      ...(body.error ? { error: body.error } : {}),
      ...(logs ? { logs } : {}),
    };
  }

  async sendLog(runId: string, chunk: LogChunk): Promise<LogReply> {
    const body = (await this.expectOk(
      await this.send('POST', COORDINATOR_PATHS.logs(runId), { body: chunk }),
    )) as Partial<LogReply>;
    if (typeof body.next_offset !== 'number')
      throw new CoordinatorError(200, 'bad_reply', `coordinator log reply has no next_offset`);
    return { accepted: body.accepted === true, next_offset: body.next_offset };
  }

  /**
   * A piece of each of several logs of one attempt in one request: the replies, in the batch's order.
   * Throws CoordinatorError 400 from a coordinator that takes one chunk a request only.
   */
  async sendLogs(runId: string, batch: LogBatch): Promise<LogReply[]> {
    const body = (await this.expectOk(
      await this.send('POST', COORDINATOR_PATHS.logs(runId), { body: batch }),
    )) as Partial<LogBatchReply>;
    const replies = body.replies;
    if (
      !Array.isArray(replies) ||
      replies.length !== batch.chunks.length ||
      !replies.every((r: Partial<LogReply> | null) => typeof r?.next_offset === 'number')
    )
      throw new CoordinatorError(
        200,
        'bad_reply',
        'coordinator log batch reply has no offset for each chunk',
      );
    return replies.map((r) => ({ accepted: r.accepted === true, next_offset: r.next_offset }));
  }

  /** The run's current status, or null when the coordinator does not know the run. */
  /** A state store operation for the worker's run (the coordinator checks the run is the worker's). */
  async state(runId: string, req: StateRequest): Promise<StateReply> {
    return (await this.expectOk(
      await this.send('POST', COORDINATOR_PATHS.state(runId), { body: req }),
    )) as StateReply;
  }

  /** An artifact store operation for the worker's run (the coordinator checks the run is the worker's). */
  async artifacts(runId: string, req: ArtifactRequest): Promise<ArtifactReply> {
    return (await this.expectOk(
      await this.send('POST', COORDINATOR_PATHS.artifacts(runId), {
        body: req,
        timeoutMs: ARTIFACT_TIMEOUT_MS,
      }),
    )) as ArtifactReply;
  }

  async getRun(runId: string): Promise<RunStatus | null> {
    const reply = await this.send('GET', COORDINATOR_PATHS.run(runId));
    if (reply.status === 404) return null;
    const body = (await this.expectOk(reply)) as { status?: RunStatus };
    return body.status ?? null;
  }

  /** Null when the coordinator does not know the run. */
  async cancel(runId: string): Promise<CancelReply | null> {
    const reply = await this.send('POST', COORDINATOR_PATHS.cancel(runId), { body: {} });
    if (reply.status === 404) return null;
    const body = (await this.expectOk(reply)) as Partial<CancelReply>;
    return { cancelled: body.cancelled === true, status: body.status ?? null };
  }

  /** A refusal is a reply (`outcome: 'refused'`), whatever status code carries it. */
  async dispatch(req: DispatchRequest): Promise<DispatchReply> {
    const reply = await this.send('POST', COORDINATOR_PATHS.dispatch, { body: req });
    const b = reply.body as Partial<DispatchReply> | null;
    if (b && typeof b.outcome === 'string' && typeof b.run_id === 'string') return b as DispatchReply;
    await this.expectOk(reply);
    throw new CoordinatorError(reply.status, 'bad_reply', 'coordinator dispatch reply has no outcome');
  }

  async listWorkers(): Promise<WorkerView[]> {
    const body = (await this.expectOk(await this.send('GET', COORDINATOR_PATHS.workers))) as {
      workers?: WorkerView[];
    };
    return Array.isArray(body.workers) ? body.workers : [];
  }

  /** Closes idle kept-alive connections (requests in flight finish). */
  close(): void {
    this.agent.destroy();
  }

  private async expectOk(reply: Reply): Promise<unknown> {
    if (reply.status >= 200 && reply.status < 300) return reply.body ?? {};
    throw this.errorFor(reply);
  }

  private errorFor(reply: Reply): CoordinatorError {
    const code = errorCode(reply);
    if (reply.status === 401) {
      const message = this.opts.token
        ? `the coordinator at ${this.url} refused the token: set coordinator.token (DAGU_COORDINATOR_TOKEN) to the coordinator's token`
        : `the coordinator at ${this.url} requires a token: set coordinator.token (DAGU_COORDINATOR_TOKEN)`;
      return new CoordinatorError(401, code, message);
    }
    return new CoordinatorError(
      reply.status,
      code,
      `coordinator answered ${reply.status}: ${errorMessage(reply)}`,
    );
  }

  private async send(method: 'GET' | 'POST', path: string, o: SendOptions = {}): Promise<Reply> {
    try {
      return await this.sendOnce(method, path, o);
    } catch (err) {
      // A kept-alive connection the server closed while idle fails on reuse before the request was read:
      // the documented remedy is to send it again once on a new connection.
      if ((err as { retryable?: boolean }).retryable) return this.sendOnce(method, path, o);
      throw err;
    }
  }

  private sendOnce(method: 'GET' | 'POST', path: string, o: SendOptions): Promise<Reply> {
    const payload = o.body === undefined ? null : Buffer.from(JSON.stringify(o.body));
    const target = new URL(this.base.pathname.replace(/\/+$/, '') + path, this.base);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.opts.token) headers.authorization = `Bearer ${this.opts.token}`;
    if (payload) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(payload.length);
    }
    const timeoutMs = o.timeoutMs ?? this.timeoutMs;
    const signal = o.signal;
    return new Promise<Reply>((resolve, reject) => {
      if (signal?.aborted) return reject(abortError(signal));
      const requestFn = target.protocol === 'https:' ? httpsRequest : httpRequest;
      let settled = false;
      const done = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        fn();
      };
      const req: ClientRequest = requestFn(target, { method, headers, agent: this.agent });
      const timer = setTimeout(() => {
        done(() =>
          reject(
            new CoordinatorUnreachableError(
              this.url,
              `coordinator at ${this.url} did not answer ${method} ${path} within ${timeoutMs / SECOND}s`,
            ),
          ),
        );
        req.destroy();
      }, timeoutMs);
      const onAbort = () => {
        done(() => reject(abortError(signal!)));
        req.destroy();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      req.on('error', (err: NodeJS.ErrnoException) => {
        const e = new CoordinatorUnreachableError(
          this.url,
          `coordinator at ${this.url} unreachable: ${err.message || err.code || 'connection failed'}`,
        );
        if (err.code === 'ECONNRESET' && req.reusedSocket) Object.assign(e, { retryable: true });
        done(() => reject(e));
      });
      req.on('response', (res: IncomingMessage) => {
        readBody(res).then(
          (text) => done(() => resolve({ status: res.statusCode ?? 0, body: parseJson(text) })),
          (err: Error) =>
            done(() =>
              reject(
                new CoordinatorUnreachableError(this.url, `coordinator reply broke off: ${err.message}`),
              ),
            ),
        );
      });
      req.end(payload ?? undefined);
    });
  }
}

function readBody(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_REPLY_BYTES) {
        res.destroy(new Error(`reply larger than ${MAX_REPLY_BYTES} bytes`));
        return;
      }
      chunks.push(c);
    });
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
    res.on('aborted', () => reject(new Error('connection closed')));
  });
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return { error: { code: 'bad_reply', message: text.slice(0, 200) } };
  }
}

function errorCode(reply: Reply): string {
  const e = (reply.body as { error?: { code?: unknown } } | null)?.error;
  return typeof e?.code === 'string' ? e.code : `http_${reply.status}`;
}

function errorMessage(reply: Reply): string {
  const e = (reply.body as { error?: unknown } | null)?.error;
  if (typeof e === 'string') return e;
  const m = (e as { message?: unknown } | undefined)?.message;
  return typeof m === 'string' ? m : `HTTP ${reply.status}`;
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('request aborted', 'AbortError');
}

/** A reply to one log piece, as the coordinator sends it. */
function isLogReply(r: unknown): r is LogReply {
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof (r as LogReply).accepted === 'boolean' &&
    typeof (r as LogReply).next_offset === 'number'
  );
}
