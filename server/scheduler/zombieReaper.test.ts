import { describe, expect, it } from 'vitest';
import { isoUtc, newRunStatus } from '../core/runStatus';
import type { RunStatus } from '../core/types';
import { SECOND } from '../core/units';
import { MemoryQueueStore } from '../store/memoryQueueStore';
import { FakeTime } from './testing/fakeTime';
import { FaultyRunStore } from './testing/faultyRunStore';
import { dagFromYaml, RecordingLogger } from './testing/loopFixtures';
import { ZombieReaper } from './zombieReaper';

const START = Date.parse('2026-11-30T01:15:30Z');
const STALE_MS = 60 * SECOND;
const THIS_HOST = 'sched-host';

const dag = dagFromYaml(
  'etl',
  ['steps:', '  - name: extract', '    command: echo e', '  - name: load', '    command: echo l'].join('\n'),
);

function harness() {
  const time = new FakeTime(START);
  const runs = new FaultyRunStore();
  const queue = new MemoryQueueStore();
  const logger = new RecordingLogger();
  const alivePids = new Set<number>();
  const h = {
    time,
    runs,
    queue,
    logger,
    alivePids,
    canDispatch: () => true,
    reaper: null as unknown as ZombieReaper,
    /** A queued run of `etl` created now, marked active. */
    async queuedRun(runId: string): Promise<RunStatus> {
      const s = newRunStatus({
        dag,
        runId,
        status: 'queued',
        triggerType: 'scheduler',
        scheduleTime: isoUtc(START),
        params: [],
        nowIso: isoUtc(time.nowMs()),
      });
      await runs.createRun(s);
      await runs.markActive({ run_id: runId, dag_name: 'etl', queue: 'etl' });
      return s;
    },
    /** A run whose process on `host` started now, finished `extract`, runs `load`, and heartbeats now. */
    async runningRun(runId: string, host: string, pid: number): Promise<void> {
      const s = await h.queuedRun(runId);
      const now = isoUtc(time.nowMs());
      await runs.writeStatus({
        ...s,
        status: 'running',
        started_at: now,
        pid,
        host,
        steps: [
          { ...s.steps[0], status: 'succeeded', started_at: now, finished_at: now, exit_code: 0 },
          { ...s.steps[1], status: 'running', started_at: now },
        ],
      });
      await runs.writeHeartbeat(runId, 1, time.nowMs());
    },
    async status(runId: string): Promise<RunStatus> {
      const r = await runs.readStatus(runId);
      if (r.kind !== 'ok') throw new Error(`run ${runId} is ${r.kind}`);
      return r.status;
    },
    async activeIds(): Promise<string[]> {
      return (await runs.listActive()).map((a) => a.run_id);
    },
  };
  h.reaper = new ZombieReaper({
    clock: time,
    logger,
    runs,
    queue,
    heartbeatStaleMs: STALE_MS,
    canDispatch: () => h.canDispatch(),
    host: THIS_HOST,
    processAlive: (pid) => alivePids.has(pid),
  });
  return h;
}

describe('ZombieReaper', () => {
  it('fails a running run whose heartbeat is older than the threshold, naming its pid and host', async () => {
    const h = harness();
    await h.runningRun('r1', 'worker-host', 4242);
    await h.time.advance(STALE_MS + 5 * SECOND);

    expect(await h.reaper.sweep()).toEqual(['r1']);
    const s = await h.status('r1');
    expect(s.status).toBe('failed');
    expect(s.error).toContain('run process 4242 on worker-host stopped heartbeating');
    expect(s.finished_at).toBe(isoUtc(h.time.nowMs()));
    expect(s.steps.map((st) => st.status)).toEqual(['succeeded', 'failed']);
    expect(s.steps[1].error).toBe('the run process died');
    expect(await h.activeIds()).toEqual([]);
  });

  it('leaves a running run with a fresh heartbeat alone', async () => {
    const h = harness();
    await h.runningRun('r1', 'worker-host', 4242);
    await h.time.advance(STALE_MS - SECOND);
    await h.runs.writeHeartbeat('r1', 1, h.time.nowMs() - 10 * SECOND);

    expect(await h.reaper.sweep()).toEqual([]);
    expect((await h.status('r1')).status).toBe('running');
    expect(await h.activeIds()).toEqual(['r1']);
  });

  it('fails a run of this host whose process is gone without waiting for its heartbeat to age', async () => {
    const h = harness();
    await h.runningRun('gone', THIS_HOST, 4242);
    await h.runningRun('alive', THIS_HOST, 4343);
    h.alivePids.add(4343);

    expect(await h.reaper.sweep()).toEqual(['gone']);
    expect((await h.status('gone')).error).toContain(`run process 4242 on ${THIS_HOST} is gone`);
    expect((await h.status('alive')).status).toBe('running');
  });

  it('removes the active marker of a run that already ended, without touching its status', async () => {
    const h = harness();
    await h.runningRun('r1', 'worker-host', 4242);
    const finished = { ...(await h.status('r1')), status: 'succeeded' as const, finished_at: isoUtc(START) };
    await h.runs.writeStatus(finished);
    await h.time.advance(STALE_MS * 2);

    expect(await h.reaper.sweep()).toEqual([]);
    expect(await h.activeIds()).toEqual([]);
    expect(await h.status('r1')).toEqual(finished);
  });

  it('removes the active marker of a run that does not exist', async () => {
    const h = harness();
    await h.runs.markActive({ run_id: 'ghost', dag_name: 'etl', queue: 'etl' });
    expect(await h.reaper.sweep()).toEqual([]);
    expect(await h.activeIds()).toEqual([]);
  });

  it('leaves a run with a corrupt status marked active and reports it', async () => {
    const h = harness();
    await h.runningRun('r1', 'worker-host', 4242);
    h.runs.corrupt.add('r1');
    await h.time.advance(STALE_MS * 2);

    expect(await h.reaper.sweep()).toEqual([]);
    expect(await h.activeIds()).toEqual(['r1']);
    expect(h.logger.find('unreadable status file')).toHaveLength(1);
  });

  it('fails a queued run with no queue item, older than the threshold, as never started', async () => {
    const h = harness();
    await h.queuedRun('stranded');
    await h.time.advance(STALE_MS + SECOND);

    expect(await h.reaper.sweep()).toEqual(['stranded']);
    const s = await h.status('stranded');
    expect(s.status).toBe('failed');
    expect(s.error).toMatch(/^run was never started: queued .+ ago with no queue item and no run process$/);
    expect(await h.activeIds()).toEqual([]);
  });

  it('leaves a queued run alone while it is young or has a queue item', async () => {
    const h = harness();
    await h.queuedRun('waiting');
    await h.queue.enqueue({ queue: 'etl', run_id: 'waiting', dag_name: 'etl', enqueued_at: isoUtc(START) });
    await h.time.advance(STALE_MS + SECOND);
    await h.queuedRun('starting');
    await h.time.advance(STALE_MS - SECOND);

    expect(await h.reaper.sweep()).toEqual([]);
    expect((await h.status('waiting')).status).toBe('queued');
    expect((await h.status('starting')).status).toBe('queued');
  });

  it('does not overwrite a run that finished between its two reads', async () => {
    const h = harness();
    await h.runningRun('r1', 'worker-host', 4242);
    await h.time.advance(STALE_MS + 5 * SECOND);
    // The run process writes its final status while the reaper reads the heartbeat.
    h.runs.onReadHeartbeat = async (runId) => {
      await h.runs.writeStatus({
        ...(await h.status(runId)),
        status: 'succeeded',
        finished_at: isoUtc(START),
      });
      await h.runs.unmarkActive(runId);
    };

    expect(await h.reaper.sweep()).toEqual([]);
    const s = await h.status('r1');
    expect(s.status).toBe('succeeded');
    expect(s.error).toBeNull();
  });

  it('does nothing while fenced', async () => {
    const h = harness();
    await h.runningRun('r1', 'worker-host', 4242);
    await h.queuedRun('stranded');
    await h.time.advance(STALE_MS * 2);
    h.canDispatch = () => false;

    expect(await h.reaper.sweep()).toEqual([]);
    expect((await h.status('r1')).status).toBe('running');
    expect((await h.status('stranded')).status).toBe('queued');
    expect(await h.activeIds()).toEqual(['r1', 'stranded']);
  });
});
