// Lines of a (possibly huge, possibly growing) log file without reading it whole: a sparse index of where
// every 256th line starts, built by reading the file forward once and extended as the file grows, serves
// any page of lines with a short read; a search streams over the file in chunks. Nothing here holds more
// than a chunk of the file in memory.

import { open, type FileHandle } from 'node:fs/promises';

/** Every STRIDE-th line's start offset is kept: 1 M lines cost 4 K numbers. */
export const STRIDE = 256;
const CHUNK_BYTES = 256 * 1024;
/** A longer line is cut to this many characters when served (the download has it whole). */
export const MAX_LINE_CHARS = 4000;
const NEWLINE = 0x0a;

/** Where lines start in one file, as far as it has been read. */
export class LineIndex {
  /** checkpoints[k]: byte offset where line k * STRIDE starts. */
  readonly checkpoints: number[] = [0];
  /** Lines ended by a newline so far. */
  complete = 0;
  /** Byte offset after the last newline read (where the next line starts). */
  nextLineStart = 0;
  /** Bytes read so far. */
  scanned = 0;

  /** The extension in progress: two requests for the same file must not read the same bytes twice. */
  private extending: Promise<void> = Promise.resolve();

  constructor(readonly ino: number) {}

  /** Brings the index up to `size`, after any extension already under way (one at a time). */
  extendTo(handle: FileHandle, size: number): Promise<void> {
    const next = this.extending.then(() => this.extend(handle, size));
    this.extending = next.catch(() => undefined);
    return next;
  }

  /** Lines in a file of `size` bytes: the complete ones and a last one still being written. */
  lineCount(size: number): number {
    return this.complete + (size > this.nextLineStart ? 1 : 0);
  }

  /** Reads the bytes after `scanned` up to `size`, noting each line start. */
  private async extend(handle: FileHandle, size: number): Promise<void> {
    const buffer = Buffer.alloc(CHUNK_BYTES);
    while (this.scanned < size) {
      const { bytesRead } = await handle.read(
        buffer,
        0,
        Math.min(CHUNK_BYTES, size - this.scanned),
        this.scanned,
      );
      if (bytesRead === 0) break;
      this.noteNewlines(buffer.subarray(0, bytesRead), this.scanned);
      this.scanned += bytesRead;
    }
  }

  /** Counts the newlines of `chunk` (found at `base` in the file); pure, so it is tested on its own. */
  noteNewlines(chunk: Uint8Array, base: number): void {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    for (let at = bytes.indexOf(NEWLINE); at !== -1; at = bytes.indexOf(NEWLINE, at + 1)) {
      this.complete += 1;
      this.nextLineStart = base + at + 1;
      if (this.complete % STRIDE === 0) this.checkpoints.push(this.nextLineStart);
    }
  }
}

const MAX_INDEXES = 64;
const indexes = new Map<string, LineIndex>();

/** The index of `file` brought up to its current size (a replaced or truncated file is read again). */
async function indexOf(file: string, handle: FileHandle): Promise<{ index: LineIndex; size: number }> {
  const st = await handle.stat();
  let index = indexes.get(file);
  if (!index || index.ino !== st.ino || st.size < index.scanned) index = new LineIndex(st.ino);
  // Least recently used last out: re-inserting keeps the map in use order.
  indexes.delete(file);
  indexes.set(file, index);
  if (indexes.size > MAX_INDEXES) indexes.delete(indexes.keys().next().value!);
  await index.extendTo(handle, st.size);
  return { index, size: st.size };
}

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

/** Lines `from` to `from + count - 1` (fewer at the end of the file); each cut at MAX_LINE_CHARS. */
export async function readLinePage(file: string, from: number, count: number): Promise<LinePage> {
  const handle = await open(file, 'r');
  try {
    const { index, size } = await indexOf(file, handle);
    const total = index.lineCount(size);
    const lines: string[] = [];
    if (from < total && count > 0) {
      const checkpoint = Math.floor(from / STRIDE);
      let lineNo = checkpoint * STRIDE;
      const end = Math.min(total, from + count);
      await forEachLine(handle, index.checkpoints[checkpoint], size, (line) => {
        if (lineNo >= from) lines.push(cutLine(line));
        lineNo += 1;
        return lineNo < end;
      });
    }
    return { from, lines, total_lines: total, size };
  } finally {
    await handle.close();
  }
}

/** Calls `visit` with each line from byte `start` to `end` (a last line without newline included) until it returns false. */
export async function forEachLine(
  handle: FileHandle,
  start: number,
  end: number,
  visit: (line: string) => boolean,
): Promise<void> {
  const buffer = Buffer.alloc(CHUNK_BYTES);
  let carry = Buffer.alloc(0);
  let position = start;
  while (position < end) {
    const { bytesRead } = await handle.read(buffer, 0, Math.min(CHUNK_BYTES, end - position), position);
    if (bytesRead === 0) break;
    position += bytesRead;
    const data =
      carry.length > 0
        ? Buffer.concat([carry, buffer.subarray(0, bytesRead)])
        : buffer.subarray(0, bytesRead);
    let lineStart = 0;
    for (let at = data.indexOf(NEWLINE); at !== -1; at = data.indexOf(NEWLINE, lineStart)) {
      if (!visit(data.toString('utf8', lineStart, at))) return;
      lineStart = at + 1;
    }
    // A line longer than a chunk is kept whole only up to what a served line shows (and a bit more).
    const rest = data.subarray(lineStart);
    carry = Buffer.from(
      rest.length > MAX_LINE_CHARS * 4 + CHUNK_BYTES ? rest.subarray(0, MAX_LINE_CHARS * 4) : rest,
    );
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
 * Lines of `file` containing `needle` (case-insensitive), oldest first, at most `limit`; `more` when the
 * file has more matches than that. Reads the file forward in chunks, holding only the context lines.
 */
export async function searchFile(
  file: string,
  needle: string,
  opts: { limit: number; context: number },
): Promise<{ matches: LineMatch[]; more: boolean; lines: number }> {
  const handle = await open(file, 'r');
  const wanted = needle.toLowerCase();
  const matches: LineMatch[] = [];
  const previous: string[] = [];
  const open_: LineMatch[] = [];
  let lineNo = 0;
  let more = false;
  try {
    const { size } = await handle.stat();
    await forEachLine(handle, 0, size, (raw) => {
      const line = cutLine(raw);
      for (const m of open_) m.after.push(line);
      while (open_.length > 0 && open_[0].after.length >= opts.context) open_.shift();
      // Past the limit: only the after-context of the last matches is still wanted.
      if (more) return open_.length > 0;
      if (raw.toLowerCase().includes(wanted)) {
        if (matches.length >= opts.limit) {
          more = true;
          return open_.length > 0;
        }
        const match: LineMatch = { line: lineNo, text: line, before: [...previous], after: [] };
        matches.push(match);
        if (opts.context > 0) open_.push(match);
      }
      if (opts.context > 0) {
        previous.push(line);
        if (previous.length > opts.context) previous.shift();
      }
      lineNo += 1;
      return true;
    });
  } finally {
    await handle.close();
  }
  return { matches, more, lines: lineNo };
}
