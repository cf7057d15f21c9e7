// Whether a scheduler is active on a data directory, judged from its scheduler lock, for a command that
// must not copy the directory while a scheduler writes to it. The lock protocol's own rule decides: a holder
// renews every I, so a record that does not change while it is watched for longer than I has no live
// holder. The holder's wall-clock renewal time is only ever a reason to refuse (a lock renewed within the
// stale threshold counts as held without waiting), never a reason to go ahead, since clocks of hosts differ.

import { formatDuration } from '../../core/duration';
import type { LockRead, LockStorage } from '../../core/lease/types';
import type { Clock } from '../../core/ports';

export type SchedulerActivity = { active: boolean; reason: string };

export interface ActivityCheckOptions {
  /** T: `scheduler.lock_stale_threshold`. */
  staleMs: number;
  /** How long to watch an unreleased record for a renewal: longer than the renewal interval I. */
  watchMs: number;
  clock: Clock;
  sleep: (ms: number) => Promise<void>;
  /** Told when the check starts watching (it then takes `watchMs`). */
  onWatch?: (watchMs: number) => void;
}

/** Reads (and if need be watches) the lock; `active: true` when a scheduler holds it or may hold it. */
export async function checkSchedulerActivity(
  lock: Pick<LockStorage, 'read'>,
  opts: ActivityCheckOptions,
): Promise<SchedulerActivity> {
  const first = await lock.read();
  if (first.kind === 'none') return { active: false, reason: 'no scheduler has taken the lock' };
  if (first.kind === 'record') {
    const r = first.record;
    const who = `instance ${r.instance_id} on ${r.host} (pid ${r.pid})`;
    if (r.released) return { active: false, reason: `the lock was released by ${who}` };
    const agoMs = opts.clock.nowMs() - Date.parse(r.renewed_at);
    // A renewal time in the future (another host's clock ahead) counts as recent too.
    if (Number.isFinite(agoMs) && agoMs < opts.staleMs) {
      const ago =
        agoMs >= 0 ? `${formatDuration(Math.round(agoMs / 1000) * 1000)} ago` : `at ${r.renewed_at}`;
      return { active: true, reason: `the scheduler lock is held by ${who}, renewed ${ago}` };
    }
  }
  opts.onWatch?.(opts.watchMs);
  const start = opts.clock.monoMs();
  const step = Math.max(50, Math.min(500, opts.watchMs / 4));
  while (opts.clock.monoMs() - start < opts.watchMs) {
    await opts.sleep(step);
    const now = await lock.read();
    if (identity(now) !== identity(first)) {
      return {
        active: true,
        reason: 'the scheduler lock changed while it was watched: a scheduler holds it',
      };
    }
  }
  const watched = formatDuration(opts.watchMs);
  if (first.kind === 'corrupt') {
    return {
      active: false,
      reason: `the lock file is unreadable (${first.error}) and nothing rewrote it within ${watched}`,
    };
  }
  const r = first.kind === 'record' ? first.record : null;
  return {
    active: false,
    reason: `the lock of instance ${r?.instance_id} on ${r?.host} was last renewed at ${r?.renewed_at} and not within ${watched}: it is stale`,
  };
}

/** What tells one version of the lock from the next: holder, epoch and renewal counter, or the raw text. */
function identity(read: LockRead): string {
  if (read.kind === 'none') return 'none';
  if (read.kind === 'corrupt') return `corrupt:${read.raw}`;
  const r = read.record;
  return `${r.holder}/${r.epoch}/${r.counter}/${r.released}`;
}
