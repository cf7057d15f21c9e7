// Which tab holds the event stream when the browser has no Web Locks (a page served over plain HTTP to
// another host than localhost is not a secure context): a lease in localStorage that the holder renews and
// another tab claims once it is stale. Two tabs may both hold it for a moment; that costs one connection.

/** The lease as stored: the holding tab and when it last renewed (browser clock, ms). */
export interface TabLease {
  tab: string;
  atMs: number;
}

/** The holder renews this often; a lease not renewed for LEASE_STALE_MS may be claimed. */
export const LEASE_RENEW_MS = 2000;
export const LEASE_STALE_MS = 6000;

export function parseLease(text: string | null): TabLease | null {
  if (text === null) return null;
  try {
    const v = JSON.parse(text) as Partial<TabLease>;
    return typeof v.tab === 'string' && typeof v.atMs === 'number' ? { tab: v.tab, atMs: v.atMs } : null;
  } catch {
    return null;
  }
}

/** `hold`: this tab holds the lease (renew it); `claim`: nobody does (write it, then read it back); `wait`. */
export function leaseDecision(lease: TabLease | null, tab: string, nowMs: number): 'hold' | 'claim' | 'wait' {
  if (lease?.tab === tab) return 'hold';
  // A lease from the future (another tab's clock is the same clock; a jump back) counts as stale too.
  if (lease === null || nowMs - lease.atMs > LEASE_STALE_MS || lease.atMs - nowMs > LEASE_STALE_MS)
    return 'claim';
  return 'wait';
}
