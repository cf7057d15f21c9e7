// The path of `dagu retry --sub-run-id`: from the root run down to the sub-run, the call step of each level
// that started the next run, checked as Dagu's ResolveRetryPath checks it (a child of a repeating call step has
// no reproducible place and is refused; so is a run that is not under the root).

import type { RetryHop, RetryPath } from '../core/retryPath';
import type { RunStatus } from '../core/types';
import type { RunStore } from '../store/types';

/** The deepest chain of call steps followed up from a sub-run to its root. */
const MAX_NESTING = 100;

export type ResolvedRetryPath =
  { ok: true; path: RetryPath; target: RunStatus } | { ok: false; error: string };

export async function resolveRetryPath(
  store: Pick<RunStore, 'readStatus'>,
  root: RunStatus,
  targetRunId: string,
  step: string,
  downstream: boolean,
): Promise<ResolvedRetryPath> {
  const read = async (id: string): Promise<RunStatus | string> => {
    if (id === root.run_id) return root;
    const r = await store.readStatus(id);
    if (r.kind === 'ok') return r.status;
    return r.kind === 'missing'
      ? `no run has the ID ${id}`
      : `the status of run ${id} is unreadable: ${r.error}`;
  };
  const target = await read(targetRunId);
  if (typeof target === 'string') return { ok: false, error: `find child DAG run ${targetRunId}: ${target}` };
  if (target.run_id === root.run_id)
    return { ok: false, error: `retry path is invalid: target ${targetRunId} is not a child DAG run` };
  if (!target.steps.some((s) => s.name === step))
    return { ok: false, error: `retry step not found: ${step} in DAG run ${targetRunId}` };

  const reversed: RetryHop[] = [];
  let current = target;
  for (let depth = 0; current.run_id !== root.run_id; depth++) {
    const parentRef = current.parent;
    if (!parentRef || depth >= MAX_NESTING)
      return {
        ok: false,
        error: `retry path is invalid: DAG run ${current.run_id} is not under run ${root.run_id}`,
      };
    const parent = await read(parentRef.run_id);
    if (typeof parent === 'string') return { ok: false, error: `retry path is invalid: ${parent}` };
    const node = parent.steps.find((s) => (s.sub_runs ?? []).some((c) => c.run_id === current.run_id));
    if (!node)
      return {
        ok: false,
        error: `retry path is invalid: parent DAG run ${parent.run_id} does not reference child ${current.run_id}`,
      };
    if ((node.repeat_count ?? 0) > 0)
      return {
        ok: false,
        error:
          `child DAG runs of a repeating step cannot be retried individually: step ${node.name} in DAG run ` +
          `${parent.run_id} repeats`,
      };
    reversed.push({ step: node.name, run_id: current.run_id });
    current = parent;
  }
  return { ok: true, path: { hops: reversed.reverse(), step, downstream }, target };
}
