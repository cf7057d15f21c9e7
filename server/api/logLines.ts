// Lines of a (possibly huge, possibly growing) run log without reading it whole, through the run log store:
// a page of lines starts where the store says the line can be reached soon (an index of line starts for
// files, a chunk's line offset in the database), and a search streams over the log in pieces. Nothing here
// holds more than a piece of the log in memory.

import type { RunLogRef, RunLogStore } from '../store/runLogStore';

/** A longer line is cut to this many characters when served (the download has it whole). */
export const MAX_LINE_CHARS = 4000;
const NEWLINE = 0x0a;
/** A line longer than this is kept only in part while it is read (what a served line shows, and more). */
const CARRY_LIMIT = MAX_LINE_CHARS * 4 + 256 * 1024;

/** A page of lines of one file. */
export interface LinePage {
  /** First line's number (0-based). */
  from: number;
  lines: string[];
  /** Lines in the file now (the last may still be growing). */
  total_lines: number;
  /** Bytes in the file now. */
  size: number;
}

/**
 * Lines `from` to `from + count - 1` of a log (fewer at its end), each cut at MAX_LINE_CHARS; null when the
 * log does not exist (yet).
 */
export async function readLinePage(
  logs: RunLogStore,
  ref: RunLogRef,
  from: number,
  count: number,
): Promise<LinePage | null> {
  const stat = await logs.stat(ref);
  if (stat === null) return null;
  const lines: string[] = [];
  if (from < stat.lines && count > 0) {
    const start = await logs.seekLine(ref, from);
    // `start` may lie inside an earlier line: that line's rest is counted, never served.
    let lineNo = start.line;
    const end = Math.min(stat.lines, from + count);
    await forEachLine(logs.read(ref, start.offset, stat.size), (line) => {
      if (lineNo >= from) lines.push(cutLine(line));
      lineNo += 1;
      return lineNo < end;
    });
  }
  return { from, lines, total_lines: stat.lines, size: stat.size };
}

/** Calls `visit` with each line of `pieces` (a last line without newline included) until it returns false. */
export async function forEachLine(
  pieces: AsyncIterable<Uint8Array>,
  visit: (line: string) => boolean,
): Promise<void> {
  let carry = Buffer.alloc(0);
  for await (const piece of pieces) {
    const bytes = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    const data = carry.length > 0 ? Buffer.concat([carry, bytes]) : bytes;
    let lineStart = 0;
    for (let at = data.indexOf(NEWLINE); at !== -1; at = data.indexOf(NEWLINE, lineStart)) {
      // Leaving the loop ends the read: the store releases what it holds.
      if (!visit(data.toString('utf8', lineStart, at))) return;
      lineStart = at + 1;
    }
    const rest = data.subarray(lineStart);
    carry = Buffer.from(rest.length > CARRY_LIMIT ? rest.subarray(0, MAX_LINE_CHARS * 4) : rest);
  }
  if (carry.length > 0) visit(carry.toString('utf8'));
}

export function cutLine(line: string): string {
  const trimmed = line.endsWith('\r') ? line.slice(0, -1) : line;
  return trimmed.length > MAX_LINE_CHARS ? `${trimmed.slice(0, MAX_LINE_CHARS)}…` : trimmed;
}

/** One line that matched, with the lines around it. */
export interface LineMatch {
  line: number;
  text: string;
  before: string[];
  after: string[];
}

/**
 * Lines of a log containing `needle` (case-insensitive), oldest first, at most `limit`; `more` when it has
 * more matches than that; null when the log does not exist. Reads the log forward in pieces, holding only
 * the context lines.
 */
export async function searchLog(
  logs: RunLogStore,
  ref: RunLogRef,
  needle: string,
  opts: { limit: number; context: number },
): Promise<{ matches: LineMatch[]; more: boolean; lines: number } | null> {
  const stat = await logs.stat(ref);
  if (stat === null) return null;
  const wanted = needle.toLowerCase();
  const matches: LineMatch[] = [];
  const previous: string[] = [];
  const open: LineMatch[] = [];
  let lineNo = 0;
  let more = false;
  await forEachLine(logs.read(ref, 0, stat.size), (raw) => {
    const line = cutLine(raw);
    for (const m of open) m.after.push(line);
    while (open.length > 0 && open[0].after.length >= opts.context) open.shift();
    // Past the limit: only the after-context of the last matches is still wanted.
    if (more) return open.length > 0;
    if (raw.toLowerCase().includes(wanted)) {
      if (matches.length >= opts.limit) {
        more = true;
        return open.length > 0;
      }
      const match: LineMatch = { line: lineNo, text: line, before: [...previous], after: [] };
      matches.push(match);
      if (opts.context > 0) open.push(match);
    }
    if (opts.context > 0) {
      previous.push(line);
      if (previous.length > opts.context) previous.shift();
    }
    lineNo += 1;
    return true;
  });
  return { matches, more, lines: lineNo };
}
