// What a run lane (server/cli/runLane.ts) and the scheduler's pool of lanes (runLanes.ts) say to each other
// over the pool's local socket, one JSON object per line. Kept apart from both so that the CLI's entry point,
// which checks for the lane's command word, loads nothing else.
//
//   lane → pool, first:  {"token": "<the token it was started with>", "build": "<its build>"}
//   pool → lane:         {"run": <HostedRun>}            take this run now
//   lane → pool:         {"done": "<run id>"}            that run ended (whatever its outcome)
//   pool ends the connection: take no more runs; finish those running, then exit.

import { isHostedRun, type HostedRun } from './runHostCommand';

/** The hidden command a run lane runs as: `dagu __run-lane <file for its own output> <socket> <token>`. */
export const RUN_LANE_COMMAND = '__run-lane';

export interface LaneHello {
  token: string;
  /** The build the lane runs (null when it runs from the sources, where lanes are not used). */
  build: string | null;
}

/** A line from the pool: a run to take; null for anything that is not one. */
export function parseLaneRun(line: string): HostedRun | null {
  try {
    const m = JSON.parse(line) as { run?: unknown };
    return isHostedRun(m.run) ? m.run : null;
  } catch {
    return null;
  }
}

/** A line from a lane after its hello: the ID of a run that ended; null for anything else. */
export function parseLaneDone(line: string): string | null {
  try {
    const m = JSON.parse(line) as { done?: unknown };
    return typeof m.done === 'string' && m.done !== '' ? m.done : null;
  } catch {
    return null;
  }
}

/** The lane's first line; null when it is not one. */
export function parseLaneHello(line: string): LaneHello | null {
  try {
    const m = JSON.parse(line) as { token?: unknown; build?: unknown };
    if (typeof m.token !== 'string' || (m.build !== null && typeof m.build !== 'string')) return null;
    return { token: m.token, build: m.build };
  } catch {
    return null;
  }
}
