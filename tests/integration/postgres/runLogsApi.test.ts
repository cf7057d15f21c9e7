// The console's log reading over PostgreSQL: a real run ships its logs into a throwaway database, its local
// files are then removed (another host's disk, as far as the console knows), and every log route's code
// (sources, pages of lines, tail, search, downloads) answers from the chunks.

import { rmSync } from 'node:fs';
import type { Pool } from 'pg';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { systemClock, systemTimers } from '../../../server/core/clock';
import { silentLogger } from '../../../server/core/ports';
import {
  readLogLines,
  listLogSources,
  searchRunLogs,
  downloadStepLog,
  downloadRunLogs,
} from '../../../server/api/runLogConsole';
import { readRunLog } from '../../../server/api/runLogs';
import type { Services } from '../../../server/api/services';
import { testServices, type TestServices } from '../../../server/api/testServices';
import { startRun } from '../../../server/runner/startRun';
import { dagOf, minimalEnv, stepOf } from '../../../server/runner/testSupport';
import { PgRunLogStore } from '../../../server/store/postgres/pgRunLogStore';
import { PgRunStore } from '../../../server/store/postgres/pgRunStore';
import { usePostgres } from './pgTestCluster';

const SCHEMA = 'dagu_logs_api_test';
const pg = usePostgres({ schema: SCHEMA });
let pool: Pool;
beforeAll(() => {
  pool = pg().pool;
});

let base: TestServices;
let svc: Services;
let localLogs: string;
beforeEach(async () => {
  await pool.query(`truncate ${SCHEMA}.runs, ${SCHEMA}.run_attempts, ${SCHEMA}.active_runs cascade`);
  base = testServices();
  // The run process's local scratch: the logs root of its config, as `dagu start` has it.
  localLogs = base.config.paths.log_dir;
  svc = {
    ...base,
    runs: new PgRunStore(pool, SCHEMA, localLogs),
    logs: new PgRunLogStore(pool, SCHEMA),
  };
});
afterEach(() => base.cleanup());

/** Runs `hello` with the database's stores, its logs written to local scratch and shipped. */
async function runHello(): Promise<string> {
  const final = await startRun({
    dag: dagOf(
      [
        stepOf('rows', 'i=0; while [ $i -lt 3000 ]; do echo "row $i"; i=$((i+1)); done'),
        stepOf('warn', 'echo "warn: the needle is here" >&2; echo done'),
      ],
      { name: 'hello' },
    ),
    runStore: svc.runs,
    config: svc.config,
    clock: systemClock,
    timers: systemTimers,
    logger: silentLogger,
    triggerType: 'manual',
    scheduleTime: null,
    params: [],
    newRunId: () => 'pg-run',
    signal: new AbortController().signal,
    env: minimalEnv(),
    logStore: svc.logs,
  });
  expect(final.status).toBe('succeeded');
  // The local files are gone: whatever the console shows now comes from the database.
  rmSync(localLogs, { recursive: true, force: true });
  return final.run_id;
}

describe('the log console on PostgreSQL', () => {
  it('lists the logs and serves pages of their lines', async () => {
    const runId = await runHello();
    const { sources } = await listLogSources(svc, runId);
    expect(sources.map((s) => [s.step, s.stream, s.lines])).toEqual([
      ['rows', 'stdout', 3000],
      ['rows', 'stderr', 0],
      ['warn', 'stdout', 1],
      ['warn', 'stderr', 1],
    ]);
    const page = await readLogLines(svc, runId, 'rows', new URLSearchParams('from=1500&limit=3'));
    expect(page).toMatchObject({
      from: 1500,
      lines: ['row 1500', 'row 1501', 'row 1502'],
      total_lines: 3000,
    });
  });

  it('serves a tail, a search and the downloads', async () => {
    const runId = await runHello();
    const tail = await readRunLog(svc, runId, 'rows', 'stdout', { tailBytes: 9 });
    expect(tail).toMatchObject({ exists: true, truncated: true, content: 'row 2999\n' });
    const found = await searchRunLogs(svc, runId, new URLSearchParams('q=NEEDLE&context=0'));
    expect(found.matches).toEqual([
      { step: 'warn', stream: 'stderr', line: 0, text: 'warn: the needle is here', before: [], after: [] },
    ]);
    const one = await downloadStepLog(svc, runId, 'warn', new URLSearchParams('stream=stderr'));
    expect(one.headers.get('content-length')).toBe('25');
    expect(await one.text()).toBe('warn: the needle is here\n');
    const all = await (await downloadRunLogs(svc, runId)).text();
    expect(all.startsWith('==> rows (stdout) <==\nrow 0\nrow 1\n')).toBe(true);
    expect(
      all.endsWith('==> warn (stdout) <==\ndone\n\n==> warn (stderr) <==\nwarn: the needle is here\n\n'),
    ).toBe(true);
  });
});
