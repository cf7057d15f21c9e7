// The chaos driver: for N cycles, picks a fault at random (seeded), applies it, then waits for the cluster to
// recover (every member up again and one scheduler active) before a short random pause. The backend's own
// storage faults are dealt first, each once in a seeded order, so even a short soak meets every one of them.

import type { Prng } from '../../server/scheduler/sim/prng';
import { actionKinds, runAction, storageFaults, type ActionKind, type ActionRecord } from './actions';
import type { ChaosCluster } from './chaosCluster';

/** One cycle: the fault, and how long until the cluster was whole again (null: not within the bound). */
export interface CycleRecord extends ActionRecord {
  cycle: number;
  /** When the action was over (wall clock): a fault with a duration (a stall, a pause) was lifted by then. */
  endedMs: number;
  /** From the fault's start until every member was up and one scheduler active (ms), or null. */
  recoveredMs: number | null;
}

const RECOVERY_BOUND_MS = 60_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until every member is up and one scheduler active; the time from `fromMs`, or null past the bound. */
async function untilWhole(c: ChaosCluster, fromMs: number): Promise<number | null> {
  while (Date.now() - fromMs < RECOVERY_BOUND_MS) {
    if (c.supervisor.allUp() && (await c.active())) return Date.now() - fromMs;
    await sleep(100);
  }
  return null;
}

/** A seeded Fisher-Yates shuffle (a copy). */
function shuffled(kinds: readonly ActionKind[], rng: Prng): ActionKind[] {
  const out = [...kinds];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

export async function driveChaos(
  c: ChaosCluster,
  rng: Prng,
  cycles: number,
  onCycle: (r: CycleRecord) => void,
): Promise<CycleRecord[]> {
  const out: CycleRecord[] = [];
  const deck = shuffled(storageFaults(c.backend), rng);
  const menu = actionKinds(c.backend);
  for (let cycle = 1; cycle <= cycles; cycle++) {
    const kind = deck.shift() ?? rng.pick(menu);
    const action = await runAction(c, kind, rng);
    const endedMs = Date.now();
    const recoveredMs = await untilWhole(c, action.atMs);
    const r: CycleRecord = { ...action, cycle, endedMs, recoveredMs };
    out.push(r);
    onCycle(r);
    // Let the new active run a few slots (and a standby start watching) before the next fault.
    await sleep(rng.int(500, 2500));
  }
  return out;
}
