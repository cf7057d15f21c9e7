// Reads an `http` step (`action: http.request` with `with:`, or legacy `type: http` with `GET https://...`
// in `command` and optional JSON config in `script`) into one checked request description.

import { isAbsolute, join, normalize } from 'node:path';
import type { ActionContext } from './types';
import { readBool, readInt, readString, readStringMap, WithFieldError } from './withValues';

/** A checked `http` step. */
export interface HttpConfig {
  method: string;
  url: URL;
  /** Seconds; 0 = no limit. */
  timeoutSec: number;
  headers: Record<string, string>;
  query: Record<string, string>;
  body: string;
  form: Record<string, string>;
  /** Field name -> absolute file path. */
  files: Record<string, string>;
  silent: boolean;
  debug: boolean;
  json: boolean;
  /** Absolute path the response body goes to, or null for stdout. */
  output: string | null;
  skipTlsVerify: boolean;
}

/** An `http` step that cannot be run as written. */
export class HttpConfigError extends Error {
  constructor(message: string) {
    super(`http: ${message}`);
    this.name = 'HttpConfigError';
  }
}

// RFC 9110 token characters: what a method may be made of.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export function readHttpConfig(
  ctx: Pick<ActionContext, 'with' | 'command' | 'script' | 'workingDir'>,
): HttpConfig {
  const fields = configFields(ctx);
  try {
    return checkedConfig(ctx, fields);
  } catch (e) {
    if (e instanceof WithFieldError) throw new HttpConfigError(e.message);
    throw e;
  }
}

/** Dagu reads the legacy `script` JSON instead of `with` when a script is given. */
function configFields(ctx: Pick<ActionContext, 'with' | 'script'>): Record<string, unknown> {
  if (ctx.script === null || ctx.script === '') return ctx.with;
  let parsed: unknown;
  try {
    parsed = JSON.parse(ctx.script);
  } catch (e) {
    throw new HttpConfigError(`script is not a JSON object of request settings: ${(e as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new HttpConfigError('script is not a JSON object of request settings');
  }
  return parsed as Record<string, unknown>;
}

function checkedConfig(
  ctx: Pick<ActionContext, 'command' | 'workingDir'>,
  fields: Record<string, unknown>,
): HttpConfig {
  const fromCommand = methodAndUrl(ctx.command);
  const method = (fromCommand.method || readString(fields, 'method').trim()).toUpperCase();
  const rawUrl = fromCommand.url || readString(fields, 'url').trim();
  if (rawUrl === '') throw new HttpConfigError('url is required (with.url, or after the method in command)');
  if (method === '') throw new HttpConfigError('method is required (with.method, or first word of command)');
  if (!TOKEN.test(method)) throw new HttpConfigError(`method '${method}' is not a valid HTTP method`);
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new HttpConfigError(`url '${rawUrl}' is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new HttpConfigError(`url '${rawUrl}' must use http or https`);
  }

  const timeoutSec = readInt(fields, 'timeout');
  if (timeoutSec < 0) throw new HttpConfigError(`with.timeout: ${timeoutSec} is negative`);
  const body = readString(fields, 'body');
  const form = readStringMap(fields, 'form');
  const files = readStringMap(fields, 'files');
  if (body !== '' && (Object.keys(form).length > 0 || Object.keys(files).length > 0)) {
    throw new HttpConfigError('body cannot be combined with form or files');
  }
  const headers = readStringMap(fields, 'headers');
  for (const name of Object.keys(headers)) {
    if (!TOKEN.test(name)) throw new HttpConfigError(`with.headers: '${name}' is not a valid header name`);
    if (/[\r\n\0]/.test(headers[name]!)) {
      throw new HttpConfigError(`with.headers.${name}: a header value cannot contain a line break`);
    }
  }
  const output = readString(fields, 'output').trim();
  return {
    method,
    url,
    timeoutSec,
    headers,
    query: readStringMap(fields, 'query'),
    body,
    form,
    files: Object.fromEntries(Object.entries(files).map(([k, p]) => [k, resolvePath(ctx.workingDir, p)])),
    silent: readBool(fields, 'silent'),
    debug: readBool(fields, 'debug'),
    json: readBool(fields, 'json') || readString(fields, 'format').trim() === 'json',
    output: output === '' ? null : resolvePath(ctx.workingDir, output),
    skipTlsVerify: readBool(fields, 'skip_tls_verify'),
  };
}

/** `GET https://...` as one command entry, or the method and the URL as two. */
function methodAndUrl(command: string[] | null): { method: string; url: string } {
  if (!command || command.length === 0) return { method: '', url: '' };
  const first = command[0]!.trim();
  const space = first.search(/\s/);
  if (space === -1) return { method: first, url: (command[1] ?? '').trim() };
  return { method: first.slice(0, space), url: first.slice(space).trim() };
}

function resolvePath(workingDir: string, path: string): string {
  return normalize(isAbsolute(path) ? path : join(workingDir, path));
}
