// Sends the request of an `http` step with node:http(s), which allows what Dagu's Go client allows (any
// method token, certificate checks turned off per request) and streams the response. Redirects are
// followed as Go's client follows them: up to 10, 301/302/303 turn into GET, 307/308 resend the body.

import { openAsBlob } from 'node:fs';
import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { basename } from 'node:path';
import { HttpConfigError, type HttpConfig } from './httpConfig';

const MAX_REDIRECTS = 10;
const SENSITIVE_ON_OTHER_HOST = ['authorization', 'www-authenticate', 'cookie', 'cookie2'];

/** The final response, with the URL it came from. */
export interface HttpResponse {
  response: IncomingMessage;
  url: URL;
}

interface Outgoing {
  method: string;
  url: URL;
  headers: OutgoingHttpHeaders;
  body: Buffer | null;
}

/** Sends the request and follows redirects; rejects on a network error, a timeout or an abort. */
export async function sendHttpRequest(cfg: HttpConfig, signal: AbortSignal): Promise<HttpResponse> {
  let outgoing = await firstRequest(cfg);
  for (let redirects = 0; ; redirects++) {
    const response = await exchange(outgoing, cfg.skipTlsVerify, signal);
    const next = redirectOf(outgoing, response);
    if (!next) return { response, url: outgoing.url };
    response.resume(); // the body of a redirect is not needed
    if (redirects === MAX_REDIRECTS) {
      throw new Error(`stopped after ${MAX_REDIRECTS} redirects (last to ${next.url.href})`);
    }
    outgoing = next;
  }
}

async function firstRequest(cfg: HttpConfig): Promise<Outgoing> {
  const url = new URL(cfg.url);
  const query = Object.entries(cfg.query).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (query.length > 0) {
    const added = new URLSearchParams(query).toString();
    url.search = url.search ? `${url.search}&${added}` : added;
  }
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(cfg.headers)) headers[name.toLowerCase()] = value;

  let body: Buffer | null = null;
  if (Object.keys(cfg.form).length > 0 || Object.keys(cfg.files).length > 0) {
    const multipart = await multipartBody(cfg);
    body = multipart.body;
    headers['content-type'] = multipart.contentType;
  } else if (cfg.body !== '' && !['GET', 'HEAD', 'OPTIONS'].includes(cfg.method)) {
    // Dagu's client sends no payload with GET, HEAD or OPTIONS, and labels an unlabelled body as text.
    body = Buffer.from(cfg.body, 'utf8');
    headers['content-type'] ??= 'text/plain; charset=utf-8';
  }
  if (body) headers['content-length'] = String(body.length);
  return { method: cfg.method, url, headers, body };
}

/** The multipart/form-data encoding of `form` and `files`, made by the platform's FormData. */
async function multipartBody(cfg: HttpConfig): Promise<{ body: Buffer; contentType: string }> {
  const data = new FormData();
  for (const [name, value] of Object.entries(cfg.form)) data.append(name, value);
  for (const [name, path] of Object.entries(cfg.files)) {
    let blob: Blob;
    try {
      blob = await openAsBlob(path);
    } catch (e) {
      throw new HttpConfigError(`with.files.${name}: cannot read '${path}': ${(e as Error).message}`);
    }
    data.append(name, blob, basename(path));
  }
  const encoded = new Request('http://localhost/', { method: 'POST', body: data });
  return {
    body: Buffer.from(await encoded.arrayBuffer()),
    contentType: encoded.headers.get('content-type')!,
  };
}

function exchange(out: Outgoing, skipTlsVerify: boolean, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const send = out.url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(out.url, {
      method: out.method,
      headers: out.headers,
      signal,
      agent: false, // one connection per step, closed after it: nothing keeps the run's process alive
      rejectUnauthorized: !skipTlsVerify,
    });
    req.once('response', resolve);
    req.once('error', reject);
    req.end(out.body ?? undefined);
  });
}

function redirectOf(out: Outgoing, response: IncomingMessage): Outgoing | null {
  const status = response.statusCode ?? 0;
  const location = response.headers.location;
  if (![301, 302, 303, 307, 308].includes(status) || !location) return null;
  let url: URL;
  try {
    url = new URL(location, out.url);
  } catch {
    return null;
  }
  const headers = { ...out.headers };
  let { method, body } = out;
  if (status !== 307 && status !== 308 && method !== 'HEAD') {
    method = 'GET';
    body = null;
    delete headers['content-type'];
    delete headers['content-length'];
  }
  if (url.hostname !== out.url.hostname && !url.hostname.endsWith(`.${out.url.hostname}`)) {
    for (const name of SENSITIVE_ON_OTHER_HOST) delete headers[name];
  }
  return { method, url, headers, body };
}
