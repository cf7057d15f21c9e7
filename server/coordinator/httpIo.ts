// Request and response plumbing of the coordinator's node:http server: JSON replies, the error body of every
// non-2xx reply, and a size-capped, schema-validated JSON body.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import { HttpError } from '../core/httpError';

// The coordinator's routes throw the one HTTP error type of the code base.
export { HttpError };

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-store',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function sendError(res: ServerResponse, err: HttpError): void {
  sendJson(res, err.status, err.body(), err.headers);
}

export function sendNoContent(res: ServerResponse): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(204, { 'Cache-Control': 'no-store' });
  res.end();
}

/** Reads at most `limitBytes` of a JSON body and validates it; answers 400/413/415 through HttpError. */
export async function readJson<T>(
  req: IncomingMessage,
  schema: z.ZodType<T>,
  limitBytes: number,
): Promise<T> {
  const type = req.headers['content-type'];
  if (type !== undefined && !/^application\/json\s*(;|$)/i.test(type)) {
    throw new HttpError(415, 'unsupported_media_type', `the body must be JSON (Content-Type: ${type})`);
  }
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limitBytes) throw tooLarge(limitBytes);
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    total += chunk.byteLength;
    if (total > limitBytes) throw tooLarge(limitBytes);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(
      400,
      'bad_request',
      text.trim() === '' ? 'a JSON body is required' : 'the body is not valid JSON',
    );
  }
  return validated(schema, value);
}

/** `value` as `schema` takes it; else HttpError 400 naming the fields that are wrong. */
export function validated<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new HttpError(400, 'bad_request', describeIssues(parsed.error));
  return parsed.data;
}

function tooLarge(limitBytes: number): HttpError {
  return new HttpError(413, 'payload_too_large', `the body is larger than ${limitBytes} bytes`, {
    Connection: 'close',
  });
}

/** "status.steps.0.name: expected string, received number": the field first. */
function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'body'}: ${issue.message}`)
    .join('; ');
}
