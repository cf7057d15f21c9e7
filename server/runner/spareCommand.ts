// What a pre-started run process (server/runner/spareRun.ts) and the scheduler that assigns it agree on. Kept
// apart from the pool so that the CLI's entry point, which checks for the spare's command word, does not
// load the pool's process-spawning code.

/** The hidden command a spare runs as: `dagu __spare-run <file for its output while it waits>`. */
export const SPARE_COMMAND = '__spare-run';

/** What a spare is told: the `dagu` arguments of its run. Its output already goes to the run's log. */
export interface SpareAssignment {
  args: string[];
}
