// The waiting side of a pre-started run process (see server/runner/spareRun.ts): load what `dagu start`
// needs, then read one assignment from stdin. EOF without one means the scheduler let it go or went away:
// remove the file its output would have gone to, and exit quietly.

import { unlinkSync } from 'node:fs';
import type { SpareAssignment } from '../runner/spareCommand';

export async function waitForAssignment(ownLog: string | undefined): Promise<SpareAssignment | null> {
  await import('./commands/start');
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
