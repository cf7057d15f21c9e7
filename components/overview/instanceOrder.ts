// The order and colour of scheduler instances on the overview: the active one first, then those that could
// take over, then those that are gone.

import type { SchedulerInstanceView } from '@/components/apiTypes';
import type { Tone } from '../tone';

type Role = SchedulerInstanceView['role'];

const ROLE_RANK: Record<Role, number> = { active: 0, standby: 1, starting: 2, stopped: 3, lost: 4 };

/** Active first (the server's `active_instance`, else any with role active), then by role, then by id. */
export function sortInstances<T extends Pick<SchedulerInstanceView, 'id' | 'role'>>(
  instances: readonly T[],
  activeId: string | null,
): T[] {
  const rank = (i: T) => (activeId !== null && i.id === activeId ? -1 : (ROLE_RANK[i.role] ?? 5));
  return [...instances].sort((a, b) => rank(a) - rank(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export function instanceRoleTone(role: string): Tone {
  switch (role) {
    case 'active':
      return 'ok';
    case 'standby':
      return 'info';
    case 'starting':
      return 'warn';
    case 'lost':
      return 'bad';
    default:
      return 'neutral';
  }
}
