// Whether a DAG has runs that renaming or deleting it would strand: the one rule the console's editor and
// `dagu dags push --delete` both apply before they remove a DAG's definition.

import type { RunStore } from '../store/types';

/** Runs of `name` that are queued or running: renaming or deleting the DAG under them would strand them. */
export async function activeDagRuns(runs: Pick<RunStore, 'listActive'>, name: string): Promise<string[]> {
  return (await runs.listActive()).filter((r) => r.dag_name === name).map((r) => r.run_id);
}

/** Why `what` is refused for DAG `name` while `active` (not empty) are queued or running. */
export function activeDagRunsRefusal(name: string, what: 'rename' | 'delete', active: string[]): string {
  const shown = active.slice(0, 5).join(', ') + (active.length > 5 ? `, and ${active.length - 5} more` : '');
  return `cannot ${what} DAG ${JSON.stringify(name)} while it has queued or running runs (${shown}); stop or dequeue them first`;
}
