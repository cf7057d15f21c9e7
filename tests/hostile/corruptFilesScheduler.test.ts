// Corrupt, truncated, empty and foreign-version files in the data directory, as the real `dagu scheduler` meets
// them: a damaged lock record is taken over only after the full stale threshold (never sooner), a damaged
// instance record or queue item is reported once and skipped, never deleted, and the queue still runs.

import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, type TestContext } from 'vitest';
import {
  dagu,
  eventually,
  startService,
  tempHome,
  type Service,
  type TempHome,
} from '../integration/harness';
import { GOOD_DAG, otherHolderLock } from './seededHome';
import { jsonError } from './jsonError';

const SHORT = { DAGU_SCHEDULER_LOCK_STALE_THRESHOLD: '3s', DAGU_SCHEDULER_LOCK_RETRY_INTERVAL: '500ms' };
const THRESHOLD_MS = 3000;

/** A home with the good DAG, removed when the test ends (cases run concurrently: each cleans up its own). */
function newHome(ctx: TestContext): TempHome {
  const home = tempHome(SHORT);
  ctx.onTestFinished(() => home.cleanup());
  home.writeDag('good', GOOD_DAG);
  return home;
}

/** `dagu scheduler` on `home`, killed when the test ends if it is still running. */
function scheduler(ctx: TestContext, home: TempHome): Service {
  const s = startService(['scheduler'], home.env);
  ctx.onTestFinished(async () => {
    await s.stop('SIGKILL');
  });
  return s;
}

/** The JSON log lines of a service whose message is `msg`. */
function logLines(s: Service, msg: string): Array<Record<string, unknown>> {
  return s
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === msg);
}

function lockPath(home: TempHome): string {
  return path.join(home.home, 'data', 'scheduler', 'lock', 'lock.json');
}

function readLock(home: TempHome): Record<string, unknown> {
  return JSON.parse(readFileSync(lockPath(home), 'utf8')) as Record<string, unknown>;
}

const truncatedLock = otherHolderLock('2026-11-30T01:15:00.000Z').slice(0, 60);
const LOCK_CASES = [
  { what: 'a truncated lock record', content: truncatedLock, error: jsonError(truncatedLock) },
  { what: 'an empty lock file', content: '', error: 'empty file' },
  {
    what: 'a lock record of another version',
    content: otherHolderLock('2026-11-30T01:15:00.000Z').replace('"version":1', '"version":2'),
    error: 'unknown version 2',
  },
  { what: 'a lock file holding a JSON list', content: '[1,2,3]\n', error: 'not a JSON object' },
];

describe.concurrent('a scheduler that finds a damaged lock record', () => {
  it.for(LOCK_CASES)(
    '$what: takes it over once, only after the stale threshold, naming the damage',
    async (c, ctx) => {
      const home = newHome(ctx);
      mkdirSync(path.dirname(lockPath(home)), { recursive: true });
      writeFileSync(lockPath(home), c.content);
      const s = scheduler(ctx, home);
      await s.waitFor(/"msg":"Scheduler started"/, 30_000);
      expect(await s.stop()).toBe(0);

      const takeovers = logLines(s, 'Took over the scheduler lock from a failed instance');
      expect(takeovers).toHaveLength(1);
      expect(takeovers[0]).toMatchObject({ corrupt_record: c.error, epoch: 1, previous_instance: null });
      // The damaged record was watched unchanged for the whole threshold before it was replaced.
      expect(takeovers[0].observed_gap_ms).toBeGreaterThanOrEqual(THRESHOLD_MS);
      expect(logLines(s, 'Acquired the free scheduler lock')).toEqual([]);
      // Replaced whole by a valid record, which the clean stop then released.
      expect(readLock(home)).toMatchObject({ version: 1, epoch: 1, released: true });
    },
  );
});

const truncatedInstance = '{"version":1,"id":"other-host-4242-abcdef","host":"oth';
const INSTANCES = ['scheduler', 'instances', 'other.json'];
const ACTIVE = ['active', 'lost-1.json'];
const LISTED_CASES = [
  {
    what: 'a truncated instance record',
    file: INSTANCES,
    content: truncatedInstance,
    error: jsonError(truncatedInstance),
  },
  { what: 'an empty instance record', file: INSTANCES, content: '', error: 'empty file' },
  {
    what: 'an instance record of another version',
    file: INSTANCES,
    content: '{"version":2,"id":"other","host":"h","role":"active","updated_at":"2026-11-30T01:15:00Z"}\n',
    error: 'unsupported version 2 (this dagu reads version 1)',
  },
  {
    what: 'a truncated active-run marker',
    file: ACTIVE,
    content: '{"run_id":"lost-1","dag_na',
    error: jsonError('{"run_id":"lost-1","dag_na'),
  },
  {
    what: 'an active-run marker naming another run',
    file: ACTIVE,
    content: '{"run_id":"other-run","dag_name":"good","queue":"good"}\n',
    error: 'run_id does not match the file name lost-1.json',
  },
];

describe.concurrent('a scheduler that finds a damaged record it lists on every pass', () => {
  it.for(LISTED_CASES)('$what: reports it once, keeps it, and becomes active', async (c, ctx) => {
    const home = newHome(ctx);
    const file = path.join(home.home, 'data', ...c.file);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, c.content);
    const s = scheduler(ctx, home);
    await s.waitFor(/"msg":"Acquired the free scheduler lock"/, 30_000);
    await s.waitFor(/"msg":"Skipped a corrupt file"/, 30_000);
    // Each renewal lists the instances and the active runs again: let several more pass before counting.
    const seen = Number(readLock(home).counter);
    await eventually(() => Number(readLock(home).counter) >= seen + 3);
    expect(await s.stop()).toBe(0);

    const reports = logLines(s, 'Skipped a corrupt file').filter((l) => l.path === file);
    expect(reports).toEqual([expect.objectContaining({ level: 'warn', path: file, error: c.error })]);
    expect(readFileSync(file, 'utf8')).toBe(c.content);
  });
});

const QUEUE_CASES = [
  { what: 'a truncated queue item', content: '{"queue":"good","run_id":"lost-1"', error: '' },
  { what: 'an empty queue item', content: '', error: 'empty file' },
  {
    what: 'a queue item whose content names another item',
    content:
      '{"queue":"good","run_id":"lost-1","dag_name":"good","item_id":"x","enqueued_at":"2026-01-01"}\n',
    error: 'item_id or queue does not match the file name',
  },
].map((c) => ({ ...c, error: c.error || jsonError(c.content) }));

describe.concurrent('a scheduler that finds a damaged queue item', () => {
  it.for(QUEUE_CASES)(
    '$what: reports it once, keeps it, and still runs the run queued behind it',
    async (c, ctx) => {
      const home = newHome(ctx);
      // Oldest name of the queue: first in line, so a consumer that stopped at it would never reach the good one.
      const file = path.join(home.home, 'data', 'queue', 'good', '0000000000001_000001_abcdef_lost-1.json');
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, c.content);
      const queued = await dagu(['enqueue', '--run-id', 'queued-1', 'good'], home.env);
      expect(queued.stdout).toBe('queued good queued-1 in queue good\n');

      const s = scheduler(ctx, home);
      await eventually(async () => {
        const r = await dagu(['status', '--json', 'queued-1'], home.env);
        const st = JSON.parse(r.stdout) as { status: string };
        return st.status === 'succeeded' ? st : null;
      }, 30_000);
      expect(await s.stop()).toBe(0);

      const reports = logLines(s, 'Skipped a corrupt file').filter((l) => l.path === file);
      expect(reports).toEqual([expect.objectContaining({ level: 'warn', path: file, error: c.error })]);
      expect(readFileSync(file, 'utf8')).toBe(c.content);
    },
  );
});
