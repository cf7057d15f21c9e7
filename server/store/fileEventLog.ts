// EventLog on the shared data directory: append-only JSON lines in `data/events/<YYYYMMDD>.jsonl`, one file
// per UTC day of the event ID's time. Each event is one O_APPEND write of one line under 4 KiB, so local
// writers never interleave. On NFS, O_APPEND is emulated by the client and two hosts appending in the same
// instant can overwrite each other's line; events are infrequent (failovers, holds), and a damaged line is
// skipped and reported rather than breaking the log.

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
    const fd = await this.openForAppend(file);
    try {
      const buffer = Buffer.from(line);
      // One write call: a retry loop here could interleave the rest of the line with another writer's.
      const bytesWritten = await fs.writeOnce(fd, buffer);
      if (bytesWritten !== buffer.length) {
        throw new Error(`short write to ${file}: ${bytesWritten} of ${buffer.length} bytes`);
      }
      if (opts.durable ?? true) await fs.fsync(fd);
    } finally {
      await fs.close(fd);
    }
    return record;
  }

  // The folder exists but for the very first event: opening first saves a mkdir on every append.
  private async openForAppend(file: string): Promise<number> {
    try {
      return await fs.open(file, 'a', 0o644);
    } catch (err) {
      if (errorCode(err) !== 'ENOENT') throw err;
      await ensureDir(this.eventsDir);
      return fs.open(file, 'a', 0o644);
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
      if (lines[i] === '') continue;
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

function dayOfId(id: string): string {
  return isoTime(Number(id.slice(0, 13)))
    .slice(0, 10)
    .replaceAll('-', '');
}
