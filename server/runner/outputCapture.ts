// What a step's `output:` receives: its stdout of one execution, trimmed, up to `max_output_size` bytes
// (Dagu fails the step beyond that, it does not cut the value), and the writable an in-process action
// writes its stdout into (log file, `stdout:` file, capture).

import { Writable } from 'node:stream';
import * as files from '../store/fileCalls';
import { goTrimSpace } from '../core/goTrimSpace';
import type { SecretMask } from './secretMask';

/** Dagu's default `max_output_size`: 1 MiB. */
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;

/** Collects stdout chunks up to a byte limit; going over the limit is remembered, the excess dropped. */
export class OutputCapture {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  exceeded = false;

  constructor(readonly maxBytes: number) {}

  push(chunk: Buffer): void {
    if (this.exceeded) return;
    if (this.size + chunk.length > this.maxBytes) {
      this.exceeded = true;
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
  }

  /** The captured text with leading and trailing white space removed, as Dagu trims it (Go's TrimSpace). */
  value(): string {
    return goTrimSpace(Buffer.concat(this.chunks).toString('utf8'));
  }

  /** The step's error when the limit was passed, else null. */
  error(): string | null {
    return this.exceeded
      ? `failed to capture output: output exceeded maximum size limit of ${this.maxBytes} bytes`
      : null;
  }
}

/** A stream that writes every chunk to each descriptor in order and hands it to `capture`. */
export function teeSink(
  fds: readonly number[],
  capture: OutputCapture | null,
  mask: SecretMask | null = null,
): Writable {
  // The capture gets the output as written (a step's `output:` variable holds the real value, as in Dagu); the
  // files get it masked.
  const masking = mask && !mask.empty ? mask.stream() : null;
  const writeOut = (buf: Buffer): Promise<unknown> =>
    buf.length === 0 ? Promise.resolve() : Promise.all(fds.map((fd) => files.writeAll(fd, buf)));
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      capture?.push(buf);
      writeOut(masking ? masking.push(buf) : buf).then(() => done(), done);
    },
    final(done) {
      if (!masking) return done();
      writeOut(masking.end()).then(() => done(), done);
    },
  });
}

/** At most the last `maxBytes` of a file from `offset` on, as text (a stderr tail for an error message). */
export async function readTail(fd: number, offset: number, maxBytes: number): Promise<string> {
  const size = (await files.fstat(fd)).size;
  const start = Math.max(offset, size - maxBytes);
  if (size <= start) return '';
  const buf = Buffer.alloc(size - start);
  const n = await files.readAt(fd, buf, start);
  return buf.subarray(0, n).toString('utf8');
}
