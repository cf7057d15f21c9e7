// The browser's client for /api/v1: JSON in and out, API errors turned into ApiRequestError with the
// server's message, so views can show it as is. A 401 is also recorded in a tiny store the console's shell
// subscribes to, so whichever view hit it, the shell can ask for credentials.

/** An error answer of the REST API (or a network failure, with status 0). */
export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The whole JSON answer, for errors that carry more than the message (a save's conflict). */
    readonly body: unknown = null,
  ) {
    super(message);
    this.name = 'ApiRequestError';
  }
}

export function isNotFound(err: unknown): boolean {
  return err instanceof ApiRequestError && err.status === 404;
}

export function isUnauthorized(err: unknown): boolean {
  return err instanceof ApiRequestError && err.status === 401;
}

// When an API call last answered 401 (browser clock, ms), null before any; shaped for useSyncExternalStore.
let lastUnauthorizedAtMs: number | null = null;
const unauthorizedListeners = new Set<() => void>();

/** Calls `listener` after every 401 answer; returns the unsubscribe function. */
export function subscribeUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => {
    unauthorizedListeners.delete(listener);
  };
}

/** When the last 401 arrived (Date.now() of the browser), or null. */
export function lastUnauthorizedAt(): number | null {
  return lastUnauthorizedAtMs;
}

function noteUnauthorized(): void {
  lastUnauthorizedAtMs = Date.now();
  for (const listener of unauthorizedListeners) listener();
}

async function request<T>(url: string, init?: RequestInit): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, headers: { Accept: 'application/json', ...init?.headers } });
  } catch (err) {
    throw new ApiRequestError(
      0,
      'network',
      `cannot reach the server: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    // A non-JSON answer (a proxy's error page, say) is reported by status below.
  }
  if (!res.ok) {
    if (res.status === 401) noteUnauthorized();
    const error = (body as { error?: { code?: string; message?: string } } | null)?.error;
    throw new ApiRequestError(
      res.status,
      error?.code ?? 'http_error',
      error?.message ?? `HTTP ${res.status} from ${url}`,
      body,
    );
  }
  return body as T;
}

export function getJson<T>(url: string, signal?: AbortSignal): Promise<T> {
  return request<T>(url, { signal });
}

export function postJson<T>(url: string, body: unknown = {}): Promise<T> {
  return request<T>(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}
