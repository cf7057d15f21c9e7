// What every REST route handler shares: JSON answers, the error mapping, the auth and same-origin checks,
// and a size-capped, schema-validated JSON body.

import { z } from 'zod';
import { assertAuthenticated, credentialsOf } from './auth';
import { BadRequestError, ForbiddenError, PayloadTooLargeError, toErrorResponse } from './errors';
import type { Services } from './services';

/** Request bodies larger than this are refused with 413. */
export const MAX_BODY_BYTES = 64 * 1024;

const NO_STORE = { 'Cache-Control': 'no-store' };

export function jsonResponse(data: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return Response.json(data, { status, headers: { ...NO_STORE, ...headers } });
}

/** A result that answers with another status than 200 (e.g. 202 for a stop a worker carries out later). */
export class Reply {
  constructor(
    readonly body: unknown,
    readonly status: number,
    readonly headers: Record<string, string> = {},
  ) {}
}

export interface RespondOptions {
  /** Answered without credentials even when auth is configured (health, session). */
  public?: boolean;
}

/**
 * Runs one operation and answers with its result as JSON, or with the error body and status. Every route
 * goes through here, so none can skip the checks: the configured auth (unless the route is public) and, for
 * anything but GET, the same-origin check.
 */
export async function respond(
  req: Request,
  svc: Services,
  op: (svc: Services) => Promise<unknown>,
  opts: RespondOptions = {},
): Promise<Response> {
  try {
    if (!opts.public) assertAuthenticated(svc.config.auth, credentialsOf(req));
    if (req.method !== 'GET' && req.method !== 'HEAD') assertSameOrigin(req);
    const result = await op(svc);
    // A Response is an answer that is not JSON (an event stream, a file download), already complete.
    if (result instanceof Response) return result;
    return result instanceof Reply
      ? jsonResponse(result.body, result.status, result.headers)
      : jsonResponse(result);
  } catch (err) {
    const { status, body, headers } = toErrorResponse(err);
    if (status >= 500) {
      svc.logger.error('API request failed', {
        error: err instanceof Error ? (err.stack ?? err.message) : String(err),
      });
    }
    return jsonResponse(body, status, headers);
  }
}

/**
 * Refuses a mutation sent by a page of another origin. Browsers send `Sec-Fetch-Site` and/or `Origin` with
 * every POST; a request with neither comes from a non-browser client (curl, scripts), which CORS does not
 * concern.
 */
export function assertSameOrigin(req: Request): void {
  const site = req.headers.get('sec-fetch-site');
  if (site !== null && site !== 'same-origin' && site !== 'none') {
    throw new ForbiddenError(`cross-origin request refused (Sec-Fetch-Site: ${site})`);
  }
  const origin = req.headers.get('origin');
  if (origin === null) return;
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    throw new ForbiddenError(`cross-origin request refused (Origin: ${origin})`);
  }
  const hosts = [req.headers.get('host'), req.headers.get('x-forwarded-host')].filter((h) => h !== null);
  if (!hosts.includes(originHost)) {
    throw new ForbiddenError(`cross-origin request refused (Origin: ${origin})`);
  }
}

/** Reads at most `limitBytes` (MAX_BODY_BYTES) of the body; an empty body is `{}`. */
export async function readJsonBody<T>(
  req: Request,
  schema: z.ZodType<T>,
  limitBytes = MAX_BODY_BYTES,
): Promise<T> {
  const declared = Number(req.headers.get('content-length') ?? '0');
  if (declared > limitBytes) throw new PayloadTooLargeError(limitBytes);
  const text = await readCapped(req, limitBytes);
  let value: unknown = {};
  if (text.trim() !== '') {
    try {
      value = JSON.parse(text);
    } catch {
      throw new BadRequestError('request body is not valid JSON');
    }
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new BadRequestError(describeIssues(parsed.error));
  return parsed.data;
}

async function readCapped(req: Request, limit: number): Promise<string> {
  if (!req.body) return '';
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel();
      throw new PayloadTooLargeError(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** "params.2: expected string, received number" — the field first, as operators grep for it. */
export function describeIssues(error: z.ZodError, whole = 'body'): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.length > 0 ? issue.path.join('.') : whole;
      return `${field}: ${issue.message}`;
    })
    .join('; ');
}

/** Parameters after `--` on the command line: positional values or KEY=value. */
export const paramsSchema = z
  .array(
    z
      .string()
      .max(4096, 'a parameter is at most 4096 characters')
      // Parameters become arguments of the run process, which cannot carry a NUL (spawn would throw: a 500).
      .refine((p) => !p.includes('\0'), 'a parameter cannot contain a NUL character'),
  )
  .max(100);

/** `no_reuse` of a start or an enqueue: a build DAG's steps execute even where a committed output matches. */
const noReuseSchema = z.boolean().optional();

export const startBodySchema = z.strictObject({ params: paramsSchema.optional(), no_reuse: noReuseSchema });

/** POST /api/v1/runs/:id/retry: the whole run again (no body), or one step of it (Dagu's step retry). */
export const retryBodySchema = z
  .strictObject({
    step: z.string().min(1).max(1000).optional(),
    downstream: z.boolean().optional(),
  })
  .refine((b) => !b.downstream || b.step !== undefined, 'downstream needs a step');

/** POST /api/v1/runs/:id/human-tasks/:step/complete: the input, typed as JSON (as `--inputs-json`). */
export const humanTaskBodySchema = z.strictObject({ inputs: z.record(z.string(), z.unknown()).optional() });

/** POST /api/v1/runs/:id/approvals/:step/approve and …/push-back: the approver's inputs, as strings. */
export const approvalInputsBodySchema = z.strictObject({
  inputs: z.record(z.string(), z.string()).optional(),
});

/** POST /api/v1/runs/:id/approvals/:step/reject: an optional reason. */
export const approvalRejectBodySchema = z.strictObject({ reason: z.string().optional() });

export const enqueueBodySchema = z.strictObject({
  params: paramsSchema.optional(),
  run_id: z.string().optional(),
  no_reuse: noReuseSchema,
});

/** POST /api/v1/dags/:name/suspend: Dagu's body, `{suspend: true}` to suspend, `{suspend: false}` to resume. */
export const suspendBodySchema = z.strictObject({ suspend: z.boolean() });

/** POST /api/v1/queue/cancel: the runs to cancel, at most 500 in one request. */
export const cancelBodySchema = z.strictObject({
  run_ids: z
    .array(z.string().min(1, 'a run ID is not empty').max(200, 'a run ID is at most 200 characters'))
    .min(1, 'name at least one run')
    .max(500, 'at most 500 runs in one request'),
});

/** POST /api/v1/session: the token of auth.token. */
export const signInBodySchema = z.strictObject({
  token: z.string().min(1, 'the token is not empty').max(4096),
});
