// Output of the short commands, written straight to file descriptors 1 and 2. The first use of
// `process.stdout` or `process.stderr` makes Node load its stream classes (and, when the descriptor is a
// pipe, its net module): about 4 ms of a command such as `dagu validate`, whose whole work is a few tens of
// milliseconds. The writes are synchronous, as Node's own are for files and (on Linux) pipes, so the order
// of lines written here and through `process.stdout` (commander's help, for one) stays the order of calls.

import { writeSync } from 'node:fs';

/** The descriptors whose output goes through Node's stream from now on (see writeAll). */
const viaStream = new Set<1 | 2>();

/**
 * Writes all of `text` to `fd`; a descriptor that would block (EAGAIN) gets the rest through Node's stream, and
 * one whose reader closed it (EPIPE) gets nothing more. Once a stream holds output for a descriptor, everything
 * after it goes through the stream too, so that a later write cannot overtake what it still holds.
 */
function writeAll(fd: 1 | 2, text: string): void {
  const stream = () => (fd === 1 ? process.stdout : process.stderr);
  const bytes = Buffer.from(text, 'utf8');
  if (viaStream.has(fd)) {
    stream().write(bytes);
    return;
  }
  let done = 0;
  try {
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // The reader went away (`dagu validate | head -1`): the rest has nobody to read it.
    if (code === 'EPIPE') return;
    if (code !== 'EAGAIN') throw err;
    viaStream.add(fd);
    stream().write(bytes.subarray(done));
  }
}

/** Writes to standard output. */
export function printOut(text: string): void {
  writeAll(1, text);
}

/** Writes to standard error. */
export function printErr(text: string): void {
  writeAll(2, text);
}
