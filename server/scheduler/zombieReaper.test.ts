import { describe, expect, it } from 'vitest';
import { isoUtc, newRunStatus } from '../core/runStatus';
import type { RunStatus } from '../core/types';
import { SECOND } from '../core/units';
import type { DispatchTask } from '../store/dispatchTypes';
import { MemoryQueueStore } from '../store/memoryQueueStore';
import { FakeTime } from '../testing/fakeTime';
import { FaultyRunStore } from './testing/faultyRunStore';
import { dagFromYaml } from '../testing/dagFromYaml';
import { RecordingLogger } from '../testing/recordingLogger';
import {
  ABANDONED_CREATION_MS,
  ABANDONED_SCAN_INTERVAL_MS,
  QUEUE_HEAD_CHECKED,
  QUIET_RECHECK_SWEEPS,
  SWEEP_BATCH,
  UNMARKED_SCAN_INTERVAL_MS,
  ZombieReaper,
} from './zombieReaper';
import { slotRunId } from '../core/slotRunId';

const START = Date.parse('2026-11-30T01:15:30Z');
const STALE_MS = 60 * SECOND;
/** How long a run process may spend reporting its end (logs, then its final status). */
const BUDGET_MS = 40 * SECOND;
/** Silence a claimed attempt must keep, on the reaper's clock, before it is judged. */
const CLAIM_SILENCE_MS = STALE_MS + BUDGET_MS;
/** How old a slot may be for its never-claimed run to be started again. */
const RESTART_WINDOW_MS = 2 * 60 * SECOND;
const THIS_HOST = 'sched-host';

const dag = dagFromYaml(
  'etl',
  ['steps:', '  - name: extract', '    command: echo e', '  - name: load', '    command: echo l'].join('\n'),
);

/** A pending task of `runId` (only its presence matters to the reaper). */
function dispatchTask(runId: string): DispatchTask {
  return {
    version: 1,
    task_id: `${START}-${runId}-1`,
    run_id: runId,
    dag_name: 'etl',
    attempt: 1,
    operation: 'start',
    trigger_type: 'manual',
    worker_selector: { zone: 'b' },
    dag,
    params: [],
    schedule_time: null,
    previous: null,
    parent: null,
    enqueued_at_ms: START,
    hold_until_ms: START + 120 * SECOND,
    wait_ms: 120 * SECOND,
    claim: null,
  };
}

/**
 * `releasesClaims: false` stands for the file store, whose claims cannot be given back; the memory store
 * gives them back, as PostgreSQL does.
 */
function harness(opts: { releasesClaims?: boolean } = {}) {
  const time = new FakeTime(START);
  const runs = new FaultyRunStore();
  if (opts.releasesClaims === false) Object.assign(runs, { releasesClaims: false });
  const queue = new MemoryQueueStore();
  const logger = new RecordingLogger();
  const alivePids = new Set<number>();
  /** Run IDs that have a task in the dispatch store. */
  const tasks = new Set<string>();
  const h = {
    tasks,
    time,
    runs,
    queue,
    logger,
    alivePids,
    canDispatch: () => true,
    slotAdoptionDone: () => true,
    launching: new Set<string>(),
    /** Called when the reaper looks up a run's dispatch task (to race it with another writer). */
    onFindTask: async (_runId: string) => {},
    pidChecks: [] as number[],
    /** What the reaper asked of the store's removal of abandoned run directories, in order. */
    abandonedCalls: [] as Array<{ olderThanMs: number; mayRemove: (runId: string) => boolean }>,
    /** The store's answer to that removal: the run IDs it removed. */
    removeAbandoned: async (): Promise<string[]> => [],
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
    /** A queued run of `etl` created now, marked active, with its queue item: one waiting for its turn. */
    async waitingRun(runId: string): Promise<RunStatus> {
      const s = await h.queuedRun(runId);
      await queue.enqueue({ queue: 'etl', run_id: runId, dag_name: 'etl', enqueued_at: isoUtc(START) });
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
    finalStatusBudgetMs: BUDGET_MS,
    slotRestartWindowMs: RESTART_WINDOW_MS,
    canDispatch: () => h.canDispatch(),
    host: THIS_HOST,
    processAlive: (pid) => {
      h.pidChecks.push(pid);
      return alivePids.has(pid);
    },
    tasks: {
      findByRun: async (runId) => {
        await h.onFindTask(runId);
        return tasks.has(runId) ? dispatchTask(runId) : null;
      },
    },
    slotAdoptionDone: () => h.slotAdoptionDone(),
    launching: (runId) => h.launching.has(runId),
    removeAbandonedCreations: async (olderThanMs, mayRemove) => {
      h.abandonedCalls.push({ olderThanMs, mayRemove });
      return h.removeAbandoned();
    },
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
    // As Dagu does, the step cut off carries the run's reason.
    expect(s.steps[1].error).toBe(s.error);
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

  it('removes the active marker of a run that already ended once it has looked ended for the threshold, without touching its status', async () => {
    const h = harness();
    await h.runningRun('r1', 'worker-host', 4242);
    const finished = { ...(await h.status('r1')), status: 'succeeded' as const, finished_at: isoUtc(START) };
    await h.runs.writeStatus(finished);
    await h.time.advance(STALE_MS * 2);

    // A new attempt's marker comes before its status: at first sight this could be one being created.
    expect(await h.reaper.sweep()).toEqual([]);
    expect(await h.activeIds()).toEqual(['r1']);
    await h.time.advance(STALE_MS);
    expect(await h.reaper.sweep()).toEqual([]);
    expect(await h.activeIds()).toEqual([]);
    expect(await h.status('r1')).toEqual(finished);
  });

  it('removes the active marker of a run that does not exist once it has stayed so for the threshold, and says so', async () => {
    const h = harness();
    await h.runs.markActive({ run_id: 'ghost', dag_name: 'etl', queue: 'etl' });
    expect(await h.reaper.sweep()).toEqual([]);
    expect(await h.activeIds()).toEqual(['ghost']);
    await h.time.advance(STALE_MS);
    expect(await h.reaper.sweep()).toEqual([]);
    expect(await h.activeIds()).toEqual([]);
    expect(h.logger.find('Removed the active marker of a run that has no status')).toHaveLength(1);
  });

  it('keeps the marker of a run whose status is being written (the marker comes first) and checks it as usual after', async () => {
    const h = harness();
    h.runs.halfCreated.add('r1');
    await h.runs.markActive({ run_id: 'r1', dag_name: 'etl', queue: 'etl' });
    expect(await h.reaper.sweep()).toEqual([]);

    // The creator writes the status; the marker was never dropped, and a later death is still found.
    h.runs.halfCreated.delete('r1');
    await h.runningRun('r1', 'worker-host', 4242);
    await h.time.advance(STALE_MS + SECOND);
    expect(await h.reaper.sweep()).toEqual(['r1']);
  });

  it('removes, after the threshold, the marker of a run its creator left without a status, which the list shows as corrupt', async () => {
    const h = harness();
    await h.runs.markActive({ run_id: 'half-made', dag_name: 'etl', queue: 'etl' });
    h.runs.incomplete.add('half-made');
    expect(await h.reaper.sweep()).toEqual([]);
    expect(h.logger.find('unreadable status file')).toEqual([]);
    await h.time.advance(STALE_MS);
    expect(await h.reaper.sweep()).toEqual([]);
    expect(await h.activeIds()).toEqual([]);
    const [line] = h.logger.find('Removed the active marker of a run that has no status');
    expect(line.fields).toMatchObject({ run_id: 'half-made', dag: 'etl' });
    expect(String(line.fields.reason)).toMatch(/has no status file/);
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

  it('puts a queued run with no queue item, older than the threshold, back in its queue once, then fails it as never started', async () => {
    const h = harness();
    await h.queuedRun('stranded');
    await h.time.advance(STALE_MS + SECOND);

    // Its run process died before taking it over, or a worker's claim was lost: it gets one more go.
    expect(await h.reaper.sweep()).toEqual([]);
    expect((await h.status('stranded')).status).toBe('queued');
    const item = await h.queue.find('stranded');
    expect(item).toMatchObject({ queue: 'etl', run_id: 'stranded', dag_name: 'etl' });
    expect(h.logger.find('back in its queue')).toHaveLength(1);
    expect(await h.reaper.sweep()).toEqual([]);

    // Stranded again (its item went, and still nobody started it): it fails rather than wait for ever.
    await h.queue.dequeue(item!.queue, 'stranded');
    expect(await h.reaper.sweep()).toEqual(['stranded']);
    const s = await h.status('stranded');
    expect(s.status).toBe('failed');
    expect(s.error).toMatch(/^run was never started: queued .+ ago with no queue item and no run process$/);
    expect(await h.activeIds()).toEqual([]);
  });

  it('fails, never queues again, a queued run whose end (a dequeue) could not be written and was left as a note', async () => {
    const h = harness();
    await h.queuedRun('dequeued');
    // `dagu dequeue` took its item out, could not write `aborted` on the full disk, and left the note.
    await h.runs.recordUnwrittenFinalStatus('dequeued', 1, { state: 'aborted', error_code: 'ENOSPC' });
    await h.time.advance(STALE_MS + SECOND);

    expect(await h.reaper.sweep()).toEqual(['dequeued']);
    const s = await h.status('dequeued');
    expect(s.status).toBe('failed');
    expect(s.error).toBe(
      'queued run was ended aborted before it started, but that could not be written (ENOSPC: no space left on device); marked failed',
    );
    expect(await h.queue.find('dequeued')).toBeNull();
    expect(h.logger.find('back in its queue')).toEqual([]);
    expect(await h.activeIds()).toEqual([]);
  });

  it('on files, waits out the final-status budget of a process that claimed a slot run and never said it started, then says so', async () => {
    const h = harness({ releasesClaims: false });
    // Claimed, its step run, and then the store went away: neither `running` nor its end reached it.
    await h.queuedRun('claimed-then-silent');
    const claimedAt = isoUtc(h.time.nowMs());
    expect(await h.runs.claimAttempt('claimed-then-silent', 1, `other-host:4242@${claimedAt}`)).toBe(true);
    // The store is back only now, long after the claim: every timestamp the process left is old.
    await h.time.advance(10 * STALE_MS);

    // Watched from the first look on, on the reaper's own clock, for the stale threshold and the budget.
    expect(await h.reaper.sweep()).toEqual([]);
    await h.time.advance(CLAIM_SILENCE_MS);
    expect(await h.reaper.sweep()).toEqual([]);
    expect((await h.status('claimed-then-silent')).status).toBe('queued');
    await h.time.advance(SECOND);
    expect(await h.reaper.sweep()).toEqual(['claimed-then-silent']);

    const s = await h.status('claimed-then-silent');
    expect(s.status).toBe('failed');
    expect(s.error).toBe(
      `run process 4242 on other-host claimed attempt 1 at ${claimedAt} and was not heard from since ${claimedAt} ` +
        '(no status or heartbeat from it in 1m41s of watching); whether its steps ran is unknown; marked failed',
    );
    expect(s.error).not.toMatch(/never started/);
    expect(await h.activeIds()).toEqual([]);
  });

  it('never fails a claimed run whose process is heard from again, and starts its wait over at each heartbeat', async () => {
    const h = harness();
    await h.queuedRun('reports-late');
    await h.runs.claimAttempt('reports-late', 1, `other-host:4242@${isoUtc(h.time.nowMs())}`);
    await h.time.advance(10 * STALE_MS);
    expect(await h.reaper.sweep()).toEqual([]);
    await h.time.advance(CLAIM_SILENCE_MS - SECOND);
    expect(await h.reaper.sweep()).toEqual([]);

    // A heartbeat written with a clock far behind ours (old by wall clock) still shows the process is alive.
    await h.runs.writeHeartbeat('reports-late', 1, h.time.nowMs() - 5 * STALE_MS);
    await h.time.advance(2 * SECOND);
    expect(await h.reaper.sweep()).toEqual([]);
    await h.time.advance(CLAIM_SILENCE_MS - SECOND);
    expect(await h.reaper.sweep()).toEqual([]);

    // And its status, once written, ends the watch.
    const s = await h.status('reports-late');
    await h.runs.writeStatus({ ...s, status: 'succeeded', finished_at: isoUtc(h.time.nowMs()) });
    await h.time.advance(CLAIM_SILENCE_MS + SECOND);
    expect(await h.reaper.sweep()).toEqual([]);
    expect((await h.status('reports-late')).status).toBe('succeeded');
  });

  it('leaves a claimed run alone while its heartbeat is fresh, however long it stays queued', async () => {
    const h = harness();
    await h.queuedRun('heartbeating');
    await h.runs.claimAttempt('heartbeating', 1, `other-host:4242@${isoUtc(h.time.nowMs())}`);
    for (let i = 0; i < 4; i++) {
      await h.runs.writeHeartbeat('heartbeating', 1, h.time.nowMs());
      await h.time.advance(CLAIM_SILENCE_MS / 2);
      expect(await h.reaper.sweep()).toEqual([]);
    }
    expect((await h.status('heartbeating')).status).toBe('queued');
  });

  it('on files, fails at once a claimed run whose claimant on this host is gone, saying it exited without a status', async () => {
    const h = harness({ releasesClaims: false });
    await h.queuedRun('claimant-gone');
    const claimedAt = isoUtc(h.time.nowMs());
    await h.runs.claimAttempt('claimant-gone', 1, `${THIS_HOST}:4242@${claimedAt}`);
    await h.time.advance(2 * SECOND);
    await h.runs.writeHeartbeat('claimant-gone', 1, h.time.nowMs());
    const heardAt = isoUtc(h.time.nowMs());
    await h.time.advance(STALE_MS + SECOND);

    expect(await h.reaper.sweep()).toEqual(['claimant-gone']);
    expect((await h.status('claimant-gone')).error).toBe(
      `run process 4242 on ${THIS_HOST} claimed attempt 1 at ${claimedAt} and exited without writing its status ` +
        `(last heard from at ${heardAt}); whether its steps ran is unknown; marked failed`,
    );
    expect(h.pidChecks).toContain(4242);
  });

  it('on files, names the end a claimant recorded it could not write', async () => {
    const h = harness({ releasesClaims: false });
    await h.queuedRun('unwritten-end');
    await h.runs.claimAttempt('unwritten-end', 1, 'other-host:4242');
    await h.runs.recordUnwrittenFinalStatus('unwritten-end', 1, { state: 'succeeded', error_code: 'ENOSPC' });
    await h.time.advance(STALE_MS + SECOND);
    expect(await h.reaper.sweep()).toEqual([]);
    await h.time.advance(CLAIM_SILENCE_MS + SECOND);
    expect(await h.reaper.sweep()).toEqual(['unwritten-end']);
    expect((await h.status('unwritten-end')).error).toBe(
      'run process 4242 on other-host claimed attempt 1 and ended succeeded, but could not write its status ' +
        '(ENOSPC: no space left on device); marked failed',
    );
  });

  it('on files, fails a queued run in its queue whose attempt a process claimed, once it stays silent long enough, and drops its item', async () => {
    const h = harness({ releasesClaims: false });
    await h.waitingRun('claimed-in-queue');
    expect(await h.runs.claimAttempt('claimed-in-queue', 1, 'other-host:4242')).toBe(true);

    // A live claimant writes `running` (or a heartbeat) within moments: seen claimed, not yet for long.
    expect(await h.reaper.sweep()).toEqual([]);
    await h.time.advance(CLAIM_SILENCE_MS);
    expect(await h.reaper.sweep()).toEqual([]);
    await h.time.advance(SECOND);
    expect(await h.reaper.sweep()).toEqual(['claimed-in-queue']);
    const s = await h.status('claimed-in-queue');
    expect(s.status).toBe('failed');
    expect(s.error).toBe(
      'run process 4242 on other-host claimed attempt 1 and was not heard from ' +
        '(no status or heartbeat from it in 1m41s of watching); whether its steps ran is unknown; marked failed',
    );
    expect(await h.queue.find('claimed-in-queue')).toBeNull();
    expect(await h.activeIds()).toEqual([]);
  });

  it('gives back the claim of a slot run whose claimant never began it, after the budget, and queues it again; the claimant can no longer begin it', async () => {
    const h = harness();
    const s = await h.queuedRun('never-begun');
    const owner = `other-host:4242@${isoUtc(h.time.nowMs())}`;
    await h.runs.claimAttempt('never-begun', 1, owner);
    // Seen from the first sweep on (the slot must stay within the restart window meanwhile).
    await h.time.advance(5 * SECOND);
    expect(await h.reaper.sweep()).toEqual([]);
    await h.time.advance(CLAIM_SILENCE_MS);
    expect(await h.reaper.sweep()).toEqual([]);
    expect(await h.runs.readClaim('never-begun', 1)).toBe(owner);

    await h.time.advance(SECOND);
    expect(await h.reaper.sweep()).toEqual([]);
    expect(await h.runs.readClaim('never-begun', 1)).toBeNull();
    expect(await h.queue.find('never-begun')).not.toBeNull();
    expect((await h.status('never-begun')).status).toBe('queued');
    const [line] = h.logger.find('Starting again a run whose claimant never began it');
    expect(line.fields).toMatchObject({ run_id: 'never-begun', slot: isoUtc(START), claimed_by: owner });
    // The first claimant, reaching the store at last, cannot begin it; the queue's process can.
    expect(await h.runs.beginClaimedAttempt({ ...s, status: 'running' }, owner)).toBe(false);
    expect(await h.runs.claimAttempt('never-begun', 1, 'sched-host:5001')).toBe(true);
    expect(await h.runs.beginClaimedAttempt({ ...s, status: 'running' }, 'sched-host:5001')).toBe(true);
  });

  it('gives back at once the claim of a run whose claimant on this host is gone before beginning it', async () => {
    const h = harness();
    await h.queuedRun('claimant-gone');
    await h.runs.claimAttempt('claimant-gone', 1, `${THIS_HOST}:4242@${isoUtc(h.time.nowMs())}`);
    await h.time.advance(STALE_MS + SECOND);
    expect(await h.reaper.sweep()).toEqual([]);
    expect(await h.runs.readClaim('claimant-gone', 1)).toBeNull();
    expect(await h.queue.find('claimant-gone')).not.toBeNull();
  });

  it('leaves a claimed run whose claimant begins it just before the claim is given back to be judged as running', async () => {
    const h = harness();
    const s = await h.queuedRun('begins-late');
    const owner = `${THIS_HOST}:4242`;
    await h.runs.claimAttempt('begins-late', 1, owner);
    await h.time.advance(STALE_MS + SECOND);
    // The claimant's start lands between the reaper's reads and its release.
    const release = h.runs.releaseClaim.bind(h.runs);
    h.runs.releaseClaim = async (runId, attempt, who) => {
      await h.runs.beginClaimedAttempt({ ...s, status: 'running', pid: 4242, host: THIS_HOST }, owner);
      return release(runId, attempt, who);
    };
    expect(await h.reaper.sweep()).toEqual([]);
    expect(await h.queue.find('begins-late')).toBeNull();
    expect(await h.runs.readClaim('begins-late', 1)).toBe(owner);
    expect((await h.status('begins-late')).status).toBe('running');
  });

  it('fails a run whose second claimant never begins it either, saying none of its steps ran', async () => {
    const h = harness();
    await h.queuedRun('twice-stranded');
    await h.runs.claimAttempt('twice-stranded', 1, `${THIS_HOST}:4242`);
    await h.time.advance(STALE_MS + SECOND);
    expect(await h.reaper.sweep()).toEqual([]);
    const item = await h.queue.find('twice-stranded');
    expect(item).not.toBeNull();
    // The queue's process claims it and dies before beginning it too.
    const claimedAt = isoUtc(h.time.nowMs());
    await h.runs.claimAttempt('twice-stranded', 1, `${THIS_HOST}:5001@${claimedAt}`);
    await h.queue.dequeue(item!.queue, 'twice-stranded');
    await h.time.advance(SECOND);
    expect(await h.reaper.sweep()).toEqual(['twice-stranded']);
    expect((await h.status('twice-stranded')).error).toBe(
      `run process 5001 on ${THIS_HOST} claimed attempt 1 at ${claimedAt} and exited without beginning it ` +
        `(last heard from at ${claimedAt}), so none of its steps ran; marked failed`,
    );
  });

  it('starts a stranded slot run no process claimed again, logging so; a late claim by its first process is refused', async () => {
    const h = harness();
    await h.queuedRun('never-claimed');
    await h.time.advance(STALE_MS + SECOND);

    expect(await h.reaper.sweep()).toEqual([]);
    expect(await h.queue.find('never-claimed')).not.toBeNull();
    const [line] = h.logger.find('Starting again a slot whose run no process claimed');
    expect(line.fields).toMatchObject({ run_id: 'never-claimed', slot: isoUtc(START) });

    // The queue's process claims it and runs it; the process first told to start it, arriving late, cannot.
    expect(await h.runs.claimAttempt('never-claimed', 1, 'sched-host:5001')).toBe(true);
    expect(await h.runs.claimAttempt('never-claimed', 1, 'cut-off-host:4242')).toBe(false);
  });

  it('fails a stranded slot run no process claimed as a skipped slot once the slot is older than the restart window', async () => {
    const h = harness();
    await h.queuedRun('too-old');
    await h.time.advance(RESTART_WINDOW_MS + SECOND);

    expect(await h.reaper.sweep()).toEqual(['too-old']);
    const s = await h.status('too-old');
    expect(s.status).toBe('failed');
    expect(s.error).toBe(
      `skipped the slot ${isoUtc(START)}: no process ever claimed its run, and the slot is 2m1s old, older than ` +
        'scheduler.failover_recovery_window (2m0s) within which a stranded slot is started again; marked failed',
    );
    expect(h.logger.find('Skipped a slot: its run was never started')).toHaveLength(1);
    expect(await h.queue.find('too-old')).toBeNull();
  });

  it('leaves a claimed run in its queue alone once it starts', async () => {
    const h = harness();
    const s = await h.waitingRun('starts');
    await h.runs.claimAttempt('starts', 1, `${THIS_HOST}:4242`);
    h.alivePids.add(4242);
    expect(await h.reaper.sweep()).toEqual([]);
    await h.time.advance(SECOND);
    await h.runs.writeStatus({
      ...s,
      status: 'running',
      pid: 4242,
      host: THIS_HOST,
      started_at: isoUtc(h.time.nowMs()),
    });
    await h.runs.writeHeartbeat('starts', 1, h.time.nowMs());
    await h.time.advance(STALE_MS);
    expect(await h.reaper.sweep()).toEqual([]);
    expect((await h.status('starts')).status).toBe('running');
  });

  it('leaves a queued run alone while it is young or has a queue item', async () => {
    const h = harness();
    await h.waitingRun('waiting');
    await h.time.advance(STALE_MS + SECOND);
    await h.queuedRun('starting');
    await h.time.advance(STALE_MS - SECOND);

    expect(await h.reaper.sweep()).toEqual([]);
    expect((await h.status('waiting')).status).toBe('queued');
    expect((await h.status('starting')).status).toBe('queued');
  });

  it('asks the dispatch store nothing about an unclaimed queued run that has its queue item', async () => {
    const h = harness();
    await h.waitingRun('waiting');
    await h.time.advance(STALE_MS + SECOND);
    const asked: string[] = [];
    h.onFindTask = async (runId) => {
      asked.push(runId);
    };

    expect(await h.reaper.sweep()).toEqual([]);
    expect(asked).toEqual([]);
    expect((await h.status('waiting')).status).toBe('queued');
  });

  it('lists the queues once per sweep for a backlog of queued runs, rather than looking each run up', async () => {
    const h = harness();
    for (let i = 0; i < 20; i++) {
      await h.waitingRun(`backlog-${i}`);
    }
    await h.time.advance(STALE_MS + SECOND);
    const calls = { find: 0, listAll: 0 };
    const { find, listAll } = h.queue;
    h.queue.find = (runId) => (calls.find++, find.call(h.queue, runId));
    h.queue.listAll = () => (calls.listAll++, listAll.call(h.queue));

    expect(await h.reaper.sweep()).toEqual([]);
    expect(calls).toEqual({ find: 0, listAll: 1 });
    // The next sweep lists them again: an item dequeued since is not taken from the last listing.
    await h.queue.dequeue('etl', 'backlog-3');
    expect(await h.reaper.sweep()).toEqual([]);
    expect(calls.listAll).toBe(2);
    expect(await h.queue.find('backlog-3')).not.toBeNull(); // put back in its queue, as a stranded run is
  });

  it('takes the claim read with the status where the store gives it, with no second read', async () => {
    const h = harness({ releasesClaims: false });
    await h.waitingRun('claimed-elsewhere');
    await h.runs.claimAttempt('claimed-elsewhere', 1, 'other-host:77@2026-11-30T01:15:30.000Z');
    let claimReads = 0;
    const readClaim = h.runs.readClaim.bind(h.runs);
    h.runs.readClaim = (runId, attempt) => (claimReads++, readClaim(runId, attempt));
    Object.assign(h.runs, {
      readStatusAndClaim: async (runId: string) => ({
        read: await h.runs.readStatus(runId),
        claim: await readClaim(runId, 1),
      }),
    });
    expect(await h.reaper.sweep()).toEqual([]);
    await h.time.advance(CLAIM_SILENCE_MS + SECOND);

    // Judged on that claim: a silent claimant on another host, past the budget, so the run fails.
    expect(await h.reaper.sweep()).toEqual(['claimed-elsewhere']);
    expect(claimReads).toBe(0);
  });

  /** Gives the harness's store a batch read (as PostgreSQL's), counting batches and single reads. */
  function withBatchReads(h: ReturnType<typeof harness>, fail = false) {
    const calls = { batches: [] as number[], single: 0 };
    const readStatus = h.runs.readStatus.bind(h.runs);
    const readClaim = h.runs.readClaim.bind(h.runs);
    h.runs.readStatus = (runId) => (calls.single++, readStatus(runId));
    Object.assign(h.runs, {
      readStatusesAndClaims: async (ids: readonly string[]) => {
        calls.batches.push(ids.length);
        if (fail) throw new Error('connection terminated');
        const out = new Map();
        for (const id of ids) {
          const read = await readStatus(id);
          out.set(id, { read, claim: read.kind === 'ok' ? await readClaim(id, read.status.attempt) : null });
        }
        return out;
      },
    });
    return calls;
  }

  it('reads a backlog of queued runs in batches where the store can, with no read per run', async () => {
    const h = harness();
    for (let i = 0; i < SWEEP_BATCH * 2 + 3; i++) {
      await h.waitingRun(`backlog-${i}`);
    }
    // And a run whose process died: still found, and read once more right before it is failed.
    await h.runningRun('dead', THIS_HOST, 4242);
    await h.time.advance(STALE_MS + SECOND);
    const calls = withBatchReads(h);

    expect(await h.reaper.sweep()).toEqual(['dead']);
    expect(calls.batches).toEqual([SWEEP_BATCH, SWEEP_BATCH, 4]);
    expect(calls.single).toBe(1);
    expect((await h.status('dead')).status).toBe('failed');
    expect((await h.status('backlog-0')).status).toBe('queued');
  });

  it('reads each run on its own when a batch read fails, and still finds a dead run', async () => {
    const h = harness();
    await h.waitingRun('waiting');
    await h.runningRun('dead', THIS_HOST, 4242);
    await h.time.advance(STALE_MS + SECOND);
    const calls = withBatchReads(h, true);

    expect(await h.reaper.sweep()).toEqual(['dead']);
    expect(calls.batches).toEqual([2]);
    expect(calls.single).toBe(3);
    expect((await h.status('waiting')).status).toBe('queued');
  });

  /** A backlog of `n` runs waiting in the queue of `etl`, and a log of the statuses the reaper reads. */
  async function backlog(h: ReturnType<typeof harness>, n: number) {
    for (let i = 0; i < n; i++) await h.waitingRun(`backlog-${String(i).padStart(3, '0')}`);
    const items = await h.queue.list('etl');
    const reads: string[] = [];
    const readStatus = h.runs.readStatus.bind(h.runs);
    h.runs.readStatus = (runId) => (reads.push(runId), readStatus(runId));
    return {
      reads,
      head: items.slice(0, QUEUE_HEAD_CHECKED).map((i) => i.run_id),
      last: items[items.length - 1].run_id,
    };
  }

  it('reads each run waiting past the head of its queue at one sweep in a few, spread over them, and the head at every sweep', async () => {
    const h = harness();
    const deep = 60;
    const b = await backlog(h, QUEUE_HEAD_CHECKED + deep);
    await h.time.advance(STALE_MS + SECOND);

    expect(await h.reaper.sweep()).toEqual([]);
    expect(b.reads).toHaveLength(QUEUE_HEAD_CHECKED + deep);
    const deepReads = new Map<string, number>();
    const perSweep: number[] = [];
    for (let sweep = 2; sweep <= QUIET_RECHECK_SWEEPS + 1; sweep++) {
      b.reads.length = 0;
      await h.time.advance(10 * SECOND);
      expect(await h.reaper.sweep()).toEqual([]);
      for (const id of b.head) expect(b.reads).toContain(id);
      const past = b.reads.filter((id) => !b.head.includes(id));
      for (const id of past) deepReads.set(id, (deepReads.get(id) ?? 0) + 1);
      perSweep.push(past.length);
    }
    // Over QUIET_RECHECK_SWEEPS sweeps, each is read once, and no sweep reads them all.
    expect(deepReads.size).toBe(deep);
    expect([...deepReads.values()].every((n) => n === 1)).toBe(true);
    expect(Math.max(...perSweep)).toBeLessThan(deep / 2);
  });

  it('on files, still judges a run past the head of its queue that a process claimed and left silent, a few sweeps later', async () => {
    const h = harness({ releasesClaims: false });
    const b = await backlog(h, QUEUE_HEAD_CHECKED + 5);
    expect(await h.reaper.sweep()).toEqual([]);
    expect(await h.runs.claimAttempt(b.last, 1, 'other-host:4242')).toBe(true);
    b.reads.length = 0;

    // Its claim is first seen at its turn, within QUIET_RECHECK_SWEEPS sweeps.
    let sweeps = 0;
    while (!b.reads.includes(b.last)) {
      expect(++sweeps).toBeLessThanOrEqual(QUIET_RECHECK_SWEEPS);
      await h.time.advance(10 * SECOND);
      expect(await h.reaper.sweep()).toEqual([]);
    }
    // From then on it is read at every sweep, and judged as any claimed run once silent long enough.
    await h.time.advance(CLAIM_SILENCE_MS / 2);
    b.reads.length = 0;
    expect(await h.reaper.sweep()).toEqual([]);
    expect(b.reads).toContain(b.last);
    await h.time.advance(CLAIM_SILENCE_MS / 2 + SECOND);
    expect(await h.reaper.sweep()).toEqual([b.last]);
    expect((await h.status(b.last)).status).toBe('failed');
  });

  it('reads every run again at its first sweep after a time it could not act (standby, fenced)', async () => {
    const h = harness();
    const b = await backlog(h, QUEUE_HEAD_CHECKED + 5);
    expect(await h.reaper.sweep()).toEqual([]);
    h.canDispatch = () => false;
    expect(await h.reaper.sweep()).toEqual([]);
    h.canDispatch = () => true;

    b.reads.length = 0;
    expect(await h.reaper.sweep()).toEqual([]);
    expect(b.reads).toHaveLength(QUEUE_HEAD_CHECKED + 5);
  });

  it('reads a resting run at the next sweep once its queue item is gone', async () => {
    const h = harness();
    const b = await backlog(h, QUEUE_HEAD_CHECKED + 5);
    await h.time.advance(STALE_MS + SECOND);
    expect(await h.reaper.sweep()).toEqual([]);
    await h.queue.dequeue('etl', b.last);

    b.reads.length = 0;
    expect(await h.reaper.sweep()).toEqual([]);
    expect(b.reads).toContain(b.last);
    // Stranded: put back in its queue, as any queued run found with no item.
    expect(await h.queue.find(b.last)).not.toBeNull();
  });

  it('leaves a queued slot run with no queue item to the scheduling loop until its first tick has adopted such runs', async () => {
    const h = harness();
    await h.queuedRun('left-by-a-failed-instance');
    await h.time.advance(STALE_MS + SECOND);
    h.slotAdoptionDone = () => false;
    expect(await h.reaper.sweep()).toEqual([]);
    expect((await h.status('left-by-a-failed-instance')).status).toBe('queued');

    // Then it is a stranded run like any other: back in its queue.
    h.slotAdoptionDone = () => true;
    expect(await h.reaper.sweep()).toEqual([]);
    expect(await h.queue.find('left-by-a-failed-instance')).not.toBeNull();
  });

  it('leaves a queued run alone while this instance is still starting its process (a slow disk)', async () => {
    const h = harness();
    await h.queuedRun('starting-slowly');
    await h.time.advance(STALE_MS + SECOND);
    h.launching.add('starting-slowly');
    expect(await h.reaper.sweep()).toEqual([]);

    h.launching.delete('starting-slowly');
    expect(await h.reaper.sweep()).toEqual([]);
    expect(await h.queue.find('starting-slowly')).not.toBeNull();
  });

  it('does not fail a queued run that was put in the queue while the reaper looked at it', async () => {
    const h = harness();
    await h.queuedRun('adopted');
    await h.time.advance(STALE_MS + SECOND);
    // The scheduling loop adopts the run (queue item) between the reaper's check and its write.
    h.onFindTask = async (runId) => {
      if (!(await h.queue.find(runId)))
        await h.queue.enqueue({ queue: 'etl', run_id: runId, dag_name: 'etl', enqueued_at: isoUtc(START) });
    };

    expect(await h.reaper.sweep()).toEqual([]);
    expect((await h.status('adopted')).status).toBe('queued');
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

  it('fails a dead run whose final status could not be written, saying what it reached and why', async () => {
    const h = harness();
    await h.runningRun('gone', THIS_HOST, 4242);
    await h.runs.recordUnwrittenFinalStatus('gone', 1, { state: 'succeeded', error_code: 'ENOSPC' });
    await h.runningRun('silent', 'other-host', 4343);
    await h.runs.recordUnwrittenFinalStatus('silent', 1, { state: 'failed', error_code: 'EIO' });
    await h.time.advance(STALE_MS + SECOND);

    expect(await h.reaper.sweep()).toEqual(['gone', 'silent']);
    expect((await h.status('gone')).error).toBe(
      `run process 4242 on ${THIS_HOST} ended succeeded, but its final status could not be written (ENOSPC: no space left on device); marked failed`,
    );
    expect((await h.status('silent')).error).toBe(
      'run process 4343 on other-host ended failed, but its final status could not be written (EIO: i/o error); marked failed',
    );
    expect(await h.activeIds()).toEqual([]);
  });

  it('does not fail a run whose final status could not be written while its heartbeat is fresh', async () => {
    const h = harness();
    await h.runningRun('retrying', 'other-host', 4242);
    await h.runs.recordUnwrittenFinalStatus('retrying', 1, { state: 'succeeded', error_code: 'ENOSPC' });
    await h.time.advance(STALE_MS - SECOND);
    expect(await h.reaper.sweep()).toEqual([]);
    expect((await h.status('retrying')).status).toBe('running');
  });

  it('goes on with the other runs when it cannot write one (a full disk), says so once, and fails that one when it can', async () => {
    const h = harness();
    await h.runningRun('a', 'other-host', 1);
    await h.runningRun('b', 'other-host', 2);
    await h.time.advance(STALE_MS + SECOND);
    h.runs.failWrites.set('a', 'ENOSPC');

    expect(await h.reaper.sweep()).toEqual(['b']);
    expect(await h.reaper.sweep()).toEqual([]);
    expect(await h.activeIds()).toEqual(['a']);
    const lines = h.logger.find('Could not check an active run; trying again at the next sweep');
    expect(lines).toHaveLength(1);
    expect(lines[0].fields).toMatchObject({ run_id: 'a', error: 'ENOSPC: cannot write the status' });

    h.runs.failWrites.delete('a');
    expect(await h.reaper.sweep()).toEqual(['a']);
    expect(await h.activeIds()).toEqual([]);
  });

  it('marks active again a running run that lost its marker, then fails it once its heartbeat is stale', async () => {
    const h = harness();
    await h.runningRun('unmarked', 'other-host', 4242);
    // An older version removed the marker although its final status could not be written.
    await h.runs.unmarkActive('unmarked');
    await h.time.advance(STALE_MS + SECOND);

    expect(await h.reaper.sweep()).toEqual([]);
    expect(await h.activeIds()).toEqual(['unmarked']);
    expect(h.logger.find('Marked a run active again')[0].fields).toMatchObject({
      run_id: 'unmarked',
      state: 'running',
    });
    expect(await h.reaper.sweep()).toEqual(['unmarked']);
    expect((await h.status('unmarked')).status).toBe('failed');
  });

  it('looks for runs that lost their marker at the first sweep and then every five minutes only', async () => {
    const h = harness();
    expect(await h.reaper.sweep()).toEqual([]);
    await h.runningRun('later', 'other-host', 4242);
    await h.runs.unmarkActive('later');
    await h.time.advance(UNMARKED_SCAN_INTERVAL_MS - SECOND);
    await h.runs.writeHeartbeat('later', 1, h.time.nowMs());
    expect(await h.reaper.sweep()).toEqual([]);
    expect(await h.activeIds()).toEqual([]);
    await h.time.advance(SECOND);
    expect(await h.reaper.sweep()).toEqual([]);
    expect(await h.activeIds()).toEqual(['later']);
  });

  it('removes run directories left empty by their creator at the first sweep and then every hour', async () => {
    const h = harness();
    h.removeAbandoned = async () => ['20261130-011000-0badc0de'];
    expect(await h.reaper.sweep()).toEqual([]);
    expect(h.abandonedCalls.map((c) => c.olderThanMs)).toEqual([ABANDONED_CREATION_MS]);
    expect(h.logger.find('Removed a run directory its creator left empty')[0].fields).toMatchObject({
      run_id: '20261130-011000-0badc0de',
    });
    await h.time.advance(ABANDONED_SCAN_INTERVAL_MS - SECOND);
    await h.reaper.sweep();
    expect(h.abandonedCalls).toHaveLength(1);
    await h.time.advance(SECOND);
    await h.reaper.sweep();
    expect(h.abandonedCalls).toHaveLength(2);
  });

  it("leaves a slot's run directory to a takeover while its slot may still be replayed", async () => {
    const h = harness();
    await h.reaper.sweep();
    const { mayRemove } = h.abandonedCalls[0];
    const slotId = (slotMs: number) => slotRunId('/data', 'etl', slotMs);
    expect(mayRemove('20261130-011000-0badc0de')).toBe(true);
    expect(mayRemove(slotId(START - RESTART_WINDOW_MS - ABANDONED_CREATION_MS + 60 * SECOND))).toBe(false);
    expect(mayRemove(slotId(START - RESTART_WINDOW_MS - ABANDONED_CREATION_MS - 60 * SECOND))).toBe(true);
  });

  it('says once that abandoned run directories could not be looked for, and tries again at the next sweep', async () => {
    const h = harness();
    h.removeAbandoned = async () => {
      throw new Error('EIO: i/o error, scandir');
    };
    await h.reaper.sweep();
    await h.reaper.sweep();
    expect(h.abandonedCalls).toHaveLength(2);
    expect(h.logger.find('Could not look for run directories left empty')).toHaveLength(1);
    h.removeAbandoned = async () => [];
    await h.reaper.sweep();
    expect(h.abandonedCalls).toHaveLength(3);
    await h.reaper.sweep();
    expect(h.abandonedCalls).toHaveLength(3);
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

describe('ZombieReaper and runs handed to workers', () => {
  it('leaves a queued run that waits in the dispatch store for a worker (held), however old', async () => {
    const h = harness();
    await h.queuedRun('held');
    h.tasks.add('held');
    await h.time.advance(STALE_MS * 5);

    expect(await h.reaper.sweep()).toEqual([]);
    expect((await h.status('held')).status).toBe('queued');
    expect(await h.activeIds()).toEqual(['held']);
  });

  it('leaves a queued run that `dagu start` claimed to hand to the workers while it waits in the dispatch store', async () => {
    const h = harness();
    await h.queuedRun('handed-over');
    await h.runs.claimAttempt('handed-over', 1, `cli-host:777@${isoUtc(h.time.nowMs())}`);
    h.tasks.add('handed-over');
    expect(await h.reaper.sweep()).toEqual([]);
    await h.time.advance(3 * CLAIM_SILENCE_MS);
    expect(await h.reaper.sweep()).toEqual([]);
    expect((await h.status('handed-over')).status).toBe('queued');
  });

  it('leaves a queued run a worker has acknowledged but not yet started', async () => {
    const h = harness();
    const s = await h.queuedRun('acked');
    await h.runs.writeStatus({ ...s, worker_id: 'worker-b', host: 'host-b' });
    await h.time.advance(STALE_MS * 5);

    expect(await h.reaper.sweep()).toEqual([]);
    expect((await h.status('acked')).status).toBe('queued');
  });

  it('still acts on a queued run that has neither a queue item, a task nor a worker', async () => {
    const h = harness();
    await h.queuedRun('orphan');
    await h.queuedRun('held');
    h.tasks.add('held');
    await h.time.advance(STALE_MS + SECOND);

    expect(await h.reaper.sweep()).toEqual([]);
    expect(await h.queue.find('orphan')).not.toBeNull();
    expect(await h.queue.find('held')).toBeNull();
    expect((await h.status('held')).status).toBe('queued');
  });

  it('judges a running run on a worker by its relayed heartbeat, never by a local pid', async () => {
    const h = harness();
    // The worker's pid and host happen to look like a dead process of this host.
    await h.runningRun('remote', THIS_HOST, 4242);
    await h.runs.writeStatus({ ...(await h.status('remote')), worker_id: 'worker-b' });
    await h.time.advance(STALE_MS - SECOND);
    await h.runs.writeHeartbeat('remote', 1, h.time.nowMs());

    expect(await h.reaper.sweep()).toEqual([]);
    expect((await h.status('remote')).status).toBe('running');
    expect(h.pidChecks).toEqual([]);
  });

  it('fails a running run on a worker once the coordinator stops relaying its heartbeat, naming the worker', async () => {
    const h = harness();
    await h.runningRun('remote', 'host-b', 4242);
    await h.runs.writeStatus({ ...(await h.status('remote')), worker_id: 'worker-b' });
    await h.time.advance(STALE_MS + 5 * SECOND);

    expect(await h.reaper.sweep()).toEqual(['remote']);
    const s = await h.status('remote');
    expect(s.status).toBe('failed');
    expect(s.error).toMatch(/^run on worker worker-b stopped heartbeating 1m5s ago/);
    expect(h.pidChecks).toEqual([]);
  });
});
