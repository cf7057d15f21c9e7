// The `http` step type (`action: http.request`, legacy `type: http`), with Dagu's output: in text mode the
// status line, the response headers and the body; with `silent` and a 2xx answer only the body; with
// `json` / `format: json` one JSON object {status_code, headers, body}; `output` sends the body to a file.
// A response outside 2xx fails the step after its output is written.

import type { IncomingMessage } from 'node:http';
import { chmod, mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { goJson, GoStruct } from './goJson';
import { HttpConfigError, readHttpConfig, type HttpConfig } from './httpConfig';
import { sendHttpRequest } from './httpRequest';
import { sinkWriter, type SinkWriter } from './sinkWriter';
import { ACTION_OK, actionFailed, type ActionContext, type ActionResult } from './types';

export async function runHttpAction(ctx: ActionContext): Promise<ActionResult> {
  let cfg: HttpConfig;
  try {
    cfg = readHttpConfig(ctx);
  } catch (e) {
    if (e instanceof HttpConfigError) return actionFailed(e.message);
    throw e;
  }
  const stdout = sinkWriter(ctx.stdout);
  const stderr = sinkWriter(ctx.stderr);
  const timeout = cfg.timeoutSec > 0 ? AbortSignal.timeout(cfg.timeoutSec * 1000) : null;
  const signal = timeout ? AbortSignal.any([ctx.signal, timeout]) : ctx.signal;
  const what = `${cfg.method} ${cfg.url.href}`;
  try {
    if (cfg.debug) await stderr(`http: request ${what}\n${headerLines(cfg.headers)}`);
    const { response } = await sendHttpRequest(cfg, signal);
    if (cfg.debug) await stderr(`http: response ${statusLine(response)}\n`);
    const ok = isSuccess(response);
    await writeResponse(cfg, response, stdout);
    if (!ok) return actionFailed(`http: ${what}: status ${statusLine(response)} is not 2xx`);
    return ACTION_OK;
  } catch (e) {
    if (e instanceof HttpConfigError) return actionFailed(e.message);
    if (timeout?.aborted && !ctx.signal.aborted) {
      return actionFailed(`http: ${what}: no complete response within ${cfg.timeoutSec}s (with.timeout)`);
    }
    if (ctx.signal.aborted) return actionFailed(`http: ${what}: stopped`);
    return actionFailed(`http: ${what}: ${describeError(e)}`);
  }
}

function describeError(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const code = (e as NodeJS.ErrnoException).code;
  if (code && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|TLS/.test(code)) {
    return `${e.message} (TLS certificate not trusted; skip_tls_verify turns the check off)`;
  }
  return code && !e.message.includes(code) ? `${e.message} (${code})` : e.message;
}

function isSuccess(response: IncomingMessage): boolean {
  const status = response.statusCode ?? 0;
  return status >= 200 && status <= 299;
}

/** `200 OK`, as Go's client reports a response status. */
function statusLine(response: IncomingMessage): string {
  return `${response.statusCode} ${response.statusMessage ?? ''}`.trim();
}

async function writeResponse(cfg: HttpConfig, response: IncomingMessage, stdout: SinkWriter): Promise<void> {
  const ok = isSuccess(response);
  if (cfg.output !== null && ok) {
    if (!cfg.silent && !cfg.json) await stdout(textPrefix(response));
    await writeBodyFile(cfg.output, response);
    if (cfg.json) await stdout(jsonResult(cfg, response, { output: cfg.output }));
    return;
  }
  if (cfg.json) {
    const text = (await readAll(response)).toString('utf8');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (e) {
      // Dagu keeps a failed answer's non-JSON body as text when the body was meant for a file.
      if (cfg.output !== null && !ok) body = text;
      else
        throw new Error(`format json: the response body is not JSON (${(e as Error).message})`, { cause: e });
    }
    await stdout(jsonResult(cfg, response, { body }));
    return;
  }
  // Text mode: the status and headers unless silent and 2xx, then the body, streamed.
  if (!cfg.silent || !ok) await stdout(textPrefix(response));
  for await (const chunk of response) await stdout(chunk as Buffer);
}

/** The status line, then each header as Go's Header.Write writes it: sorted, canonical names, CRLF. */
function textPrefix(response: IncomingMessage): string {
  let text = `${statusLine(response)}\n`;
  for (const [name, values] of canonicalHeaders(response)) {
    for (const value of values) text += `${name}: ${value.replace(/[\r\n]/g, ' ').trim()}\r\n`;
  }
  return text;
}

function jsonResult(
  cfg: HttpConfig,
  response: IncomingMessage,
  extra: { body?: unknown; output?: string },
): string {
  // Go's encoder: a silent 2xx answer leaves status_code 0 and headers null; a null body is left out.
  const showMeta = !cfg.silent || !isSuccess(response);
  return goJson(
    new GoStruct([
      ['status_code', showMeta ? response.statusCode : 0],
      ['headers', showMeta ? Object.fromEntries(canonicalHeaders(response)) : null],
      ['body', extra.body === null ? undefined : extra.body],
      ['output', extra.output],
    ]),
    ' ',
  );
}

/** Response headers under Go's canonical names, values in arrival order, sorted by name. */
function canonicalHeaders(response: IncomingMessage): Array<[string, string[]]> {
  const byName = new Map<string, string[]>();
  const raw = response.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = canonicalName(raw[i]!);
    // Go's transport consumes Transfer-Encoding and does not show it among the headers.
    if (name === 'Transfer-Encoding') continue;
    const values = byName.get(name) ?? [];
    values.push(raw[i + 1]!);
    byName.set(name, values);
  }
  return [...byName.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function canonicalName(name: string): string {
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) return name;
  return name.toLowerCase().replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
}

function headerLines(headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\n`)
    .join('');
}

async function readAll(response: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Streams the body into a temporary file beside the target and renames it over: a failure keeps the old file. */
async function writeBodyFile(path: string, response: IncomingMessage): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o750 });
  const tmp = join(dirname(path), `${basename(path)}.tmp.${randomBytes(4).toString('hex')}`);
  const file = await open(tmp, 'wx', 0o600);
  try {
    for await (const chunk of response) await file.write(chunk as Buffer);
    await file.close();
    await chmod(tmp, 0o600);
    await rename(tmp, path);
  } catch (e) {
    await file.close().catch(() => {});
    await rm(tmp, { force: true });
    throw e;
  }
}
