// The waiting side of a pre-started run process (see server/runner/spareRun.ts): read one assignment from
// stdin. EOF without one means the scheduler let it go or went away: remove the file its output would have
// gone to, and exit quietly.
//
// By the time this runs, Node has started and bin/dagu has compiled the bundle from `dagu start`'s code
// cache: most of what a spare saves a run. `start`'s own modules are initialised when the run comes (the
// command loads them as it always does), a few milliseconds, rather than before the wait: initialised early
// they kept about 1 MB more in every waiting spare, which counts in the scheduler's memory.

import { unlinkSync } from 'node:fs';
import type { SpareAssignment } from '../runner/spareCommand';

export async function waitForAssignment(ownLog: string | undefined): Promise<SpareAssignment | null> {
  let text = '';
  process.stdin.setEncoding('utf8');
  for await (const chunk of process.stdin) {
    text += chunk as string;
    if (text.includes('\n')) break;
  }
  const line = text.split('\n')[0].trim();
  if (line === '') {
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
