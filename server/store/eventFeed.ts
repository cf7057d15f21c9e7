// Reads the event log forward, one call after another: each call returns only what was appended since the
// previous one. The console polls every couple of seconds, and the log holds every `dag.run.*` event of the
// run history, so re-reading it (which EventLog.list does: every line of each day from `afterId`'s day on)
// would cost tens of milliseconds a request. The file feed remembers how far it read each day file and
// reads only the bytes after that; lines of unwanted types are skipped without being parsed.

import { promises as fs } from 'node:fs';
import path from 'node:path';
import { MAX_EVENT_LIMIT, parseEventRecord } from './eventRecord';
import { readdirOrEmpty } from './fsutil';
import type { EventLog, EventRecord } from './types';

/** The event log read forward. */
export interface EventFeed {
  /**
   * The events appended since the previous call (on the first call, every event) whose type `wanted`
   * accepts. A file rewritten from the start is read again, so a consumer may see an event twice.
   */
  read(wanted: (type: string) => boolean): Promise<EventRecord[]>;
}

/** A feed over any EventLog through `list` (for the in-memory log of tests; the file log has its own). */
export class LogEventFeed implements EventFeed {
  private lastId: string | undefined;

  constructor(private readonly log: Pick<EventLog, 'list'>) {}

  async read(wanted: (type: string) => boolean): Promise<EventRecord[]> {
    const out: EventRecord[] = [];
    for (;;) {
      const page = await this.log.list({ afterId: this.lastId, limit: MAX_EVENT_LIMIT });
      if (page.length === 0) return out;
      this.lastId = page[page.length - 1].id;
      out.push(...page.filter((e) => wanted(e.type)));
      if (page.length < MAX_EVENT_LIMIT) return out;
    }
  }
}

const DAY_FILE = /^\d{8}\.jsonl$/;
// JSON.stringify of a record puts `id` then `type` first (see makeEventRecord), so the type can be read off
// the start of a line without parsing the rest.
const LINE_TYPE = /^\{"id":"[^"\\]{1,40}","type":"([^"\\]{1,128})"/;
const RECORD_START = '{"id":"';
/** The newest few day files are read again on every call; older ones are complete once read. */
const OPEN_DAYS = 3;
const CHUNK_BYTES = 1024 * 1024;

/** A feed over `DAGU_HOME/data/events/<YYYYMMDD>.jsonl` (the layout of FileEventLog). */
export class FileEventFeed implements EventFeed {
  private readonly dir: string;
  /** Bytes of each day file already consumed (always up to the end of a whole line). */
  private readonly offsets = new Map<string, number>();

  /** `from`: the offsets a previous feed had reached (`position()`), to read on from there. */
  constructor(dataDir: string, from: Readonly<Record<string, number>> = {}) {
    this.dir = path.join(path.resolve(dataDir), 'events');
    for (const [name, offset] of Object.entries(from))
      if (DAY_FILE.test(name) && Number.isSafeInteger(offset) && offset >= 0) this.offsets.set(name, offset);
  }

  /** How far each day file has been read: a later feed built with it reads only what came after. */
  position(): Record<string, number> {
    return Object.fromEntries([...this.offsets.entries()].sort(([a], [b]) => (a < b ? -1 : 1)));
  }

  async read(wanted: (type: string) => boolean): Promise<EventRecord[]> {
    const names = (await readdirOrEmpty(this.dir)).filter((n) => DAY_FILE.test(n)).sort();
    // Events are filed by their ID's day, so appends only reach the latest days; a writer whose clock runs
    // behind, or that wrote just before midnight, may still add to the day before.
    const open = new Set(names.slice(-OPEN_DAYS));
    const out: EventRecord[] = [];
    for (const name of names) {
      if (this.offsets.has(name) && !open.has(name)) continue;
      await this.readDayFile(name, wanted, out);
    }
    return out;
  }

  private async readDayFile(name: string, wanted: (type: string) => boolean, out: EventRecord[]) {
    const file = path.join(this.dir, name);
    let handle;
    try {
      handle = await fs.open(file, 'r');
    } catch {
      return; // removed since the listing
    }
    try {
      const { size } = await handle.stat();
      let offset = this.offsets.get(name) ?? 0;
      // Shorter than what was read: the file was replaced; read it again from the start.
      if (size < offset) offset = 0;
      let carry = Buffer.alloc(0);
      let position = offset;
      while (position < size) {
        const chunk = Buffer.alloc(Math.min(CHUNK_BYTES, size - position));
        const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
        if (bytesRead === 0) break;
        position += bytesRead;
        const data = carry.length > 0 ? Buffer.concat([carry, chunk.subarray(0, bytesRead)]) : chunk;
        const end = data.lastIndexOf(0x0a) + 1;
        // Only whole lines are consumed: a line still being written is read in full next time.
        for (const line of data.subarray(0, end).toString('utf8').split('\n')) {
          // Blank lines: a failed append cleared by its writer (see FileEventLog).
          if (line.trim() !== '') collect(line, wanted, out);
        }
        offset += end;
        carry = data.subarray(end);
      }
      this.offsets.set(name, offset);
    } finally {
      await handle.close();
    }
  }
}

function collect(line: string, wanted: (type: string) => boolean, out: EventRecord[]) {
  const type = LINE_TYPE.exec(line)?.[1];
  if (type !== undefined) {
    if (!wanted(type)) return;
    const record = parseEventRecord(line);
    if (record) {
      out.push(record);
      return;
    }
  }
  // Not a whole record: two records glued by a torn write on NFS. Keep any whole record inside it.
  for (let at = line.indexOf(RECORD_START, 1); at > 0; at = line.indexOf(RECORD_START, at + 1)) {
    const record = parseEventRecord(line.slice(at));
    if (record && wanted(record.type)) {
      out.push(record);
      return;
    }
  }
}
