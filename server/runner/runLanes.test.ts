import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isLocalProcessAlive } from './localProcess';
import type { HostedRun } from './runHostCommand';
import { RunLanes, type LaneSettings } from './runLanes';
import { minimalEnv, recordingLogger, tempDir, waitFor, type Logged } from './testSupport';

let dir: string;
let cleanup: () => void;
let opened: RunLanes[];
/** Every lane a test started: each is let go, and waited for, before the test's directory is removed. */
let seen: Set<number>;
beforeEach(() => {
  ({ dir, cleanup } = tempDir('dagu-lanes-'));
  opened = [];
  seen = new Set();
});
afterEach(async () => {
  for (const l of opened) {
    for (const pid of l.pids()) seen.add(pid);
    l.close();
  }
  await waitFor(() => [...seen].every((pid) => !isLocalProcessAlive(pid)), 10_000);
  cleanup();
});

/**
 * A stand-in for `dagu __run-lane <own log> <socket> <token>`: says its token and FAKE_BUILD, appends each
 * run it is given to `<dir>/taken-<pid>` and answers "done" FAKE_RUN_MS later; when the connection ends it
 * exits once its runs have (FAKE_LANE=crash: it exits at once when given a run; silent: at once, without
 * connecting back).
 */
function fakeLane(): string {
  const script = join(dir, 'fake-lane.cjs');
  writeFileSync(
    script,
    `const fs = require('node:fs');
const [log, sock, token] = process.argv.slice(3);
const taken = require('node:path').join(${JSON.stringify(dir)}, 'taken-' + process.pid);
let text = '';
let running = 0;
let open = true;
if (process.env.FAKE_LANE === 'silent') process.exit(4);
const s = require('node:net').connect(sock, () =>
  s.write(JSON.stringify({ token, build: process.env.FAKE_BUILD }) + '\\n'),
);
s.setEncoding('utf8');
s.on('data', (d) => {
  text += d;
  for (let nl = text.indexOf('\\n'); nl >= 0; nl = text.indexOf('\\n')) {
    const run = JSON.parse(text.slice(0, nl)).run;
    text = text.slice(nl + 1);
    if (process.env.FAKE_LANE === 'crash') process.exit(3);
    fs.appendFileSync(taken, run.runId + '\\n');
    running++;
    setTimeout(() => {
      running--;
      if (!s.destroyed) s.write(JSON.stringify({ done: run.runId }) + '\\n');
      if (!open && running === 0) process.exit(0);
    }, Number(process.env.FAKE_RUN_MS));
  }
});
s.on('error', () => {});
s.on('close', () => {
  open = false;
  if (running === 0) process.exit(0);
});
`,
  );
  return script;
}

function lanes(
  opts: {
    builds?: string[];
    laneBuild?: string;
    runMs?: number;
    mode?: string;
  } & Partial<LaneSettings> = {},
) {
  const logged: Logged[] = [];
  const builds = opts.builds ?? ['b1'];
  let reads = 0;
  const l = new RunLanes({
    executable: fakeLane(),
    env: {
      ...minimalEnv(),
      FAKE_BUILD: opts.laneBuild ?? 'b1',
      FAKE_RUN_MS: String(opts.runMs ?? 300),
      FAKE_LANE: opts.mode ?? '',
    },
    relay: null,
    logDir: join(dir, 'lanes'),
    currentBuild: opts.currentBuild ?? (async () => builds[Math.min(reads++, builds.length - 1)]),
    logger: recordingLogger(logged),
    maxLanes: opts.maxLanes ?? 2,
    runsPerLane: opts.runsPerLane ?? 2,
    idleMs: opts.idleMs ?? 60_000,
    lifetimeRuns: opts.lifetimeRuns,
  });
  opened.push(l);
  return { lanes: l, logged };
}

function run(runId: string): HostedRun {
  return {
    dag: 'd',
    runId,
    triggerType: 'manual',
    scheduleTime: null,
    name: null,
    processLog: join(dir, `${runId}.log`),
  };
}

const taken = (pid: number) => {
  const file = join(dir, `taken-${pid}`);
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
};

/** Asks for a lane and waits until it takes a run; returns its pid. */
async function ready(l: RunLanes, first: string): Promise<number> {
  l.want();
  let pid: number | undefined;
  await waitFor(() => l.pids().length > 0);
  // Until it has connected back, there is no lane to take a run.
  for (let i = 0; i < 200 && pid === undefined; i++) {
    const r = await l.assign(run(first), () => true);
    if (r && !r.fenced) pid = r.pid;
    else await new Promise((res) => setTimeout(res, 25));
  }
  if (pid === undefined) throw new Error('the lane never took a run');
  seen.add(pid);
  return pid;
}

describe('run lanes', () => {
  it('has no lane to give a run to until one is asked for and has connected back', async () => {
    const { lanes: l } = lanes();
    expect(await l.assign(run('r0'), () => true)).toBeNull();
    expect(l.pids()).toEqual([]);
    const pid = await ready(l, 'r1');
    expect(l.pids()).toEqual([pid]);
    await waitFor(() => taken(pid).length === 1);
    expect(taken(pid)).toEqual(['r1']);
  });

  it('gives a lane at most runsPerLane runs at once, and more as they end', async () => {
    const { lanes: l } = lanes({ maxLanes: 1, runsPerLane: 2, runMs: 400 });
    const pid = await ready(l, 'a');
    expect(await l.assign(run('b'), () => true)).toEqual({ pid });
    // Full: the third gets no lane (the caller starts its own process), and want() starts no second lane.
    expect(await l.assign(run('c'), () => true)).toBeNull();
    l.want();
    expect(l.pids()).toEqual([pid]);
    // Once one has ended, there is room again.
    let again = null;
    for (let i = 0; i < 100 && again === null; i++) {
      again = await l.assign(run('c'), () => true);
      if (again === null) await new Promise((res) => setTimeout(res, 20));
    }
    expect(again).toEqual({ pid });
    await waitFor(() => taken(pid).length === 3);
    expect(taken(pid)).toEqual(['a', 'b', 'c']);
  });

  it('starts a second lane only when the first is full, and spreads runs over the lanes', async () => {
    const { lanes: l } = lanes({ maxLanes: 2, runsPerLane: 1, runMs: 2000 });
    const first = await ready(l, 'a');
    const second = await ready(l, 'b');
    expect(second).not.toBe(first);
    expect(l.pids().sort()).toEqual([first, second].sort());
    // Two lanes, each full: no third is started and the next run gets no lane.
    l.want();
    expect(l.pids()).toHaveLength(2);
    expect(await l.assign(run('c'), () => true)).toBeNull();
  });

  it('hands nothing over when the fence has closed', async () => {
    const { lanes: l } = lanes();
    const pid = await ready(l, 'a');
    expect(await l.assign(run('b'), () => false)).toEqual({ pid: undefined, fenced: true });
    await new Promise((res) => setTimeout(res, 500));
    expect(taken(pid)).toEqual(['a']);
  });

  it('lets a lane go when the build on disk changed, and gives it nothing more', async () => {
    const { lanes: l, logged } = lanes({ builds: ['b1', 'b1', 'b2'] });
    const pid = await ready(l, 'a');
    expect(await l.assign(run('b'), () => true)).toBeNull();
    expect(logged.map((x) => x.msg)).toContain(
      'Let a run lane go: the build on disk changed since it started',
    );
    // It finishes the run it has and exits.
    await waitFor(() => !isLocalProcessAlive(pid));
    expect(taken(pid)).toEqual(['a']);
    expect(l.pids()).toEqual([]);
  });

  it('compares the build the lane says it loaded, not the one on disk when it was started', async () => {
    const { lanes: l } = lanes({ builds: ['b1'], laneBuild: 'b0' });
    l.want();
    await waitFor(() => l.pids().length > 0);
    const pid = l.pids()[0];
    seen.add(pid);
    await new Promise((res) => setTimeout(res, 1000));
    expect(await l.assign(run('a'), () => true)).toBeNull();
    await waitFor(() => !isLocalProcessAlive(pid));
    expect(taken(pid)).toEqual([]);
  });

  it('lets an idle lane go after idleMs', async () => {
    const { lanes: l } = lanes({ idleMs: 300, runMs: 100 });
    const pid = await ready(l, 'a');
    await waitFor(() => !isLocalProcessAlive(pid), 10_000);
    expect(l.pids()).toEqual([]);
    expect(taken(pid)).toEqual(['a']);
  });

  it('lets a lane go after lifetimeRuns, and starts a fresh one for the next backlog', async () => {
    const { lanes: l } = lanes({ lifetimeRuns: 2, runsPerLane: 4, runMs: 100 });
    const first = await ready(l, 'a');
    expect(await l.assign(run('b'), () => true)).toEqual({ pid: first });
    expect(await l.assign(run('c'), () => true)).toBeNull();
    await waitFor(() => !isLocalProcessAlive(first));
    expect(taken(first)).toEqual(['a', 'b']);
    const second = await ready(l, 'c');
    expect(second).not.toBe(first);
  });

  it('reports a lane that died with runs, and starts no more lanes', async () => {
    const { lanes: l, logged } = lanes({ mode: 'crash' });
    const pid = await ready(l, 'a');
    await waitFor(() => logged.some((x) => x.level === 'error'));
    expect(logged.find((x) => x.level === 'error')).toMatchObject({
      msg: 'A run lane exited unexpectedly; queued runs get processes of their own until the scheduler restarts',
      fields: { pid, runs: ['a'] },
    });
    l.want();
    expect(l.pids()).toEqual([]);
    expect(await l.assign(run('b'), () => true)).toBeNull();
  });

  it('promises runs to a lane still starting, up to runsPerLane, and hands them over once it connects', async () => {
    const { lanes: l } = lanes({ runsPerLane: 2, runMs: 200 });
    const given: string[] = [];
    const notHanded = (id: string) => ({ notHanded: () => given.push(id) });
    l.want();
    const a = await l.assign(run('a'), () => true, notHanded('a'));
    expect(a).not.toBeNull();
    const pid = a!.pid!;
    seen.add(pid);
    expect(l.pids()).toEqual([pid]);
    // A run promised already is not promised twice (the queue offered it again after its start timeout).
    expect(await l.assign(run('a'), () => true, notHanded('a'))).toBeNull();
    expect(await l.assign(run('b'), () => true, notHanded('b'))).toEqual({ pid });
    // Full, promises included.
    expect(await l.assign(run('c'), () => true, notHanded('c'))).toBeNull();
    await waitFor(() => taken(pid).length === 2);
    expect(taken(pid)).toEqual(['a', 'b']);
    expect(given).toEqual([]);
  });

  it('takes nothing on promise without being asked to, nor while no lane is starting', async () => {
    const { lanes: l } = lanes();
    expect(await l.assign(run('a'), () => true, { notHanded: () => undefined })).toBeNull();
    l.want();
    expect(await l.assign(run('b'), () => true)).toBeNull();
    await waitFor(() => l.pids().length > 0);
    for (const pid of l.pids()) seen.add(pid);
  });

  it('does not hold a run up while a lane takes long to be spawned (a stalled volume)', async () => {
    let release: (b: string) => void = () => undefined;
    const { lanes: l } = lanes({ currentBuild: () => new Promise<string>((res) => (release = res)) });
    l.want();
    const t0 = Date.now();
    expect(await l.assign(run('a'), () => true, { notHanded: () => undefined })).toBeNull();
    expect(Date.now() - t0).toBeLessThan(1000);
    release('b1');
    await waitFor(() => l.pids().length > 0);
    for (const pid of l.pids()) seen.add(pid);
  });

  it('gives a promised run back when its lane never connects, or the fence closed before it did', async () => {
    const silent = lanes({ mode: 'silent' });
    const back: string[] = [];
    silent.lanes.want();
    const r = await silent.lanes.assign(run('a'), () => true, { notHanded: () => back.push('a') });
    expect(r).not.toBeNull();
    seen.add(r!.pid!);
    await waitFor(() => back.length === 1, 10_000);
    expect(back).toEqual(['a']);
    expect(taken(r!.pid!)).toEqual([]);

    const { lanes: l } = lanes();
    let open = true;
    l.want();
    const f = await l.assign(run('f'), () => open, { notHanded: () => back.push('f') });
    seen.add(f!.pid!);
    open = false;
    await waitFor(() => back.length === 2, 10_000);
    expect(back).toEqual(['a', 'f']);
    await new Promise((res) => setTimeout(res, 300));
    expect(taken(f!.pid!)).toEqual([]);
  });

  it('gives a promised run back when the lane that connects is not of the build on disk, and never promises it again', async () => {
    const { lanes: l, logged } = lanes({ builds: ['b1'], laneBuild: 'b0' });
    const back: string[] = [];
    l.want();
    const r = await l.assign(run('a'), () => true, { notHanded: () => back.push('a') });
    seen.add(r!.pid!);
    await waitFor(() => back.length === 1, 10_000);
    expect(taken(r!.pid!)).toEqual([]);
    expect(logged.map((x) => x.msg)).toContain(
      'Let a run lane go: the build on disk changed since it started',
    );
    // Every new lane is of that build too: offered again, the run gets a process of its own (null here)
    // rather than a promise to the next lane, and the one after, for ever.
    l.want();
    await waitFor(() => l.pids().length > 0);
    for (const pid of l.pids()) seen.add(pid);
    expect(await l.assign(run('a'), () => true, { notHanded: () => back.push('a') })).toBeNull();
  });

  it('lets every lane go on close; a lane finishes its runs first', async () => {
    const { lanes: l } = lanes({ runMs: 600 });
    const pid = await ready(l, 'a');
    l.close();
    await new Promise((res) => setTimeout(res, 200));
    expect(isLocalProcessAlive(pid)).toBe(true);
    await waitFor(() => !isLocalProcessAlive(pid));
    expect(taken(pid)).toEqual(['a']);
    expect(await l.assign(run('b'), () => true)).toBeNull();
  });
});
