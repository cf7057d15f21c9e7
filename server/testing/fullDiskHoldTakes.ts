// A dispatch store whose taking of expired holds fails as on a full disk, until the test frees the space.

import type { DispatchStore } from '../store/dispatchTypes';

/**
 * Makes `tasks.takeExpiredHold` fail with ENOSPC, as the file store's does when its write finds no space,
 * until `free()` is called; from then on it takes holds as before.
 */
export function fullDiskHoldTakes(tasks: Pick<DispatchStore, 'takeExpiredHold'>): { free(): void } {
  const take = tasks.takeExpiredHold.bind(tasks);
  let full = true;
  tasks.takeExpiredHold = (...args) =>
    full
      ? Promise.reject(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }))
      : take(...args);
  return {
    free: () => {
      full = false;
    },
  };
}
