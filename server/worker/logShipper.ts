// Ships the step logs of a run on a worker to the coordinator: every file of the attempt's local log
// directory, from the offset the coordinator holds, in chunks, while the run goes on; the rest goes with the
// run's final status (takeRest), or before it when it is more than one chunk.

import { isUtf8 } from 'node:buffer';
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger, Timers } from '../core/ports';
import { TimerLoop } from '../core/timerLoop';
import { errorText } from '../runner/statusReporter';
import type { LogBatch, LogChunk, LogReply } from '../coordinator/protocol';
import { CoordinatorError, type CoordinatorApi } from './coordinatorClient';

export interface LogShipperOptions {
  /** With `sendLogs`, the pieces of several files that a pass has to send go in one request. */
  client: Pick<CoordinatorApi, 'sendLog'> & Partial<Pick<CoordinatorApi, 'sendLogs'>>;
  workerId: string;
  runId: string;
  attempt: number;
  /** The attempt's local log directory (absolute). */
  dir: string;
  timers: Timers;
  logger: Logger;
  /** Default 500 ms. */
  intervalMs?: number;
  /** Largest chunk sent at once; default 256 KiB. */
  chunkBytes?: number;
}

export const LOG_CHUNK_BYTES = 256 * 1024;

const DEFAULT_INTERVAL_MS = 500;
/** What the coordinator accepts as a log file name (LogFileNames produces these). */
const FILE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/** The rest of a run's logs, to go with its final status (`StatusReport.logs`). */
export interface FinalLogs {
  chunks: LogBatch['chunks'];
  /**
   * Takes the coordinator's answer to them (`StatusReply.logs`; undefined from a coordinator that ignored
   * them) and ships what it did not take; true when it holds every byte written so far.
   */
  done(replies: LogReply[] | undefined): Promise<boolean>;
}

/** A piece of one file in a batch. */
interface Piece {
  name: string;
  size: number;
  offset: number;
  length: number;
  data: string;
  encoding: LogChunk['encoding'];
}

/** A piece as a request carries it. */
const chunkOf = (p: Piece): LogBatch['chunks'][number] => ({
  file: p.name,
  offset: p.offset,
  data: p.data,
  encoding: p.encoding,
});

/**
 * Remembers per file how many bytes the coordinator holds and sends the rest. The coordinator answers
 * every chunk with the offset it holds, so a lost reply or a coordinator that lost data just means sending
 * again from there. One pass runs at a time.
 */
export class LogShipper {
  private readonly offsets = new Map<string, number>();
  private readonly intervalMs: number;
  private readonly chunkBytes: number;
  private readonly loop: TimerLoop;
  private pass: Promise<boolean> = Promise.resolve(true);
  private failing = false;
  /** Set once the coordinator refused a batch (it takes one chunk a request): never tried again. */
  private batchesRefused = false;
  /** Set once the coordinator answered a status without taking the logs that went with it. */
  private inlineRefused = false;

  constructor(private readonly o: LogShipperOptions) {
    this.intervalMs = o.intervalMs ?? DEFAULT_INTERVAL_MS;
    this.chunkBytes = o.chunkBytes ?? LOG_CHUNK_BYTES;
    // shipAll() reports its own failures (it resolves false); the loop only spaces the passes.
    this.loop = new TimerLoop({
      timers: o.timers,
      pass: async () => {
        await this.flush();
        return this.intervalMs;
      },
      onError: () => this.intervalMs,
    });
  }

  /** Ships every `intervalMs` until `stop()`. */
  start(): void {
    this.loop.start(this.intervalMs);
  }

  /** No more periodic passes (a pass in flight finishes; flush() still ships). */
  stop(): void {
    void this.loop.stop();
  }

  /** Runs a full pass after the one in flight; true when the coordinator holds every byte written so far. */
  flush(): Promise<boolean> {
    this.pass = this.pass.then(() => this.shipAll());
    return this.pass;
  }

  /** Bytes of `file` the coordinator has confirmed. */
  offset(file: string): number {
    return this.offsets.get(file) ?? 0;
  }

  /**
   * For a run's final status: the rest of every log, a piece of each file, to go with the status in one
   * request; `done` takes the coordinator's answer to them. Null when nothing is left to send, or when the
   * rest does not fit in one chunk or the coordinator did not take logs with a status before: the logs are
   * then shipped first, as `flush()` ships them, and the status goes alone.
   */
  takeRest(): Promise<FinalLogs | null> {
    const rest = this.pass.then(() => this.rest());
    this.pass = rest.then(
      () => true,
      () => false,
    );
    return rest;
  }

  private async rest(): Promise<FinalLogs | null> {
    const shipped = async () => {
      await this.shipAll();
      return null;
    };
    if (this.inlineRefused) return shipped();
    const found = await this.pending();
    if (found === null) return null; // the directory cannot be listed (logged): the status goes alone
    const { names, sizes } = found;
    if (names.length === 0) return null;
    let left = 0;
    for (const name of names) left += (sizes.get(name) ?? Infinity) - this.offset(name);
    if (left > this.chunkBytes) return shipped();
    let read: { pieces: Piece[]; done: Set<string> };
    try {
      read = await this.readPieces(names, sizes);
    } catch {
      return shipped(); // a file gone or unreadable: the pass says why
    }
    const { pieces } = read;
    if (pieces.length === 0) return null;
    return {
      chunks: pieces.map(chunkOf),
      done: async (replies) => {
        if (replies === undefined || replies.length !== pieces.length) {
          // A coordinator that ignores logs in a status: they are shipped on their own from now on.
          this.inlineRefused = true;
          this.o.logger.debug('The coordinator takes no logs with a status', { run_id: this.o.runId });
          return this.flush();
        }
        const complete = this.applyReplies(pieces, replies, read.done);
        // A piece refused (the coordinator asked for another offset) or cut short: the rest goes as usual.
        return pieces.every((p) => complete.has(p.name)) || this.flush();
      },
    };
  }

  /**
   * The files of the log directory that have something to send (bytes beyond the held offset, or an empty
   * file not announced yet), with the sizes a stat found; null when the directory cannot be listed.
   */
  private async pending(): Promise<{ names: string[]; sizes: Map<string, number> } | null> {
    let names: string[];
    try {
      const entries = await readdir(this.o.dir, { withFileTypes: true });
      names = entries
        .filter((e) => e.isFile() && FILE_NAME.test(e.name))
        .map((e) => e.name)
        .sort();
    } catch (err) {
      // No step has started yet.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { names: [], sizes: new Map() };
      this.o.logger.warn('Cannot list the run log directory', { dir: this.o.dir, error: errorText(err) });
      return null;
    }
    // A stat by path per file tells which have something to send; only those are opened. Most passes of a
    // quiet run find nothing new, and opening, stating and closing every file each time was most of their
    // cost (a worker runs many runs at once, each with a pass every interval).
    const sizes = new Map<string, number>();
    await Promise.all(
      names.map(async (name) => {
        try {
          sizes.set(name, (await stat(join(this.o.dir, name))).size);
        } catch {
          /* gone since the listing, or unreadable: opening it says why */
        }
      }),
    );
    names = names.filter((name) => {
      const size = sizes.get(name);
      if (size === undefined) return true;
      return size === 0 ? !this.offsets.has(name) : this.offset(name) < size;
    });
    return { names, sizes };
  }

  private async shipAll(): Promise<boolean> {
    const found = await this.pending();
    if (found === null) return false;
    const { names, sizes } = found;
    if (names.length === 0) return true;
    let complete = true;
    let shipped: Set<string>;
    try {
      shipped = await this.shipBatch(names, sizes);
    } catch (err) {
      if (!this.failing)
        this.o.logger.warn('Failed to ship run logs to the coordinator; will retry', {
          run_id: this.o.runId,
          file: names.join(', '),
          error: errorText(err),
        });
      this.failing = true;
      return false;
    }
    for (const name of names) {
      if (shipped.has(name)) continue;
      try {
        if (!(await this.shipFile(name))) complete = false;
      } catch (err) {
        // Network and coordinator errors end the pass; the next one starts again from the held offsets.
        if (!this.failing)
          this.o.logger.warn('Failed to ship run logs to the coordinator; will retry', {
            run_id: this.o.runId,
            file: name,
            error: errorText(err),
          });
        this.failing = true;
        return false;
      }
    }
    if (this.failing) this.o.logger.info('Run logs reach the coordinator again', { run_id: this.o.runId });
    this.failing = false;
    return complete;
  }

  /**
   * When two or more files have something to send (a run's end: its own log and each step's), sends the
   * first piece of each in one request, as much as one chunk holds in all. Answers the files it shipped
   * completely; the others (and every file when batching is off) are shipped one chunk a request.
   */
  private async shipBatch(names: string[], sizes: ReadonlyMap<string, number>): Promise<Set<string>> {
    const send = this.o.client.sendLogs?.bind(this.o.client);
    if (!send || this.batchesRefused || names.length < 2) return new Set();
    const { pieces, done } = await this.readPieces(names, sizes);
    if (pieces.length < 2) return done;
    let replies: LogReply[];
    try {
      replies = await send(this.o.runId, {
        worker_id: this.o.workerId,
        attempt: this.o.attempt,
        chunks: pieces.map(chunkOf),
      });
    } catch (err) {
      if (!(err instanceof CoordinatorError) || err.status !== 400) throw err;
      this.batchesRefused = true;
      this.o.logger.debug('The coordinator takes one log chunk a request', { run_id: this.o.runId });
      return done;
    }
    return this.applyReplies(pieces, replies, done);
  }

  /**
   * The next piece of each file, as much as one chunk holds in all; `done` has the files with nothing new
   * since the coordinator confirmed them all.
   */
  private async readPieces(
    names: string[],
    sizes: ReadonlyMap<string, number>,
  ): Promise<{ pieces: Piece[]; done: Set<string> }> {
    const done = new Set<string>();
    const pieces: Piece[] = [];
    let room = this.chunkBytes;
    for (const name of names) {
      if (room <= 0) break;
      // An empty file not announced yet needs no reading: it is announced as empty (what it holds by the
      // time of a later pass is sent then).
      if (sizes.get(name) === 0 && !this.offsets.has(name)) {
        pieces.push({ name, size: 0, offset: 0, length: 0, data: '', encoding: 'utf8' });
        continue;
      }
      const fh = await open(join(this.o.dir, name), 'r');
      try {
        const size = (await fh.stat()).size;
        const offset = this.offset(name);
        if (size === 0 && !this.offsets.has(name)) {
          pieces.push({ name, size, offset: 0, length: 0, data: '', encoding: 'utf8' });
          continue;
        }
        if (offset >= size) {
          done.add(name); // nothing new since the coordinator confirmed it all
          continue;
        }
        const want = Math.min(room, size - offset);
        const buf = Buffer.alloc(want);
        const { bytesRead } = await fh.read(buf, 0, want, offset);
        if (bytesRead === 0) continue;
        const { data, encoding, length } = encodeChunk(buf.subarray(0, bytesRead));
        pieces.push({ name, size, offset, length, data, encoding });
        room -= length;
      } finally {
        await fh.close();
      }
    }
    return { pieces, done };
  }

  /** Takes the coordinator's answer to each piece; `done` gains the files it now holds completely. */
  private applyReplies(pieces: Piece[], replies: LogReply[], done: Set<string>): Set<string> {
    pieces.forEach((p, i) => {
      const reply = replies[i];
      if (p.length === 0 && p.size === 0) {
        if (reply.accepted) {
          this.offsets.set(p.name, reply.next_offset);
          done.add(p.name);
        }
        return;
      }
      // As one step of shipFile: taken, or the offset the coordinator asks for; shipFile goes on from there.
      if (reply.accepted && reply.next_offset === p.offset + p.length) {
        this.offsets.set(p.name, p.offset + p.length);
        if (p.offset + p.length >= p.size) done.add(p.name);
      } else if (reply.next_offset !== p.offset && reply.next_offset >= 0) {
        this.offsets.set(p.name, reply.next_offset);
      }
    });
    return done;
  }

  /** Sends what the coordinator lacks of one file; false when it refused a chunk (tried again next pass). */
  private async shipFile(name: string): Promise<boolean> {
    const fh = await open(join(this.o.dir, name), 'r');
    try {
      const size = (await fh.stat()).size;
      // An empty file is announced too: the step's status names it, so the coordinator should have it.
      if (size === 0 && !this.offsets.has(name)) {
        const reply = await this.o.client.sendLog(this.o.runId, this.chunk(name, 0, '', 'utf8'));
        if (reply.accepted) this.offsets.set(name, reply.next_offset);
        return reply.accepted;
      }
      // A coordinator that keeps asking for other offsets must not keep this pass going forever.
      let budget = Math.ceil(size / this.chunkBytes) + 8;
      let offset = this.offset(name);
      while (offset < size && budget-- > 0) {
        const want = Math.min(this.chunkBytes, size - offset);
        const buf = Buffer.alloc(want);
        const { bytesRead } = await fh.read(buf, 0, want, offset);
        if (bytesRead === 0) break;
        const { data, encoding, length } = encodeChunk(buf.subarray(0, bytesRead));
        const reply = await this.o.client.sendLog(this.o.runId, this.chunk(name, offset, data, encoding));
        if (reply.accepted && reply.next_offset === offset + length) {
          offset += length;
        } else if (reply.next_offset !== offset && reply.next_offset >= 0) {
          this.o.logger.debug('Coordinator asked for the log from another offset', {
            run_id: this.o.runId,
            file: name,
            sent: offset,
            next_offset: reply.next_offset,
          });
          offset = reply.next_offset;
        } else {
          this.offsets.set(name, offset);
          return false;
        }
        this.offsets.set(name, offset);
      }
      return offset >= size;
    } finally {
      await fh.close();
    }
  }

  private chunk(file: string, offset: number, data: string, encoding: LogChunk['encoding']): LogChunk {
    return { worker_id: this.o.workerId, attempt: this.o.attempt, file, offset, data, encoding };
  }
}

/**
 * UTF-8 text when the bytes are valid UTF-8, else base64. A character cut by the chunk end is left for the
 * next chunk, so ordinary text never turns into base64 just because of where a chunk ended.
 */
export function encodeChunk(buf: Buffer): { data: string; encoding: 'utf8' | 'base64'; length: number } {
  const end = utf8CompleteEnd(buf);
  const text = end > 0 ? buf.subarray(0, end) : buf;
  if (isUtf8(text)) return { data: text.toString('utf8'), encoding: 'utf8', length: text.length };
  return { data: buf.toString('base64'), encoding: 'base64', length: buf.length };
}

/** Length of `buf` without a trailing incomplete multi-byte sequence. */
function utf8CompleteEnd(buf: Buffer): number {
  for (let i = buf.length - 1; i >= 0 && i >= buf.length - 4; i--) {
    const b = buf[i];
    if ((b & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return buf.length - i < need ? i : buf.length;
  }
  return buf.length;
}
