// Run logs with storage.backend: postgres, end to end: a real `bin/dagu start` writes its logs on its own
// disk and ships them into a throwaway database; with that disk wiped, the API's log code reads every log
// back from the database (sources, pages, tail, search, downloads, the run's own log); and when the active
// scheduler's history retention removes the run, its log chunks go with it.

import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  downloadRunLogs,
  listLogSources,
  readLogLines,
  searchRunLogs,
} from '../../../server/api/runLogConsole';
import { readRunLog } from '../../../server/api/runLogs';
import { createServices } from '../../../server/api/services';
import { loadConfig } from '../../../server/config/loadConfig';
import { systemClock, systemTimers } from '../../../server/core/clock';
import type { ControlPlane } from '../../../server/store/controlPlane';
import { pgControlPlane } from '../../../server/store/postgres/pgControlPlane';
import type { RunLogRef } from '../../../server/store/runLogStore';
import { RecordingLogger } from '../../../server/testing/recordingLogger';
import {
  dagu,
  eventually,
  freePort,
  startService,
  tempHome,
  waitForLog,
  type Service,
  type TempHome,
} from '../harness';
import { usePostgres } from './pgTestCluster';

const pg = usePostgres();
let schemaN = 0;
const homes: TempHome[] = [];
const services: Service[] = [];
const planes: ControlPlane[] = [];

afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail') {
    for (const s of services) console.log(`output of pid ${s.child.pid}:\n${s.output()}`);
  }
  await Promise.all(services.splice(0).map((s) => s.stop('SIGKILL')));
  await Promise.all(planes.splice(0).map((p) => p.close()));
  for (const h of homes.splice(0)) h.cleanup();
});

function pgHome(extra: Record<string, string> = {}): TempHome {
  const h = tempHome({
    DAGU_STORAGE_BACKEND: 'postgres',
    DAGU_POSTGRES_URL: pg().cluster.url,
    DAGU_POSTGRES_SCHEMA: `logs_${process.pid}_${++schemaN}`,
    DAGU_SKIP_EXAMPLES: 'true',
    ...extra,
  });
  homes.push(h);
  return h;
}

async function servicesOf(h: TempHome) {
  const config = loadConfig({ env: h.env });
  const cp = await pgControlPlane(config, new RecordingLogger(), systemClock, {
    by: 'test',
    timers: systemTimers,
  });
  planes.push(cp);
  return {
    cp,
    svc: createServices(config, new RecordingLogger(), { clock: systemClock, env: h.env, stores: cp }),
  };
}

async function text(cp: ControlPlane, ref: RunLogRef): Promise<string> {
  const parts: Uint8Array[] = [];
  for await (const piece of cp.logs.read(ref, 0, Infinity)) parts.push(piece);
  return Buffer.concat(parts).toString();
}

const HELLO = [
  'steps:',
  '  - name: rows',
  '    command: i=0; while [ $i -lt 2000 ]; do echo "row $i"; i=$((i+1)); done',
  '  - name: warn',
  '    command: echo "careful with the needle" >&2',
  '',
].join('\n');

async function startHello(h: TempHome): Promise<string> {
  h.writeDag('hello', HELLO);
  const run = await dagu(['start', '--run-id', `hello-${schemaN}`, 'hello'], h.env);
  expect(run.code, run.stderr).toBe(0);
  return `hello-${schemaN}`;
}

describe('run logs on postgres', () => {
  it('a run started by bin/dagu is read back through the API from the database, its local logs gone', async () => {
    const h = pgHome();
    const runId = await startHello(h);
    // The run's local scratch is gone (another host's disk, as far as the console knows).
    rmSync(path.join(h.home, 'logs'), { recursive: true, force: true });
    const { cp, svc } = await servicesOf(h);

    const { sources } = await listLogSources(svc, runId);
    expect(sources.map((s) => [s.step, s.stream, s.lines])).toEqual([
      ['rows', 'stdout', 2000],
      ['rows', 'stderr', 0],
      ['warn', 'stdout', 0],
      ['warn', 'stderr', 1],
    ]);
    const page = await readLogLines(svc, runId, 'rows', new URLSearchParams('from=1234&limit=2'));
    expect(page.lines).toEqual(['row 1234', 'row 1235']);
    expect(await readRunLog(svc, runId, 'rows', 'stdout', { tailBytes: 9 })).toMatchObject({
      content: 'row 1999\n',
      truncated: true,
    });
    const found = await searchRunLogs(svc, runId, new URLSearchParams('q=needle'));
    expect(found.matches.map((m) => [m.step, m.stream, m.text])).toEqual([
      ['warn', 'stderr', 'careful with the needle'],
    ]);
    const all = await (await downloadRunLogs(svc, runId)).text();
    expect(all).toContain('==> warn (stderr) <==\ncareful with the needle\n');

    // The run's own log (a terminal `dagu start` writes `_run.log`) is there too, to its last line.
    const own = (await cp.logs.list({ dag_name: 'hello', run_id: runId })).map((e) => e.name);
    expect(own).toContain('_run.log');
    const runLog = await text(cp, { dag_name: 'hello', run_id: runId, attempt: 1, name: '_run.log' });
    expect(runLog).toContain('Run started');
    expect(runLog).toContain('Run finished');
  });

  it("the active scheduler's history retention removes a run's logs with the run", async () => {
    const h = pgHome({ DAGU_SCHEDULER_HISTORY_RETENTION_INTERVAL: '500ms' });
    h.writeDag('hello', `hist_retention_runs: 1\n${HELLO}`);
    const first = await dagu(['start', '--run-id', 'old-run', 'hello'], h.env);
    expect(first.code, first.stderr).toBe(0);
    const second = await dagu(['start', '--run-id', 'new-run', 'hello'], h.env);
    expect(second.code, second.stderr).toBe(0);
    const { cp } = await servicesOf(h);
    expect(await cp.logs.list({ dag_name: 'hello', run_id: 'old-run' })).not.toEqual([]);

    const s = startService(['scheduler'], { ...h.env, DAGU_SCHEDULER_PORT: String(await freePort()) });
    services.push(s);
    await waitForLog(s, /^Removed old runs$/);
    await eventually(async () => (await cp.runs.readStatus('old-run')).kind === 'missing', 10_000);
    expect(await cp.logs.list({ dag_name: 'hello', run_id: 'old-run' })).toEqual([]);
    const left = await pg().pool.query(
      `select count(*)::int as n from ${h.env.DAGU_POSTGRES_SCHEMA}.run_log_chunks where run_id = 'old-run'`,
    );
    expect(left.rows[0].n).toBe(0);
    expect((await cp.logs.list({ dag_name: 'hello', run_id: 'new-run' })).length).toBeGreaterThan(0);
  });
});
