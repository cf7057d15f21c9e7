// Writes to an action's stdout or stderr, whether it is a file descriptor or a stream, honouring
// back-pressure so that a large response body is streamed rather than held in memory.

import { write } from 'node:fs';
import { once } from 'node:events';
import type { ActionSink } from './types';

/** Appends bytes or text to a sink; resolves when the sink has taken them. */
export type SinkWriter = (chunk: string | Uint8Array) => Promise<void>;

export function sinkWriter(sink: ActionSink): SinkWriter {
  if (typeof sink === 'number') return (chunk) => writeAllToFd(sink, toBytes(chunk));
  return async (chunk) => {
    if (chunk.length === 0) return;
    if (!sink.write(chunk)) await once(sink, 'drain');
  };
}

function toBytes(chunk: string | Uint8Array): Uint8Array {
  return typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
}

async function writeAllToFd(fd: number, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) {
    // A write to a file may take fewer bytes than asked; the rest follows.
    offset += await new Promise<number>((resolve, reject) =>
      write(fd, bytes, offset, bytes.length - offset, null, (err, written) =>
        err ? reject(err) : resolve(written),
      ),
    );
  }
}
