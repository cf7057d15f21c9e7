// Suspending and resuming a DAG's schedule, for the API and `dagu suspend` / `dagu resume-schedule`: the flag
// file the schedulers read at their next tick, and a `dag.suspended` / `dag.resumed` event for the console
// and the audit trail. Only the schedule stops: runs started by hand or queued by hand still run.

import { isoUtc } from '../core/runStatus';
import { assertDagName } from '../core/names';
import { loadDagByName } from '../store/dagCatalog';
import { NotFoundError } from './errors';
import type { Services } from './services';

/** Event types appended when a DAG's schedule is suspended or resumed (data: `{dag, by}`). */
export const DAG_SUSPENDED_EVENT = 'dag.suspended';
export const DAG_RESUMED_EVENT = 'dag.resumed';

/** A DAG's schedule state after a suspend or resume. */
export interface SuspendState {
  name: string;
  suspended: boolean;
  /** When it was suspended (null when not suspended, or when its flag does not say: Dagu's empty flag). */
  suspended_at: string | null;
  suspended_by: string | null;
  /** False when the DAG was already in the state asked for (nothing was written). */
  changed: boolean;
}

/**
 * Suspends (`suspend: true`) or resumes a DAG's schedule. The DAG file must exist (an invalid one may be
 * suspended: its schedule is off until it is fixed anyway); `by` says who asked, for the flag and the event.
 */
export async function setDagSuspended(
  svc: Services,
  name: string,
  suspend: boolean,
  by: string,
): Promise<SuspendState> {
  assertDagName(name);
  const found = await loadDagByName(svc.config.paths.dags_dir, name);
  if (!found.ok && 'notFound' in found) throw new NotFoundError(`DAG ${JSON.stringify(name)} not found`);
  const nowIso = isoUtc(svc.clock.nowMs());
  const changed = suspend
    ? await svc.suspendFlags.suspend({ dag: name, suspended_at: nowIso, by })
    : await svc.suspendFlags.resume(name);
  if (changed) {
    await svc.events.append(suspend ? DAG_SUSPENDED_EVENT : DAG_RESUMED_EVENT, { dag: name, by });
  }
  const record = await svc.suspendFlags.get(name);
  return {
    name,
    suspended: record !== null,
    suspended_at: record?.suspended_at ?? null,
    suspended_by: record?.by ?? null,
    changed,
  };
}
