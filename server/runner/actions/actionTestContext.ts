// Test support: an ActionContext whose stdout and stderr are collected in memory.

import { Writable } from 'node:stream';
import type { ActionContext } from './types';

/** A writable stream that keeps everything written to it. */
export class CollectingSink extends Writable {
  private readonly chunks: Buffer[] = [];
  bytes = 0;

  /** @param onWrite called with each chunk as it arrives */
  constructor(private readonly onWrite?: (chunk: Buffer) => void) {
    super();
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, done: (error?: Error | null) => void): void {
    this.onWrite?.(chunk);
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    done();
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

export interface TestContext extends ActionContext {
  out: CollectingSink;
  err: CollectingSink;
}

export function testContext(overrides: Partial<ActionContext> = {}): TestContext {
  const out = new CollectingSink();
  const err = new CollectingSink();
  return {
    with: {},
    command: null,
    script: null,
    stdout: out,
    stderr: err,
    signal: new AbortController().signal,
    smtp: null,
    workingDir: process.cwd(),
    env: {},
    ...overrides,
    out,
    err,
  };
}
