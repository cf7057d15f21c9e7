// Where each line of the run's log console comes from: the step logs (one per step and stream, in start
// order) laid end to end, so that row i of the virtual list is line j of one log; which pages of lines the
// rows in view need; and the row of a search match. Pure, so it is tested without a browser.

export type LogStream = 'stdout' | 'stderr';

/** One step log as GET /api/v1/runs/:id/log-sources lists it. */
export interface SourceInfo {
  step: string;
  stream: LogStream;
  lines: number;
}

/** A log placed in the console: its first row is `start`. */
export interface Segment extends SourceInfo {
  start: number;
}

/** Which logs the console shows: one step or all (null), one stream or both (null). */
export interface LogFilter {
  step: string | null;
  stream: LogStream | null;
}

export interface Layout {
  segments: Segment[];
  total: number;
}

/** Lines fetched in one request. */
export const PAGE_LINES = 500;

export function layoutSources(sources: readonly SourceInfo[], filter: LogFilter): Layout {
  const segments: Segment[] = [];
  let total = 0;
  for (const s of sources) {
    if (filter.step !== null && s.step !== filter.step) continue;
    if (filter.stream !== null && s.stream !== filter.stream) continue;
    segments.push({ step: s.step, stream: s.stream, lines: s.lines, start: total });
    total += s.lines;
  }
  return { segments, total };
}

/** The log and line of row `row`; null outside the console. */
export function locate(layout: Layout, row: number): { segment: Segment; line: number } | null {
  if (row < 0 || row >= layout.total) return null;
  let lo = 0;
  let hi = layout.segments.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (layout.segments[mid].start <= row) lo = mid;
    else hi = mid - 1;
  }
  const segment = layout.segments[lo];
  return { segment, line: row - segment.start };
}

/** The row of line `line` of a step's stream; null when that log is filtered out or has no such line. */
export function rowOf(layout: Layout, step: string, stream: LogStream, line: number): number | null {
  const segment = layout.segments.find((s) => s.step === step && s.stream === stream);
  if (!segment || line < 0 || line >= segment.lines) return null;
  return segment.start + line;
}

/** A page of one log that rows in view need. */
export interface PageRef {
  step: string;
  stream: LogStream;
  page: number;
  /** Lines of the page that exist now (the last page of a growing log grows): part of its cache key. */
  known: number;
}

/** The pages covering rows `first` to `last`, each once, in order. */
export function pagesFor(layout: Layout, first: number, last: number): PageRef[] {
  const out: PageRef[] = [];
  const seen = new Set<string>();
  for (let row = Math.max(0, first); row <= Math.min(last, layout.total - 1);) {
    const at = locate(layout, row)!;
    const page = Math.floor(at.line / PAGE_LINES);
    const key = `${at.segment.step}\0${at.segment.stream}\0${page}`;
    if (!seen.has(key)) {
      seen.add(key);
      const known = Math.min(PAGE_LINES, at.segment.lines - page * PAGE_LINES);
      out.push({ step: at.segment.step, stream: at.segment.stream, page, known });
    }
    // Next row not on this page: the page's end or the segment's end, whichever comes first.
    row = at.segment.start + Math.min((page + 1) * PAGE_LINES, at.segment.lines);
  }
  return out;
}
