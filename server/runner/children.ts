// How many child processes this process supervises right now: step shells and local sub-DAG runs. While
// there are none, a one-shot run process has nothing to react to promptly (no step to signal, no step
// timeout), so it lets its file calls block (see store/fileCalls.ts and the `start` command).

let alive = 0;

/** Counts a child from now until `exited` settles. */
export function superviseChild(exited: Promise<unknown>): void {
  alive += 1;
  const done = () => {
    alive -= 1;
  };
  exited.then(done, done);
}

/** Children spawned and not yet gone. */
export function supervisedChildren(): number {
  return alive;
}
