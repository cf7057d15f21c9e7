// The per-DAG run metrics against the real processes: runs finished by `dagu start` show in every server's
// /metrics, a restarted server goes on from its checkpoint, the exposition passes `promtool check metrics`
// and the shipped rules `promtool check rules` (Debian's prometheus package has promtool; CI installs it).

import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  dagu,
  eventually,
  freePort,
  ROOT,
  startService,
  tempHome,
  type Service,
  type TempHome,
} from './harness';

const PROMTOOL = 'promtool';

let h: TempHome;
let services: Service[] = [];
beforeEach(() => {
  h = tempHome();
  services = [];
});
afterEach(async () => {
  await Promise.all(services.map((s) => s.stop('SIGKILL')));
  h.cleanup();
});

async function server(): Promise<{ svc: Service; scrape: () => Promise<string> }> {
  const port = await freePort();
  const svc = startService(['server', '--port', String(port)], h.env);
  services.push(svc);
  const scrape = async () => {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(10_000) });
    if (!res.ok) throw new Error(`/metrics: ${res.status}`);
    return res.text();
  };
  await eventually(scrape, 90_000, 250).catch((err: Error) => {
    throw new Error(`${err.message}\nserver output:\n${svc.output()}`);
  });
  return { svc, scrape };
}

/** The value of one series line of an exposition, or null without one. */
function value(text: string, series: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? null : Number(line.slice(series.length + 1));
}

function promtool(args: string[], input?: string) {
  const r = spawnSync(PROMTOOL, args, { input, encoding: 'utf8', cwd: ROOT, timeout: 60_000 });
  if (r.error) throw r.error;
  return r;
}

describe('per-DAG run metrics', () => {
  it('count finished runs on every server, survive a restart, and pass promtool', async () => {
    h.writeDag('ok', 'steps:\n  - name: s\n    command: "true"\n');
    h.writeDag('bad', 'steps:\n  - name: s\n    command: exit 3\n');
    h.writeDag('nightly', 'schedule: "0 3 * * *"\nsteps:\n  - name: s\n    command: "true"\n');
    h.writeDag('weekdays', 'schedule: "0 9 * * 1-5"\nsteps:\n  - name: s\n    command: "true"\n');
    expect((await dagu(['start', 'ok'], h.env)).code).toBe(0);
    expect((await dagu(['start', 'ok'], h.env)).code).toBe(0);
    expect((await dagu(['start', 'bad'], h.env)).code).toBe(1);
    const before = Date.now() / 1000;

    const a = await server();
    const text = await a.scrape();
    expect(value(text, 'dagu_dag_runs_finished_total{dag="ok",status="succeeded"}')).toBe(2);
    expect(value(text, 'dagu_dag_runs_finished_total{dag="bad",status="failed"}')).toBe(1);
    expect(value(text, 'dagu_dag_runs_finished_total{dag="nightly",status="failed"}')).toBe(0);
    expect(value(text, 'dagu_dag_run_duration_seconds_count{dag="ok"}')).toBe(2);
    expect(value(text, 'dagu_dag_run_duration_seconds_bucket{dag="ok",le="+Inf"}')).toBe(2);
    const lastSuccess = value(text, 'dagu_dag_last_success_timestamp_seconds{dag="ok"}')!;
    expect(lastSuccess).toBeLessThanOrEqual(before);
    expect(lastSuccess).toBeGreaterThan(before - 120);
    expect(value(text, 'dagu_dag_last_success_timestamp_seconds{dag="bad"}')).toBeNull();
    expect(value(text, 'dagu_dag_schedule_interval_seconds{dag="nightly"}')).toBe(86_400);
    expect(value(text, 'dagu_dag_schedule_interval_seconds{dag="weekdays"}')).toBe(3 * 86_400);
    expect(value(text, 'dagu_dag_schedule_interval_seconds{dag="ok"}')).toBeNull();

    // The exposition as promtool reads it, and the rules shipped beside it.
    const metrics = promtool(['check', 'metrics'], text);
    expect(`${metrics.status} ${metrics.stdout}${metrics.stderr}`).toBe('0 ');
    const ruleFiles = readdirSync(path.join(ROOT, 'deploy', 'prometheus'))
      .filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'))
      .map((f) => path.join('deploy', 'prometheus', f));
    expect(ruleFiles).toContain(path.join('deploy', 'prometheus', 'run-alerts.yaml'));
    const rules = promtool(['check', 'rules', ...ruleFiles]);
    expect(rules.status, rules.stdout + rules.stderr).toBe(0);

    // A second server reads the same event log and agrees; a run finished now shows on both.
    const b = await server();
    expect((await dagu(['start', 'bad'], h.env)).code).toBe(1);
    for (const s of [a, b])
      expect(value(await s.scrape(), 'dagu_dag_runs_finished_total{dag="bad",status="failed"}')).toBe(2);

    // Restarted, a server goes on from its checkpoint, counting nothing twice.
    expect(existsSync(path.join(h.home, 'data', 'metrics', 'run-totals.json'))).toBe(true);
    await a.svc.stop();
    expect((await dagu(['start', 'ok'], h.env)).code).toBe(0);
    const c = await server();
    const after = await c.scrape();
    expect(value(after, 'dagu_dag_runs_finished_total{dag="ok",status="succeeded"}')).toBe(3);
    expect(value(after, 'dagu_dag_runs_finished_total{dag="bad",status="failed"}')).toBe(2);
    expect(value(after, 'dagu_dag_run_duration_seconds_count{dag="ok"}')).toBe(3);
  }, 240_000);
});
