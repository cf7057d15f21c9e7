// The waiting side of a pre-started run process (see server/runner/spareRun.ts): connect back to the
// scheduler's socket, say the token it was started with, and read one assignment. The connection closing
// without one (or no scheduler to connect to) means the scheduler let it go or went away: remove the file its
// output would have gone to, and exit quietly.
//
// By the time this runs, Node has started and bin/dagu has compiled the bundle from `dagu start`'s code
// cache: most of what a spare saves a run. `start`'s own modules are initialised when the run comes (the
// command loads them as it always does), a few milliseconds, rather than before the wait: initialised early
// they kept about 1 MB more in every waiting spare, which counts in the scheduler's memory.

import { unlinkSync } from 'node:fs';
import { connect } from 'node:net';
import type { SpareAssignment } from '../runner/spareCommand';

export async function waitForAssignment(
  ownLog: string | undefined,
  socketPath: string | undefined,
  token: string | undefined,
): Promise<SpareAssignment | null> {
  if (!socketPath || !token) throw new Error('a pre-started run process needs its socket and token');
  const text = await new Promise<string>((resolve) => {
    let got = '';
    const socket = connect(socketPath, () => socket.write(`${token}\n`));
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      got += d;
      if (got.includes('\n')) {
        socket.destroy();
        resolve(got);
      }
    });
    // Refused, reset or closed without a line: the scheduler let it go or is gone.
    socket.on('error', () => resolve(got));
    socket.on('close', () => resolve(got));
  });
  const line = text.split('\n')[0].trim();
  if (line === '' || !text.includes('\n')) {
    // Gone already when the scheduler made it the run's process log and then let it go (a closed fence).
    if (ownLog) {
      try {
        unlinkSync(ownLog);
      } catch {
        /* gone already */
      }
    }
    return null;
  }
  const a = JSON.parse(line) as SpareAssignment;
  if (!Array.isArray(a.args) || !a.args.every((x) => typeof x === 'string')) {
    throw new Error('malformed spare assignment');
  }
  return a;
}
