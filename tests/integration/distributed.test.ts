// Held dispatch on real processes (issue 4, seed 002): a coordinator, labelled workers and `dagu start` of a
// DAG with a worker_selector, through the real binary, on both storage backends.

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TERMINAL_RUN_STATES, type RunStatus } from '../../server/core/types';
import { BACKENDS, useBackend } from './backends';
import { Cluster, selectorDag, TIMINGS } from './distributedCluster';
import { dagu, eventually, startService, waitForLog } from './harness';
import { startSmtpSink } from '../support/smtpSink';

let cluster: Cluster | null = null;
afterEach(async () => {
  await cluster?.cleanup();
  cluster = null;
});

const ended = (s: RunStatus) => TERMINAL_RUN_STATES.includes(s.status);

describe.each(BACKENDS)('on the %s backend', (name) => {
  const backend = useBackend(name);

  async function newCluster(env: Record<string, string> = {}): Promise<Cluster> {
    cluster = await Cluster.create(backend, env);
    return cluster;
  }

  describe('distributed dispatch', () => {
    it('holds a zone-b run as queued while only a zone-a worker is up, then runs it on worker-b when it registers', async () => {
      const c = await newCluster();
      c.h.writeDag('zb', selectorDag({ zone: 'b' }, 'echo "hello from $DAG_RUN_ID"'));
      await c.startCoordinator();
      await c.startWorker('worker-a', { zone: 'a' });

      const r = await c.dispatch('zb', 'held1');
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('Holding held1: no healthy worker matches {zone: b}; waiting up to 2m0s');

      const held = await c.waitRun('held1', (s) => s.status === 'queued');
      expect(held.worker_id).toBeNull();
      expect(held.worker_selector).toEqual({ zone: 'b' });
      const ready = held.conditions.find((x) => x.type === 'WorkerReady');
      expect(ready).toMatchObject({ status: 'False', reason: 'NoMatchingWorker' });
      expect(ready!.message).toContain('{zone: b}');
      expect(held.conditions.find((x) => x.type === 'Runnable')).toMatchObject({ status: 'False' });
      expect(await c.taskOf('held1')).not.toBeNull();

      // The zone-a worker keeps polling and never takes it.
      await c.heartbeats('worker-a', 3);
      expect((await c.status('held1'))!.status).toBe('queued');

      await c.startWorker('worker-b', { zone: 'b' });
      const done = await c.waitRun('held1', ended);
      expect(done.status).toBe('succeeded');
      expect(done.worker_id).toBe('worker-b');
      expect(done.conditions).toEqual([]);
      expect(await c.taskOf('held1')).toBeNull();
      // The step log was shipped to the coordinator, which keeps it with the run; the step's path names it in
      // the run's log directory.
      const stdout = done.steps[0].stdout!;
      expect(stdout.startsWith(`${done.log_dir}/`)).toBe(true);
      const text = await eventually(async () => {
        const t = await c.stepStdout(done);
        return t.includes('hello from held1') ? t : null;
      }, 20_000);
      expect(text.trim()).toBe('hello from held1');
      expect(c.worker('worker-a').output()).not.toContain('held1');
    });

    it('fails a held run naming the selector when its 2s wait passes, and drops its task', async () => {
      const c = await newCluster({ DAGU_COORDINATOR_WORKER_WAIT_TIMEOUT: '2s' });
      c.h.writeDag('zb', selectorDag({ zone: 'b' }, 'echo never'));
      await c.startCoordinator();
      await c.startWorker('worker-a', { zone: 'a' });

      const r = await c.dispatch('zb', 'expire1');
      expect(r.stdout).toContain('waiting up to 2s');
      expect(await c.taskOf('expire1')).not.toBeNull();
      const failed = await c.waitRun('expire1', ended, 30_000);

      expect(failed.status).toBe('failed');
      expect(failed.error).toBe('no worker matched the selector {zone: b} within 2s');
      expect(failed.worker_id).toBeNull();
      // Failed after the wait, at most one detection interval late, on the run's own time stamps.
      const heldMs = Date.parse(failed.finished_at!) - Date.parse(failed.created_at);
      expect(heldMs).toBeGreaterThanOrEqual(2000);
      expect(heldMs).toBeLessThanOrEqual(2000 + TIMINGS.detectionMs + TIMINGS.slackMs);
      await eventually(async () => (await c.taskOf('expire1')) === null, 20_000);
      expect(await c.taskIds('pending')).toEqual([]);
    });

    it('fails the run of a worker killed mid-run, naming the worker, within the stale threshold and a detection interval', async () => {
      const c = await newCluster();
      c.h.writeDag('slow', selectorDag({ zone: 'b' }, 'sleep 30'));
      await c.startCoordinator();
      await c.startWorker('worker-b', { zone: 'b' });

      expect((await c.dispatch('slow', 'victim1')).code).toBe(0);
      await c.waitRun('victim1', (s) => s.status === 'running' && s.worker_id === 'worker-b');
      const killedAt = Date.now();
      await c.killWorker('worker-b');

      const failed = await c.waitRun('victim1', ended, 30_000);
      expect(failed.status).toBe('failed');
      expect(failed.error).toMatch(/^worker worker-b stopped heartbeating \d+s ago; marked failed$/);
      // The coordinator wrote the failure (its finished_at) within the threshold and a detection interval.
      const failedAfterMs = Date.parse(failed.finished_at!) - killedAt;
      expect(failedAfterMs).toBeLessThanOrEqual(TIMINGS.staleMs + TIMINGS.detectionMs + TIMINGS.slackMs);
    });

    it('keeps a hold across a coordinator restart and runs it on a worker that registers afterwards', async () => {
      const c = await newCluster();
      c.h.writeDag('zb', selectorDag({ zone: 'b' }, 'echo survived'));
      await c.startCoordinator();
      await c.startWorker('worker-a', { zone: 'a' });
      expect((await c.dispatch('zb', 'restart1')).code).toBe(0);
      await c.waitRun('restart1', (s) => s.status === 'queued');
      const task = await c.taskOf('restart1');
      expect(task).not.toBeNull();

      await c.killCoordinator();
      await c.startCoordinator();
      // A few detector passes of the new coordinator leave the hold alone.
      await c.heartbeats('worker-a', 3);
      expect(await c.taskOf('restart1')).toBe(task);
      expect((await c.status('restart1'))!.status).toBe('queued');

      await c.startWorker('worker-b', { zone: 'b' });
      const done = await c.waitRun('restart1', ended);
      expect(done.status).toBe('succeeded');
      expect(done.worker_id).toBe('worker-b');
      expect(await c.taskOf('restart1')).toBeNull();
    });

    it('a run on a worker finishes across a coordinator restart, and its final status and log land', async () => {
      const c = await newCluster();
      c.h.writeDag('zb', selectorDag({ zone: 'b' }, 'echo first; sleep 2; echo second'));
      await c.startCoordinator();
      await c.startWorker('worker-b', { zone: 'b' });
      expect((await c.dispatch('zb', 'through1')).code).toBe(0);
      await c.waitRun('through1', (s) => s.status === 'running');

      await c.killCoordinator();
      await c.startCoordinator();
      const done = await c.waitRun('through1', ended);
      expect(done).toMatchObject({ status: 'succeeded', worker_id: 'worker-b', error: null });
      const log = await eventually(async () => {
        const t = await c.stepStdout(done);
        return t.includes('second') ? t : null;
      }, 20_000);
      expect(log).toBe('first\nsecond\n');
    });

    it("a run on a worker reads its secrets from the worker's environment and masks them in its logs and status", async () => {
      const c = await newCluster();
      const secret = 'worker-only-secret-81c3';
      c.h.writeDag(
        'zsecret',
        [
          'worker_selector:',
          '  zone: b',
          'secrets:',
          '  - name: TOKEN',
          '    provider: env',
          '    key: WORKER_SECRET_SOURCE',
          'steps:',
          '  - name: s',
          '    run: echo "token ${TOKEN}"',
          '    output: OUT',
          '',
        ].join('\n'),
      );
      await c.startCoordinator();
      await c.startWorker('worker-b', { zone: 'b' }, { env: { WORKER_SECRET_SOURCE: secret } });
      const started = await c.dispatch('zsecret', 'secret1');
      expect(started.code, started.stderr).toBe(0);
      expect(started.stdout + started.stderr).not.toContain(secret);
      const done = await c.waitRun('secret1', ended);
      expect(done).toMatchObject({ status: 'succeeded', worker_id: 'worker-b' });
      expect(done.steps[0].output).toEqual({ OUT: 'token *******' });
      expect(JSON.stringify(done)).not.toContain(secret);
      const log = await eventually(async () => {
        const t = await c.stepStdout(done);
        return t.includes('token') ? t : null;
      }, 20_000);
      expect(log).toBe('token *******\n');
    });

    it('aborts a cancelled held run and drops its task, so a worker that registers afterwards never starts it', async () => {
      const c = await newCluster();
      c.h.writeDag('zb', selectorDag({ zone: 'b' }, 'echo must-not-run'));
      await c.startCoordinator();
      expect((await c.dispatch('zb', 'cancel1')).code).toBe(0);
      const held = await c.waitRun('cancel1', (s) => s.status === 'queued');
      expect(held.conditions.find((x) => x.type === 'WorkerReady')).toMatchObject({
        reason: 'NoAvailableWorker',
      });

      const stop = await dagu(['stop', 'cancel1'], c.env);
      expect(stop.code, stop.stderr).toBe(0);
      expect(stop.stdout).toContain('Cancelled cancel1 before a worker took it');
      const aborted = await c.waitRun('cancel1', ended, 20_000);
      expect(aborted.status).toBe('aborted');
      expect(aborted.error).toBe('cancelled before a worker took it');
      expect(await c.taskOf('cancel1')).toBeNull();

      const w = await c.startWorker('worker-b', { zone: 'b' });
      await c.heartbeats('worker-b', 5);
      const after = (await c.status('cancel1'))!;
      expect(after.status).toBe('aborted');
      expect(after.worker_id).toBeNull();
      expect(after.steps[0].status).not.toBe('succeeded');
      expect((await c.workerRecord('worker-b'))!.running).toEqual([]);
      expect(w.output()).not.toContain('Running task');
      expect(await c.taskIds('pending')).toEqual([]);
      expect(await c.taskIds('claims')).toEqual([]);
    });

    it('a worker stopped with SIGTERM leaves the worker list at once; a killed one after coordinator.worker_retention', async () => {
      const c = await newCluster({ DAGU_COORDINATOR_WORKER_RETENTION: '3s' });
      await c.startCoordinator();
      await c.startWorker('leaving', { zone: 'a' });
      await c.startWorker('killed', { zone: 'a' });
      await c.startWorker('staying', { zone: 'a' });
      const listed = async () => {
        const r = await fetch(`${c.url}/api/v1/workers`);
        const body = (await r.json()) as { workers: Array<{ worker_id: string }> };
        return body.workers.map((w) => w.worker_id);
      };
      expect(await listed()).toEqual(['killed', 'leaving', 'staying']);

      const stoppedAt = Date.now();
      expect(await c.worker('leaving').stop('SIGTERM')).toBe(0);
      expect(await c.workerRecord('leaving')).toBeNull();
      expect(await listed()).toEqual(['killed', 'staying']);
      const left = await waitForLog(c.coordinator!, /^A worker left; removed its record$/);
      expect(left.fields.worker_id).toBe('leaving');
      expect(left.timeMs - stoppedAt).toBeLessThanOrEqual(TIMINGS.slackMs);

      await c.killWorker('killed');
      const removed = await waitForLog(
        c.coordinator!,
        /^Removed the record of a worker silent for longer than coordinator.worker_retention$/,
      );
      expect(removed.fields.worker_id).toBe('killed');
      // Not before the retention: the record stays listed (as unhealthy) until its last heartbeat is 3s old.
      expect(removed.timeMs - Date.parse(String(removed.fields.last_heartbeat))).toBeGreaterThan(3000);
      expect(await listed()).toEqual(['staying']);
    });

    it('refuses requests without the token with a 401 JSON body, answers /health without it, and registers only a worker with the token', async () => {
      const c = await newCluster({ DAGU_COORDINATOR_TOKEN: 's3cret-token' });
      await c.startCoordinator();

      const health = await fetch(`${c.url}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'healthy' });

      for (const headers of [{}, { Authorization: 'Bearer wrong' }] as Array<Record<string, string>>) {
        const r = await fetch(`${c.url}/api/v1/workers`, { headers });
        expect(r.status).toBe(401);
        expect(r.headers.get('content-type')).toMatch(/application\/json/);
        const body = (await r.json()) as { error: { code: string; message: string } };
        expect(body.error.code).toBe('unauthorized');
        expect(body.error.message).toMatch(/bearer token/);
      }
      const ok = await fetch(`${c.url}/api/v1/workers`, {
        headers: { Authorization: 'Bearer s3cret-token' },
      });
      expect(ok.status).toBe(200);

      const anon = await c.startWorker('anon', { zone: 'b' }, { withoutToken: true, waitRegistered: false });
      await anon.waitFor(/requires a token/);
      expect(anon.output()).toMatch(/Coordinator refused the heartbeat/);
      expect(await c.workerRecord('anon')).toBeNull();

      await c.startWorker('trusted', { zone: 'b' });
      expect((await c.workerRecord('trusted'))!.labels).toEqual({ zone: 'b' });
      expect(await c.workerRecord('anon')).toBeNull();
    });

    it('refuses at once with a wait timeout of 0 when no worker matches, leaving no run behind', async () => {
      const c = await newCluster({ DAGU_COORDINATOR_WORKER_WAIT_TIMEOUT: '0' });
      c.h.writeDag('zb', selectorDag({ zone: 'b' }, 'echo never'));
      await c.startCoordinator();
      await c.startWorker('worker-a', { zone: 'a' });

      const r = await dagu(['start', '--run-id', 'refused1', 'zb'], c.env);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('no worker matches the selector {zone: b}');
      expect(await c.status('refused1')).toBeNull();
      const st = await dagu(['status', '--json', 'refused1'], c.env);
      expect(st.code).not.toBe(0);
      expect(await c.taskIds('pending')).toEqual([]);
    });
  });

  describe('other dispatch paths', () => {
    it('a call: step whose child has its own selector runs the child on a matching worker, and the parent waits for it', async () => {
      const c = await newCluster();
      c.h.writeDag('child', selectorDag({ zone: 'b' }, 'echo "child got $1"'));
      c.h.writeDag(
        'parent',
        'type: chain\nsteps:\n  - name: before\n    command: "true"\n  - name: call-child\n    call: child\n    params: "hello"\n',
      );
      await c.startCoordinator();
      await c.startWorker('worker-b', { zone: 'b' });

      const r = await dagu(['start', '--run-id', 'parent1', 'parent'], c.env);
      expect(r.code, `${r.stdout}\n${r.stderr}\n${c.outputs()}`).toBe(0);
      const parent = (await c.status('parent1'))!;
      expect(parent.status).toBe('succeeded');
      expect(parent.steps.map((s) => s.status)).toEqual(['succeeded', 'succeeded']);
      const runs = await (await c.plane()).runs.listRuns({ dag: 'child', limit: 10 });
      expect(runs.items).toHaveLength(1);
      const child = (await c.status(runs.items[0].run_id))!;
      expect(child).toMatchObject({ status: 'succeeded', trigger_type: 'subdag', worker_id: 'worker-b' });
      const log = await eventually(async () => {
        const t = await c.stepStdout(child);
        return t.includes('child got hello') ? t : null;
      }, 20_000);
      expect(log).toContain('child got hello');
    });

    it('retry --sub-run-id retries a step of a child on a worker, and of its own child on a worker, in place', async () => {
      const c = await newCluster();
      const count = path.join(c.h.home, 'count');
      const ok = path.join(c.h.home, 'ok');
      // root (here) -> mid (worker-b) -> leaf (worker-b); leaf's build fails until the file `ok` exists.
      c.h.writeDag(
        'root',
        'type: chain\nsteps:\n  - name: pre\n    command: "true"\n  - name: go\n    call: mid\n' +
          '  - name: after\n    command: "true"\n',
      );
      c.h.writeDag(
        'mid',
        'worker_selector:\n  zone: b\ntype: chain\nsteps:\n  - name: first\n    command: "true"\n' +
          '  - name: deep\n    call: leaf\n  - name: tail\n    command: "true"\n',
      );
      c.h.writeDag(
        'leaf',
        'worker_selector:\n  zone: b\ntype: chain\nsteps:\n' +
          `  - name: build\n    command: sh -c 'echo x >> ${count} && test -f ${ok}'\n` +
          '  - name: pack\n    command: "true"\n',
      );
      await c.startCoordinator();
      await c.startWorker('worker-b', { zone: 'b' });

      const first = await dagu(['start', '--run-id', 'root1', 'root'], c.env);
      expect(first.code, `${first.stdout}\n${first.stderr}\n${c.outputs()}`).toBe(1);
      const midId = (await c.status('root1'))!.steps[1].sub_runs![0].run_id;
      const mid1 = (await c.status(midId))!;
      expect(mid1).toMatchObject({ status: 'failed', worker_id: 'worker-b' });
      // A child on a worker names its call step, as a local child does.
      expect(mid1.parent).toEqual({ run_id: 'root1', dag_name: 'root', step: 'go' });
      const leafId = mid1.steps[1].sub_runs![0].run_id;
      expect((await c.status(leafId))!.parent).toEqual({ run_id: midId, dag_name: 'mid', step: 'deep' });

      writeFileSync(ok, '');
      const retried = await dagu(
        ['retry', '--run-id', 'root1', '--sub-run-id', leafId, '--step', 'build', 'root'],
        c.env,
      );
      expect(retried.code, `${retried.stdout}\n${retried.stderr}\n${c.outputs()}`).toBe(0);
      const root = (await c.status('root1'))!;
      expect(root.steps.map((s) => [s.name, s.status])).toEqual([
        ['pre', 'succeeded'],
        ['go', 'succeeded'],
        ['after', 'aborted'],
      ]);
      // Each level got a new attempt on the worker, under the same run ID and parent, running only the step
      // on the path; the steps after it were not run again.
      const mid = (await c.status(midId))!;
      expect(mid).toMatchObject({ attempt: 2, status: 'succeeded', worker_id: 'worker-b' });
      expect(mid.parent).toEqual(mid1.parent);
      expect(mid.steps.map((s) => [s.name, s.status])).toEqual([
        ['first', 'succeeded'],
        ['deep', 'succeeded'],
        ['tail', 'aborted'],
      ]);
      expect(mid.steps[1].sub_runs!.map((r) => r.run_id)).toEqual([leafId]);
      const leaf = (await c.status(leafId))!;
      expect(leaf).toMatchObject({ attempt: 2, status: 'succeeded', worker_id: 'worker-b' });
      expect(leaf.steps.map((s) => [s.name, s.status])).toEqual([
        ['build', 'succeeded'],
        ['pack', 'aborted'],
      ]);
      // build ran once in each attempt, and nothing else started a leaf or a mid.
      expect(readFileSync(count, 'utf8').trim().split('\n')).toHaveLength(2);
      const plane = await c.plane();
      expect((await plane.runs.listRuns({ dag: 'leaf', limit: 10 })).items).toHaveLength(1);
      expect((await plane.runs.listRuns({ dag: 'mid', limit: 10 })).items).toHaveLength(1);
    });

    it("state steps on a worker reach the backend's store through the coordinator, in the root DAG's namespace", async () => {
      const c = await newCluster();
      c.h.writeDag(
        'stchild',
        [
          'worker_selector:',
          '  zone: b',
          'type: chain',
          'steps:',
          '  - id: put',
          '    action: state.set',
          '    with: { scope: root_dag, key: handoff, value: { from: child } }',
          '  - id: stale',
          '    action: state.set',
          '    with: { key: guarded, value: 1, expected_version: 3 }',
          '    continue_on: { failure: true }',
          '',
        ].join('\n'),
      );
      c.h.writeDag(
        'stparent',
        [
          'type: chain',
          'steps:',
          '  - name: call-child',
          '    call: stchild',
          '  - id: read',
          '    action: state.get',
          '    with: { scope: root_dag, key: handoff, required: true }',
          '',
        ].join('\n'),
      );
      await c.startCoordinator();
      await c.startWorker('worker-b', { zone: 'b' });

      // The child partially succeeds (its refused write continues on failure), and so does the parent; no
      // step of the parent failed, so `dagu start` exits 0, as Dagu's does.
      const r = await dagu(['start', '--run-id', 'stp1', 'stparent'], c.env);
      expect(r.code, `${r.stdout}\n${r.stderr}\n${c.outputs()}`).toBe(0);
      const parent = (await c.status('stp1'))!;
      expect(parent.status).toBe('partially_succeeded');
      expect(parent.steps[1].status).toBe('succeeded');
      // The parent, on this host, reads what its child wrote on the worker: one store, one namespace.
      const read = await c.stepStdout(parent, 1);
      expect(read).toContain('"namespace":"stparent"');
      expect(read).toContain('"from":"child"');
      const runs = await (await c.plane()).runs.listRuns({ dag: 'stchild', limit: 10 });
      const child = (await c.status(runs.items[0].run_id))!;
      expect(child).toMatchObject({ status: 'partially_succeeded', worker_id: 'worker-b' });
      // The store's refusal comes back as the step's failure, in the store's own words.
      expect(child.steps[1]).toMatchObject({ status: 'failed' });
      expect(JSON.stringify(child.steps[1])).toContain(
        'state: version conflict on dag/stchild/guarded: expected version 3, but there is none',
      );
    });

    it('a human task on a worker: the run waits, the completion resumes it on a worker with the input', async () => {
      const c = await newCluster();
      c.h.writeDag(
        'htw',
        [
          'worker_selector:',
          '  zone: b',
          'steps:',
          '  - id: review',
          '    action: human.task',
          '    with:',
          '      prompt: Ship ${DAG_RUN_ID}?',
          '      form:',
          '        type: object',
          '        properties:',
          '          target: { type: string }',
          '        required: [target]',
          '  - id: ship',
          '    depends: review',
          '    run: echo "shipping to ${steps.review.outputs.target}"',
          '',
        ].join('\n'),
      );
      await c.startCoordinator();
      await c.startWorker('worker-b', { zone: 'b' });

      const r = await dagu(['start', '--run-id', 'htw1', 'htw'], c.env);
      expect(r.code, `${r.stdout}\n${r.stderr}\n${c.outputs()}`).toBe(0);
      const waiting = (await c.status('htw1'))!;
      expect(waiting).toMatchObject({ status: 'waiting', worker_id: 'worker-b' });
      expect(waiting.steps.map((s) => s.status)).toEqual(['waiting', 'not_started']);
      // What the worker recorded of the task reached the stored run: the completion checks against it.
      expect(waiting.steps[0].human_task).toMatchObject({ id: 'review', prompt: 'Ship htw1?' });

      const done = await dagu(
        ['human-task', 'complete', '--run-id', 'htw1', '--step', 'review', '--input', 'target=prod', 'htw'],
        c.env,
      );
      expect(done.code, `${done.stdout}\n${done.stderr}`).toBe(0);
      const resumed = await c.waitRun('htw1', (s) => s.attempt === 2 && ended(s));
      expect(resumed).toMatchObject({ status: 'succeeded', worker_id: 'worker-b' });
      expect(resumed.steps[0]).toMatchObject({ status: 'succeeded', outputs: { target: 'prod' } });
      const log = await eventually(async () => {
        const t = await c.stepStdout(resumed, 1);
        return t.includes('shipping') ? t : null;
      }, 20_000);
      expect(log).toContain('shipping to prod');
    });

    it("a run on a worker sends its mail_on notification from the worker, with the worker's logs attached", async () => {
      const c = await newCluster();
      const sink = await startSmtpSink();
      try {
        c.h.writeDag(
          'mailw',
          [
            'worker_selector:',
            '  zone: b',
            'smtp:',
            '  host: 127.0.0.1',
            `  port: "${sink.port}"`,
            'mail_on: { failure: true }',
            'error_mail: { from: dagu@example.com, to: ops@example.com, prefix: "[w]", attach_logs: true }',
            'steps:',
            '  - name: s',
            '    run: echo worker-side-output-7f2; exit 4',
            '',
          ].join('\n'),
        );
        await c.startCoordinator();
        await c.startWorker('worker-b', { zone: 'b' });
        const r = await dagu(['start', '--run-id', 'mw1', 'mailw'], c.env);
        expect(r.code, `${r.stdout}\n${r.stderr}\n${c.outputs()}`).toBe(1);
        const [mail] = await sink.waitForMessages(1, 20_000);
        expect(mail.subject).toBe('[w] mailw (failed)');
        expect(mail.to).toEqual(['ops@example.com']);
        const out = mail.attachments.find((a) => a.filename === 's.out');
        expect(out?.content.toString()).toBe('worker-side-output-7f2\n');
      } finally {
        await sink.close();
      }
    });

    it("a run on a worker keeps its artifacts in the backend's store, where the API lists and serves them", async () => {
      const c = await newCluster();
      c.h.writeDag(
        'artw',
        [
          'worker_selector:',
          '  zone: b',
          'steps:',
          '  - id: write',
          '    action: artifact.write',
          '    with: { path: reports/summary.md, content: "# done on the worker" }',
          '  - id: streamed',
          '    depends: write',
          '    run: echo streamed-line',
          '    stdout: { artifact: logs/streamed.txt }',
          '',
        ].join('\n'),
      );
      await c.startCoordinator();
      await c.startWorker('worker-b', { zone: 'b' });
      const r = await dagu(['start', '--run-id', 'aw1', 'artw'], c.env);
      expect(r.code, `${r.stdout}\n${r.stderr}\n${c.outputs()}`).toBe(0);
      const store = (await c.plane()).artifacts;
      expect(await store.list('aw1')).toEqual([
        { path: 'logs/streamed.txt', size: 'streamed-line\n'.length },
        { path: 'reports/summary.md', size: '# done on the worker'.length },
      ]);
      const text = (p: string) => store.read('aw1', p).then((b) => Buffer.from(b!).toString());
      expect(await text('reports/summary.md')).toBe('# done on the worker');
      expect(await text('logs/streamed.txt')).toBe('streamed-line\n');
    });

    it('a DAG-level retry_policy: the scheduler retries a run that failed on a worker as its next attempt', async () => {
      const c = await newCluster();
      const marker = path.join(c.h.home, 'retry-marker');
      c.h.writeDag(
        'flaky',
        [
          'worker_selector:',
          '  zone: b',
          'retry_policy:',
          '  limit: 1',
          '  interval_sec: 0',
          'steps:',
          '  - name: once',
          '    script: |',
          `      if [ -f "${marker}" ]; then echo second try; else touch "${marker}"; exit 1; fi`,
          '',
        ].join('\n'),
      );
      await c.startCoordinator();
      await c.startWorker('worker-b', { zone: 'b' });
      // The active scheduler dispatches the retry once the first attempt has failed on the worker.
      expect((await c.dispatch('flaky', 'flaky1')).code).toBe(0);
      const scheduler = startService(['scheduler'], { ...c.env, DAGU_SCHEDULER_PORT: '0' });
      try {
        const done = await c.waitRun('flaky1', (s) => s.attempt === 2 && ended(s));
        expect(done).toMatchObject({
          status: 'succeeded',
          trigger_type: 'retry',
          worker_id: 'worker-b',
          auto_retry_count: 1,
        });
      } finally {
        await scheduler.stop('SIGKILL');
      }
    });

    it('the scheduler keeps a queued run of a DAG with a selector queued with the waiting conditions, then hands it to a worker', async () => {
      const c = await newCluster({ DAGU_SCHEDULER_PORT: '0' });
      c.h.writeDag('zq', selectorDag({ zone: 'q' }, 'echo queued-run'));
      await c.startCoordinator();
      const scheduler = startService(['scheduler'], c.env);
      try {
        const q = await dagu(['enqueue', '--run-id', 'queued1', 'zq'], c.env);
        expect(q.code, q.stderr).toBe(0);
        const waiting = await c.waitRun('queued1', (s) =>
          s.conditions.some((x) => x.type === 'WorkerReady' && x.reason === 'NoAvailableWorker'),
        );
        expect(waiting.status).toBe('queued');
        // The queue holds it, not a dispatch task: no hold, no deadline.
        expect(await c.taskOf('queued1')).toBeNull();

        await c.startWorker('worker-q', { zone: 'q' });
        const done = await c.waitRun('queued1', ended);
        expect(done).toMatchObject({ status: 'succeeded', worker_id: 'worker-q', conditions: [] });
      } finally {
        await scheduler.stop('SIGKILL');
      }
    });
  });
});
