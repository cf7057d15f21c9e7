// One seeded schedule of the lock protocol: 2-4 LeaseKeepers on a simulated timeline with drifting clocks,
// faulty storage, crashes, pauses, clean stops and restarts, and a dispatcher. Returns what went wrong.

import { leaseTiming, maxClockRateDifference } from '../../core/lease/timing';
import { silentLogger, type LogFields, type Logger } from '../../core/ports';
import { LeaseKeeper, type RoleChange } from '../leaseKeeper';
import { mulberry32 } from './prng';
import { healthyStorage, SimDisk, SimLockStorage, type StorageFaults } from './simLockStorage';
import { SimNode, SimWorld } from './simWorld';

const T = 3000;
const SLOT_MS = 400;
const DURATION_MS = 10 * T;
const MAX_LIVE = 4;

interface Member {
  node: SimNode;
  storage: SimLockStorage;
  keeper: LeaseKeeper;
  exited: boolean;
}

/** The outcome of one schedule: empty `violations` means every invariant held at every step. */
export interface ScheduleResult {
  seed: number;
  violations: string[];
  takeovers: number;
  liveChecks: number;
}

const sameFaults = (a: StorageFaults, b: StorageFaults) => JSON.stringify(a) === JSON.stringify(b);

function traceLogger(name: string, out: (m: string) => void): Logger {
  const line = (level: string) => (msg: string, f?: LogFields) =>
    out(`${name} ${level} ${msg} ${JSON.stringify(f ?? {})}`);
  const l: Logger = {
    debug: () => {},
    info: line('info'),
    warn: line('warn'),
    error: line('error'),
    child: () => l,
  };
  return l;
}

export async function runSchedule(seed: number): Promise<ScheduleResult> {
  const rng = mulberry32(seed);
  const world = new SimWorld();
  const disk = new SimDisk();
  const retryMs = rng.pick([250, 600, 1000, 1500]);
  const t = leaseTiming(T, retryMs);
  const maxRate = 1 + 0.9 * maxClockRateDifference(t);
  const members: Member[] = [];
  const violations: string[] = [];
  const acquisitions: number[] = [];
  const runs = new Map<number, string>();
  let liveChecks = 0;
  let serial = 0;

  const trace = process.env.DAGU_SIM_TRACE
    ? (msg: string) => console.log(`${world.now.toFixed(1)} ${msg}`)
    : null;
  const live = () => members.filter((m) => !m.exited && !m.node.crashed);
  const fail = (msg: string) => {
    if (violations.length < 5) violations.push(`t=${world.now.toFixed(1)}: ${msg}`);
  };

  const spawn = () => {
    const name = `n${serial++}`;
    const node = new SimNode(world, name, rng.real(1, maxRate), rng.real(0, 1e6));
    const storage = new SimLockStorage(world, node, disk, mulberry32(seed * 31 + serial));
    const member: Member = { node, storage, keeper: null as unknown as LeaseKeeper, exited: false };
    const onRoleChange = (c: RoleChange) => {
      if (c.kind === 'acquired') acquisitions.push(world.now);
      // The lead's CLI exits on `lost`; a supervisor restarts the process a little later.
      if (c.kind === 'lost') exit(member);
    };
    member.keeper = new LeaseKeeper({
      storage,
      clock: node.clock,
      timers: node.timers,
      logger: trace ? traceLogger(name, trace) : silentLogger,
      staleThresholdMs: T,
      retryIntervalMs: retryMs,
      identity: { instance_id: name, host: `host-${name}`, pid: serial },
      newToken: () => `${name}-${rng.int(0, 2 ** 31)}`,
      onRoleChange,
      dataDir: '/sim/data',
    });
    members.push(member);
    node.deliver(() => {
      // The first attempt's storage errors end startup; the supervisor tries again later.
      member.keeper.start().catch(() => exit(member));
    });
  };

  const exit = (m: Member) => {
    if (m.exited) return;
    m.exited = true;
    m.node.crashed = true;
    world.at(world.now + rng.real(100, 3000), () => {
      if (live().length < MAX_LIVE) spawn();
    });
  };

  const activeMember = () => live().find((m) => m.keeper.role() === 'active');

  // Invariant 1 at every step, and the "never clobber on release" record of the storage.
  world.afterEvent = () => {
    const dispatching = members.filter((m) => !m.node.crashed && m.keeper.canDispatch());
    if (dispatching.length > 1) fail(`two may dispatch: ${dispatching.map((m) => m.node.name).join(', ')}`);
    if (disk.clobbers.length > 0) fail(disk.clobbers.splice(0).join('; '));
  };

  // The dispatcher: every slot, each running instance that may dispatch creates the slot's run exclusively.
  for (let slot = 0; slot * SLOT_MS < DURATION_MS; slot++) {
    world.at(slot * SLOT_MS, () => {
      for (const m of live()) {
        if (m.node.paused || !m.keeper.canDispatch()) continue;
        const owner = runs.get(slot);
        if (owner === undefined) runs.set(slot, m.node.name);
        else if (owner !== m.node.name) fail(`slot ${slot} dispatched by ${owner} and ${m.node.name}`);
      }
    });
  }

  /** No faults in force and nothing left to land later, except the ordinary calls of `except`. */
  const healthy = (except: Member) =>
    live().every((m) => !m.node.paused && sameFaults(m.storage.faults, healthyStorage())) &&
    [...disk.latestApplyAt].every(
      ([n, at]) => at <= world.now || (n === except.node.name && at <= world.now + 50),
    );

  /** After the active dies (or stops) with a live standby and healthy storage, someone is active in time. */
  const expectTakeover = (fromMs: number, boundMs: number, what: string) => {
    liveChecks++;
    world.at(fromMs + boundMs, () => {
      if (!acquisitions.some((a) => a > fromMs))
        fail(`no new active within ${boundMs}ms of ${what} at ${fromMs}`);
    });
  };

  let quietUntil = 0;
  const episodes: Array<[number, () => number]> = [
    [0.22, () => crashActive()],
    [0.06, () => crashAny()],
    [0.14, () => pause()],
    [0.1, () => storageFault('stall')],
    [0.1, () => storageFault('fail')],
    [0.1, () => lateWrites()],
    [0.06, () => slowStorage()],
    [0.08, () => stopActive()],
    [0.04, () => stopAny()],
    [0.1, () => wallJump()],
  ];
  const some = () => rng.pick(live());

  const crashActive = () => {
    const m = activeMember();
    if (!m) return 0;
    // The bound is promised for healthy storage: a late write by an earlier holder, sitting in the lock when
    // the active dies, costs the standbys one more T (its epoch's claim is already spent).
    const cur = disk.current();
    const ownRecord = cur.kind === 'record' && cur.record.instance_id === m.node.name;
    const ok = healthy(m) && ownRecord && live().some((s) => s !== m && s.keeper.role() === 'standby');
    m.node.crashed = true;
    exit(m);
    trace?.(`crash active ${m.node.name} check=${ok}`);
    if (!ok) return 0;
    expectTakeover(world.now, t.staleMs + 2 * t.retryMs, 'the crash of the active');
    return t.staleMs + 2 * t.retryMs + 200;
  };
  const crashAny = () => {
    const m = some();
    if (m) exit(m);
    return 0;
  };
  const pause = () => {
    const m = rng.chance(0.6) ? (activeMember() ?? some()) : some();
    if (m) m.node.pausedUntil = world.now + rng.real(0.1 * T, 2 * T);
    trace?.(`pause ${m?.node.name} until ${m?.node.pausedUntil}`);
    return 0;
  };
  const storageFault = (mode: 'stall' | 'fail') => {
    const m = rng.chance(0.5) ? (activeMember() ?? some()) : some();
    if (!m) return 0;
    const until = world.now + rng.real(0.05 * T, 2 * T);
    m.storage.faults = { ...healthyStorage(), mode, stallUntil: until };
    trace?.(`${mode} ${m.node.name} until ${until}`);
    world.at(until, () => (m.storage.faults = healthyStorage()));
    return 0;
  };
  const lateWrites = () => {
    const m = rng.chance(0.6) ? (activeMember() ?? some()) : some();
    if (!m) return 0;
    m.storage.faults = { ...healthyStorage(), lateWriteChance: 0.5, lateByMs: [t.deadlineMs, 2 * T] };
    world.at(world.now + rng.real(0.2 * T, 2 * T), () => (m.storage.faults = healthyStorage()));
    return 0;
  };
  const slowStorage = () => {
    const m = some();
    if (!m) return 0;
    m.storage.faults = { ...healthyStorage(), latencyMs: [20, 2 * t.deadlineMs] };
    world.at(world.now + rng.real(0.2 * T, 2 * T), () => (m.storage.faults = healthyStorage()));
    return 0;
  };
  const stopActive = () => stop(activeMember(), true);
  const stopAny = () => stop(some(), false);
  const stop = (m: Member | undefined, expect: boolean) => {
    if (!m) return 0;
    const ok =
      expect &&
      m.keeper.canDispatch() &&
      healthy(m) &&
      live().some((s) => s !== m && s.keeper.role() === 'standby');
    void m.keeper.stop().then(() => exit(m));
    if (!ok) return 0;
    const bound = t.retryMs + t.deadlineMs + 200;
    expectTakeover(world.now, bound, 'a clean stop of the active');
    return bound + 200;
  };
  const wallJump = () => {
    const m = some();
    if (m) m.node.wallOffsetMs += rng.pick([-1, 1]) * rng.real(1000, 3_600_000);
    return 0;
  };

  const plan = (at: number) => {
    if (at >= DURATION_MS - 3 * T) return;
    world.at(at, () => {
      let quiet = 0;
      trace?.(
        `episode; live=${live()
          .map((m) => `${m.node.name}:${m.keeper.role()}`)
          .join(',')}`,
      );
      if (world.now >= quietUntil && live().length > 0) {
        let r = rng.next();
        for (const [p, run] of episodes) {
          if ((r -= p) < 0) {
            quiet = run();
            break;
          }
        }
      }
      quietUntil = Math.max(quietUntil, world.now + quiet);
      plan(world.now + quiet + rng.real(100, 2 * T));
    });
  };

  const initial = rng.int(2, 4);
  for (let i = 0; i < initial; i++) world.at(rng.real(0, 2000), spawn);
  plan(T);
  await world.runUntil(DURATION_MS);
  return { seed, violations, takeovers: acquisitions.length, liveChecks };
}
