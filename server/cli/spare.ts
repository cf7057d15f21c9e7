// The waiting side of a pre-started run process (see server/runner/spareRun.ts): load what `dagu start`
// needs, then read one assignment from stdin. EOF without one means the scheduler went away: exit quietly.

import { openSync, writeSync } from 'node:fs';
import type { SpareAssignment } from '../runner/spareCommand';
import { setLogFd } from '../log/createLogger';

export async function waitForAssignment(): Promise<SpareAssignment | null> {
  await import('./commands/start');
  let text = '';
  process.stdin.setEncoding('utf8');
  for await (const chunk of process.stdin) {
    text += chunk as string;
    if (text.includes('\n')) break;
  }
  const line = text.split('\n')[0].trim();
  if (line === '') return null;
  const a = JSON.parse(line) as SpareAssignment;
  if (!Array.isArray(a.args) || typeof a.log !== 'string') throw new Error('malformed spare assignment');
  return a;
}

/** Sends this process's own output (logger, stdout, stderr) to the run's process log, as a direct spawn would. */
export function redirectOutput(file: string): void {
  const fd = openSync(file, 'a');
  setLogFd(fd);
  const write = (chunk: unknown, ...rest: unknown[]) => {
    if (typeof chunk === 'string') writeSync(fd, chunk);
    else writeSync(fd, chunk as Uint8Array);
    const cb = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    cb?.();
    return true;
  };
  process.stdout.write = write as typeof process.stdout.write;
  process.stderr.write = write as typeof process.stderr.write;
}
