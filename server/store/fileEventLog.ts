// EventLog on the shared data directory: append-only JSON lines in `data/events/<YYYYMMDD>.jsonl`, one file
// per UTC day of the event ID's time. Each event is one O_APPEND write of one line under 4 KiB, so local
// writers never interleave. On NFS, O_APPEND is emulated by the client and two hosts appending in the same
// instant can overwrite each other's line; events are infrequent (failovers, holds), and a damaged line is
// skipped and reported rather than breaking the log.
//
// A write that fails part-way (a full disk) leaves no torn line: its writer overwrites the part written, in
// place, with blanks ended by a newline, which readers skip. Truncating it away instead could cut a line
// another process appended meanwhile. Should even that fail, the next append finds the file not ending in a
// newline and starts its line with one, so that its event is never glued onto the fragment.

import path from 'node:path';
import type { Clock } from '../core/ports';
import { onceReporter } from './corruptReporter';
import * as fs from './fileCalls';
import { InvalidCursorError } from './errors';
import {
  EVENT_ID_PATTERN,
  EventIdGenerator,
  clampEventLimit,
  compareEventIds,
  eventMatches,
  makeEventRecord,
  parseEventRecord,
} from './eventRecord';
import type { CorruptFileReport } from './fsutil';
import { ensureDir, errorCode, readTextFile, readdirOrEmpty } from './fsutil';
import type { AppendOptions, EventLog, EventRecord } from './types';
import { isoTime } from '../core/isoTime';

/** Options of FileEventLog. */
export interface FileEventLogOptions {
  /** `DAGU_HOME/data`. */
  dataDir: string;
  /** Stamps event IDs; the composition root passes the real clock. */
  clock: Clock;
  /** Told once about each torn or corrupt line that reads skip; for the log. */
  onCorrupt?: (report: CorruptFileReport) => void;
}

const DAY_FILE_PATTERN = /^(\d{8})\.jsonl$/;
// JSON.stringify puts `id` first, and inside a string value a quote is always escaped, so this marks the
// start of a record wherever two records were glued together by a torn write.
const RECORD_START = '{"id":"';

/** EventLog backed by daily JSON-lines files under `DAGU_HOME/data/events`. */
export class FileEventLog implements EventLog {
  private readonly eventsDir: string;
  private readonly ids: EventIdGenerator;
  private readonly report: (report: CorruptFileReport) => void;

  constructor(opts: FileEventLogOptions) {
    this.eventsDir = path.join(path.resolve(opts.dataDir), 'events');
    this.ids = new EventIdGenerator(opts.clock);
    this.report = onceReporter(opts.onCorrupt);
  }

  async append(type: string, data: Record<string, unknown>, opts: AppendOptions = {}): Promise<EventRecord> {
    const { record, line } = makeEventRecord(this.ids, type, data);
    const file = path.join(this.eventsDir, `${dayOfId(record.id)}.jsonl`);
    const durable = opts.durable ?? true;
    const fd = await this.openForAppend(file);
    try {
      const start = (await fs.fstat(fd)).size;
      const buffer = Buffer.from((await endsInTornLine(fd, start)) ? `\n${line}` : line);
      let written = 0;
      try {
        // One write call: a retry loop here could interleave the rest of the line with another writer's.
        written = await fs.writeOnce(fd, buffer);
        if (written !== buffer.length) {
          throw new Error(`short write to ${file}: ${written} of ${buffer.length} bytes`);
        }
        if (durable) await fs.fsync(fd);
      } catch (err) {
        // Not written as far as the caller knows (a line whose fsync failed included): no trace left.
        await blankOut(file, start, buffer.subarray(0, written), durable).catch(() => undefined);
        throw err;
      }
    } finally {
      await fs.close(fd);
    }
    return record;
  }

  // The folder exists but for the very first event: opening first saves a mkdir on every append.
  private async openForAppend(file: string): Promise<number> {
    try {
      return await fs.open(file, 'a+', 0o644);
    } catch (err) {
      if (errorCode(err) !== 'ENOENT') throw err;
      await ensureDir(this.eventsDir);
      return fs.open(file, 'a+', 0o644);
    }
  }

  async list(query: { afterId?: string; types?: string[]; limit?: number }): Promise<EventRecord[]> {
    if (query.afterId !== undefined && !EVENT_ID_PATTERN.test(query.afterId)) {
      throw new InvalidCursorError(query.afterId, 'event ID');
    }
    const limit = clampEventLimit(query.limit);
    const firstDay = query.afterId === undefined ? '' : dayOfId(query.afterId);
    const days = (await readdirOrEmpty(this.eventsDir))
      .map((name) => DAY_FILE_PATTERN.exec(name)?.[1])
      .filter((day): day is string => day !== undefined && day >= firstDay)
      .sort();
    const out: EventRecord[] = [];
    // A day file holds exactly the IDs of that day, so sorting within each file sorts the whole log.
    for (const day of days) {
      const records = (await this.readDay(day)).filter((record) => eventMatches(record, query));
      out.push(...records.sort(compareEventIds).slice(0, limit - out.length));
      if (out.length >= limit) break;
    }
    return out;
  }

  private async readDay(day: string): Promise<EventRecord[]> {
    const file = path.join(this.eventsDir, `${day}.jsonl`);
    let text: string;
    try {
      text = await readTextFile(file);
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return [];
      throw err;
    }
    const records: EventRecord[] = [];
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      // Blank: a failed write cleared by its writer (or the newline the next append starts with after one).
      if (lines[i].trim() === '') continue;
      const record = parseEventRecord(lines[i]) ?? this.salvage(lines[i], file, i + 1);
      if (record && dayOfId(record.id) === day) records.push(record);
    }
    return records;
  }

  /** A line that does not parse: report it, and recover a whole record glued after a torn one. */
  private salvage(line: string, file: string, lineNumber: number): EventRecord | null {
    this.report({ path: file, error: `line ${lineNumber} is not a whole event record (torn write?)` });
    for (let at = line.indexOf(RECORD_START, 1); at > 0; at = line.indexOf(RECORD_START, at + 1)) {
      const record = parseEventRecord(line.slice(at));
      if (record) return record;
    }
    return null;
  }
}

const NEWLINE = 0x0a;
/** How far back from the end of the file a failed write's fragment is looked for (other lines may follow). */
const SEARCH_BYTES = 64 * 1024;

/** Whether a file of `size` bytes open on `fd` ends in a line without its newline (a torn write). */
async function endsInTornLine(fd: number, size: number): Promise<boolean> {
  if (size === 0) return false;
  const last = Buffer.alloc(1);
  return (await fs.readAt(fd, last, size - 1)) === 1 && last[0] !== NEWLINE;
}

/**
 * Overwrites `fragment`, the part of a failed append that reached the file at or after `from`, with blanks
 * ended by a newline. Only where it is found exactly once, followed by the end of the file or the start of
 * another line (lines others appended after it): a record's ID makes it unique. The bytes are there already,
 * so no space is needed, and nothing outside them is touched.
 */
async function blankOut(file: string, from: number, fragment: Uint8Array, durable: boolean): Promise<void> {
  // Nothing written, or only the newline that ends a torn line before it.
  if (fragment.length === 0 || (fragment.length === 1 && fragment[0] === NEWLINE)) return;
  // Not the append descriptor: on Linux its writes go to the end of the file, whatever the position.
  const fd = await fs.open(file, 'r+');
  try {
    const size = (await fs.fstat(fd)).size;
    const base = Math.max(from, size - SEARCH_BYTES);
    if (size - base < fragment.length) return; // replaced or truncated meanwhile: not ours to touch
    const tail = Buffer.alloc(size - base);
    const read = await fs.readAt(fd, tail, base);
    const seen = tail.subarray(0, read);
    const found: number[] = [];
    for (let at = seen.indexOf(fragment); at !== -1; at = seen.indexOf(fragment, at + 1)) {
      const next = at + fragment.length;
      if (next === seen.length || seen[next] === NEWLINE || seen[next] === RECORD_START.charCodeAt(0)) {
        found.push(at);
      }
    }
    if (found.length !== 1) return;
    // A newline it began with (after a torn line) stays: that line stays apart from what follows.
    const blank = Buffer.alloc(fragment.length, ' ');
    if (fragment[0] === NEWLINE) blank[0] = NEWLINE;
    blank[blank.length - 1] = NEWLINE;
    if ((await fs.writeAt(fd, blank, base + found[0])) === blank.length && durable) await fs.fsync(fd);
  } finally {
    await fs.close(fd);
  }
}

function dayOfId(id: string): string {
  return isoTime(Number(id.slice(0, 13)))
    .slice(0, 10)
    .replaceAll('-', '');
}
