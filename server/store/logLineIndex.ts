// Where the lines of a log file start, without keeping the file: a sparse index of every STRIDE-th line's
// start, built by reading the file forward once and extended as the file grows. It lets the file store find
// any line with a short read, as the database store does with its chunks' line counts.

/** Every STRIDE-th line's start offset is kept: 1 M lines cost 4 K numbers. */
export const STRIDE = 256;
const CHUNK_BYTES = 256 * 1024;
const NEWLINE = 0x0a;

/** Reads up to `buffer.length` bytes at `position`; answers how many were read. */
export type ReadAt = (buffer: Buffer, length: number, position: number) => Promise<number>;

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

  /** @param identity what the file is (its inode): another file under the same name needs a new index */
  constructor(readonly identity: number) {}

  /** Brings the index up to `size`, after any extension already under way (one at a time). */
  extendTo(readAt: ReadAt, size: number): Promise<void> {
    const next = this.extending.then(() => this.extend(readAt, size));
    this.extending = next.catch(() => undefined);
    return next;
  }

  /** Lines in a file of `size` bytes: the complete ones and a last one still being written. */
  lineCount(size: number): number {
    return this.complete + (size > this.nextLineStart ? 1 : 0);
  }

  /** The checkpoint at or before line `line`: its offset is that line's start. */
  checkpointFor(line: number): { offset: number; line: number } {
    const k = Math.min(Math.floor(line / STRIDE), this.checkpoints.length - 1);
    return { offset: this.checkpoints[k], line: k * STRIDE };
  }

  /** Reads the bytes after `scanned` up to `size`, noting each line start. */
  private async extend(readAt: ReadAt, size: number): Promise<void> {
    const buffer = Buffer.alloc(CHUNK_BYTES);
    while (this.scanned < size) {
      const bytesRead = await readAt(buffer, Math.min(CHUNK_BYTES, size - this.scanned), this.scanned);
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

/** The indexes of the files read lately, least recently used dropped first. */
export class LineIndexCache {
  private readonly indexes = new Map<string, LineIndex>();

  constructor(private readonly max = 64) {}

  /** The index of `file` (a new one when the file was replaced or truncated), brought up to `size`. */
  async indexOf(file: string, identity: number, size: number, readAt: ReadAt): Promise<LineIndex> {
    let index = this.indexes.get(file);
    if (!index || index.identity !== identity || size < index.scanned) index = new LineIndex(identity);
    // Re-inserting keeps the map in use order.
    this.indexes.delete(file);
    this.indexes.set(file, index);
    if (this.indexes.size > this.max) this.indexes.delete(this.indexes.keys().next().value!);
    await index.extendTo(readAt, size);
    return index;
  }
}
