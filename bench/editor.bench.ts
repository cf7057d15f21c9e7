// Issue-17 figures for the DAG editor on real `bin/dagu` processes: how fast the server checks and saves a
// 20-step DAG (the editor checks after each pause in typing), and the time from a save through the API to the
// scheduler's first run of the saved schedule ("visible to the scheduler at its next tick").
// Run: npm run bench -- editor [--quick]

import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { FileRunStore } from '../server/store/fileRunStore';
import { check, finish, freePort, percentile, startTracked, tempHome, waitHttp } from './lib';

const QUICK = process.argv.includes('--quick');
const live = new Set<ChildProcess>();

/** A 20-step chain; `tag` changes the commands so each save is a real change. */
function twentySteps(tag: string, schedule = ''): string {
  const steps = Array.from({ length: 20 }, (_, i) => `  - name: s${i}\n    run: echo ${tag} ${i}\n`).join('');
  return `${schedule}type: chain\nsteps:\n${steps}`;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each caller reads the answer it expects
async function post(base: string, p: string, body: unknown): Promise<{ status: number; body: any }> {
  const r = await fetch(`${base}${p}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: base },
    body: JSON.stringify(body),
  });
  return { status: r.status, body: await r.json() };
}

async function main() {
  const h = tempHome({ DAGU_LOG_LEVEL: 'warn' });
  try {
    h.writeDag('edited', twentySteps('v0'));
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    startTracked(['server', '--host', '127.0.0.1', '--port', String(port)], h.env, live);
    const scheduler = startTracked(['scheduler'], h.env, live);
    await waitHttp(`${base}/api/v1/health`, 60_000);

    const rounds = QUICK ? 20 : 100;
    let version = (await (await fetch(`${base}/api/v1/dags/edited/spec`)).json()).version as string;
    const checks: number[] = [];
    const saves: number[] = [];
    for (let i = 1; i <= rounds; i++) {
      const text = twentySteps(`v${i}`);
      let t = performance.now();
      const c = await post(base, '/api/v1/dags/edited/validate', { yaml: text });
      checks.push(performance.now() - t);
      if (!c.body.valid) throw new Error(`not valid: ${JSON.stringify(c.body.errors)}`);
      t = performance.now();
      const s = await post(base, '/api/v1/dags/edited/spec', { yaml: text, base_version: version });
      saves.push(performance.now() - t);
      if (s.status !== 200) throw new Error(`save answered ${s.status}: ${JSON.stringify(s.body)}`);
      version = s.body.version;
    }
    check('check a 20-step DAG (validate), p99', percentile(checks, 99), 'ms', {
      max: 100,
      why: 'the editor checks after each pause in typing',
    });
    check('save a 20-step DAG (check + atomic write), p99', percentile(saves, 99), 'ms', { max: 150 });

    // From the save's answer to the first run of the new schedule: the scheduler sleeps at most 5 s without a
    // due slot, then reloads the changed file, and the next */2-second slot follows within 2 s.
    const store = new FileRunStore({ dataDir: path.join(h.home, 'data'), logDir: path.join(h.home, 'logs') });
    const saved = await post(base, '/api/v1/dags/edited/spec', {
      yaml: twentySteps('scheduled', 'schedule: "*/2 * * * * *"\n'),
      base_version: version,
    });
    if (saved.status !== 200) throw new Error(`save answered ${saved.status}`);
    const savedAt = Date.now();
    let firstRunMs = NaN;
    while (Date.now() - savedAt < 20_000) {
      const runs = (await store.listRuns({ dag: 'edited', limit: 5 })).items;
      if (runs.some((r) => r.trigger_type === 'scheduler')) {
        firstRunMs = Date.now() - savedAt;
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    check('save to the first scheduled run of the new text', firstRunMs, 'ms', {
      max: 7_000,
      why: 'the next tick: at most 5 s idle, then the next 2 s slot',
    });
    // Stop scheduling, then let the runs already started end before the home is removed.
    const exited = new Promise((r) => scheduler.child.once('exit', r));
    scheduler.child.kill('SIGTERM');
    await exited;
    const { items } = await store.listRuns({ dag: 'edited', limit: 50 });
    for (const run of items) {
      for (let i = 0; i < 200; i++) {
        const r = await store.readStatus(run.run_id);
        if (r.kind !== 'ok' || !['queued', 'running'].includes(r.status.status)) break;
        await new Promise((res) => setTimeout(res, 50));
      }
    }
  } finally {
    for (const child of live) child.kill('SIGKILL');
    h.cleanup();
  }
  finish();
}

await main();
