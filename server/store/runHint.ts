// The hints of run changes that PostgreSQL's status writes send (`dagu_runs`): the run ID, then the attempt
// and the state it entered, so that a scheduler watching the start of a run it launched need not read it.

/** What a `runs` hint names: the run, and (from the write that sent it) the attempt and its new state. */
export interface RunHint {
  runId: string;
  attempt?: number;
  state?: string;
}

/** A `runs` hint taken apart: `<run id>` or `<run id> <attempt> <state>`. */
export function parseRunHint(about: string): RunHint {
  const [runId, attempt, state] = about.split(' ');
  const n = Number(attempt);
  return attempt !== undefined && state !== undefined && Number.isSafeInteger(n) && n >= 1
    ? { runId, attempt: n, state }
    : { runId };
}
