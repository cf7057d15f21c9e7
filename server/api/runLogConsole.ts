// The run page's log console over the API: which logs a run has (each step's stdout and stderr, in the order
// the steps started), pages of their lines, a search over all of them, and the raw logs as downloads, all
// through the run log store (files or database chunks). Every log is found through the run's status record
// and must be one of the run's own (stepLogRef), so a step name or run ID from a request never names a path.

import type { RunStatus, StepStatus } from '../core/types';
import type { RunLogRef, RunLogStore } from '../store/runLogStore';
import { BadRequestError } from './errors';
import { readLinePage, searchLog, type LineMatch, type LinePage } from './logLines';
import { getRun } from './runs';
import { assertStepName, stepLogRef, withinLogs, type LogStream } from './runLogs';
import type { Services } from './services';

/** Most lines one page request returns. */
export const MAX_PAGE_LINES = 2000;
/** Most matches one search returns. */
export const MAX_SEARCH_MATCHES = 1000;
export const DEFAULT_SEARCH_MATCHES = 200;
/** Most lines of context around a match. */
export const MAX_SEARCH_CONTEXT = 5;
export const MAX_QUERY_CHARS = 200;

const STREAMS: readonly LogStream[] = ['stdout', 'stderr'];

/** One log of a run: a step's stream that has a file. */
export interface LogSource {
  step: string;
  stream: LogStream;
  /** Lines and bytes in the file now. */
  lines: number;
  size: number;
  step_status: string;
  started_at: string | null;
}

export interface LogSources {
  run_id: string;
  attempt: number;
  status: string;
  /** In the order the steps started (not started last), stdout before stderr: as close to time order as
   *  logs without timestamps allow. */
  sources: LogSource[];
}

/** A step's streams and handlers in start order; a merged log (stdout and stderr in one file) listed once. */
function stepsInStartOrder(status: RunStatus): StepStatus[] {
  const handlers = Object.values(status.handlers).filter((h): h is StepStatus => h !== undefined);
  const all = [...status.steps, ...handlers];
  return all
    .map((step, i) => ({ step, i }))
    .sort((a, b) => {
      const x = a.step.started_at;
      const y = b.step.started_at;
      if (x && y && x !== y) return x < y ? -1 : 1;
      if (!x !== !y) return x ? -1 : 1;
      return a.i - b.i;
    })
    .map(({ step }) => step);
}

export async function listLogSources(svc: Services, runId: string): Promise<LogSources> {
  const status = await getRun(svc, runId);
  const sources: LogSource[] = [];
  for (const step of stepsInStartOrder(status)) {
    const seen = new Set<string>();
    for (const stream of STREAMS) {
      const ref = await stepLogRef(svc, status, step.name, stream);
      // A merged log (stdout and stderr in one file) is listed once.
      const key = ref && `${ref.attempt}/${ref.name}`;
      if (ref === null || seen.has(key!)) continue;
      seen.add(key!);
      const stat = await withinLogs(svc.logs.stat(ref));
      if (stat === null) continue; // not written yet
      sources.push({
        step: step.name,
        stream,
        lines: stat.lines,
        size: stat.size,
        step_status: step.status,
        started_at: step.started_at,
      });
    }
  }
  return { run_id: status.run_id, attempt: status.attempt, status: status.status, sources };
}

function intParam(name: string, value: string | null, min: number, max: number, fallback: number): number {
  if (value === null || value === '') return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) {
    throw new BadRequestError(
      `${name}: ${JSON.stringify(value)} must be a whole number from ${min} to ${max}`,
    );
  }
  return n;
}

export function parseStream(value: string | null): LogStream {
  const stream = value ?? 'stdout';
  if (stream !== 'stdout' && stream !== 'stderr') {
    throw new BadRequestError(`stream: ${JSON.stringify(stream)} must be stdout or stderr`);
  }
  return stream;
}

async function refOf(svc: Services, runId: string, step: string, stream: LogStream) {
  assertStepName(step);
  const status = await getRun(svc, runId);
  return { status, ref: await stepLogRef(svc, status, step, stream) };
}

/** `?stream=&from=&limit=`: a page of one step's lines. */
export async function readLogLines(
  svc: Services,
  runId: string,
  step: string,
  q: URLSearchParams,
): Promise<LinePage & { step: string; stream: LogStream }> {
  const stream = parseStream(q.get('stream'));
  const from = intParam('from', q.get('from'), 0, Number.MAX_SAFE_INTEGER, 0);
  const limit = intParam('limit', q.get('limit'), 1, MAX_PAGE_LINES, 500);
  const { ref } = await refOf(svc, runId, step, stream);
  const page = ref === null ? null : await withinLogs(readLinePage(svc.logs, ref, from, limit));
  return { step, stream, ...(page ?? { from, lines: [], total_lines: 0, size: 0 }) };
}

export interface LogSearchMatch extends LineMatch {
  step: string;
  stream: LogStream;
}

export interface LogSearchResult {
  query: string;
  matches: LogSearchMatch[];
  /** True when there were more matches than `limit`; the first `limit` (in source order) are listed. */
  truncated: boolean;
}

/** `?q=&step=&stream=&limit=&context=`: lines containing `q` (case-insensitive) in the run's logs. */
export async function searchRunLogs(
  svc: Services,
  runId: string,
  q: URLSearchParams,
): Promise<LogSearchResult> {
  const query = q.get('q') ?? '';
  if (query.trim() === '') throw new BadRequestError('q: give the text to search for');
  if (query.length > MAX_QUERY_CHARS) throw new BadRequestError(`q: at most ${MAX_QUERY_CHARS} characters`);
  const limit = intParam('limit', q.get('limit'), 1, MAX_SEARCH_MATCHES, DEFAULT_SEARCH_MATCHES);
  const context = intParam('context', q.get('context'), 0, MAX_SEARCH_CONTEXT, 1);
  const onlyStep = q.get('step');
  if (onlyStep !== null) assertStepName(onlyStep);
  const onlyStream = q.get('stream') === null ? null : parseStream(q.get('stream'));
  const { sources } = await listLogSources(svc, runId);
  const status = await getRun(svc, runId);
  const matches: LogSearchMatch[] = [];
  let truncated = false;
  for (const source of sources) {
    if (onlyStep !== null && source.step !== onlyStep) continue;
    if (onlyStream !== null && source.stream !== onlyStream) continue;
    const ref = await stepLogRef(svc, status, source.step, source.stream);
    if (ref === null) continue;
    const found = await withinLogs(
      searchLog(svc.logs, ref, query, { limit: limit - matches.length, context }),
    );
    if (!found) continue;
    for (const m of found.matches) matches.push({ step: source.step, stream: source.stream, ...m });
    // Stopped at the limit: there may be more (in this log, or in the ones not searched).
    if (found.more || matches.length >= limit) {
      truncated = true;
      break;
    }
  }
  return { query, matches, truncated };
}

/** A file name for Content-Disposition: the run and step, with anything unusual replaced. */
export function downloadName(...parts: string[]): string {
  return parts.map((p) => p.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 100)).join('.') + '.log';
}

function download(body: ReadableStream<Uint8Array>, name: string, size?: number): Response {
  const headers: Record<string, string> = {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Disposition': `attachment; filename="${name}"`,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  };
  if (size !== undefined) headers['Content-Length'] = String(size);
  return new Response(body, { status: 200, headers });
}

/** Bytes `start` to `end` of a log as a web stream; cancelling it ends the store's read. */
function logStream(logs: RunLogStore, ref: RunLogRef, end: number): ReadableStream<Uint8Array> {
  const pieces = logs.read(ref, 0, end)[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await pieces.next();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel() {
      await pieces.return?.();
    },
  });
}

/** One step's stream as it is stored. */
export async function downloadStepLog(
  svc: Services,
  runId: string,
  step: string,
  q: URLSearchParams,
): Promise<Response> {
  const stream = parseStream(q.get('stream'));
  const { status, ref } = await refOf(svc, runId, step, stream);
  const name = downloadName(status.run_id, step, stream);
  const stat = ref === null ? null : await withinLogs(svc.logs.stat(ref));
  if (ref === null || stat === null) return download(new Blob([]).stream(), name, 0);
  // The size now: a growing log is sent as it was when asked, so Content-Length holds.
  return download(logStream(svc.logs, ref, stat.size), name, stat.size);
}

/** Every log of the run, one after another in start order, each under a `==> step (stream) <==` line. */
export async function downloadRunLogs(svc: Services, runId: string): Promise<Response> {
  const { sources } = await listLogSources(svc, runId);
  const status = await getRun(svc, runId);
  const encoder = new TextEncoder();
  const files: Array<{ header: string; ref: RunLogRef | null; size: number }> = [];
  // An empty log (most steps' stderr) would be only a heading.
  for (const s of sources.filter((x) => x.size > 0)) {
    files.push({
      header: `==> ${s.step} (${s.stream}) <==\n`,
      ref: await stepLogRef(svc, status, s.step, s.stream),
      size: s.size,
    });
  }
  let current: ReadableStreamDefaultReader<Uint8Array> | null = null;
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        if (current) {
          // A log removed meanwhile (history cleanup) ends its part early rather than the whole download.
          const { done, value } = await current
            .read()
            .catch(() => ({ done: true as const, value: undefined }));
          if (!done) {
            controller.enqueue(value);
            return;
          }
          current = null;
          controller.enqueue(encoder.encode('\n'));
        }
        if (next >= files.length) {
          controller.close();
          return;
        }
        const { header, ref, size } = files[next++];
        controller.enqueue(encoder.encode(header));
        // Each log as it was when listed: one still growing is not followed past that.
        if (ref !== null) current = logStream(svc.logs, ref, size).getReader();
        return;
      }
    },
    async cancel() {
      await current?.cancel();
    },
  });
  return download(body, downloadName(status.run_id, 'all-steps'));
}
