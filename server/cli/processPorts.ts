// The real clock and environment of this process, as the composition roots under server/cli hand them to the
// layers below (which never reach for them themselves).

import { systemClock } from '../core/clock';
import type { Clock } from '../core/ports';

export function processPorts(): { clock: Clock; env: NodeJS.ProcessEnv } {
  return { clock: systemClock, env: process.env };
}
