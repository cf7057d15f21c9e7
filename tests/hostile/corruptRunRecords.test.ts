// Corrupt, truncated, empty and foreign run records, as `dagu status` and `dagu retry` meet them: exit 1 with one
// line naming the run, the file and the damage; the damaged record is left exactly as it was (never repaired or
// deleted behind the operator's back) and every other run stays readable.

import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dagu } from '../integration/harness';
import { snapshotTree } from './dataDirSnapshot';
import { seededHome, type SeededHome } from './seededHome';
import { jsonError } from './jsonError';

const CRASHED = 'the process that created it probably crashed before writing its status';

interface RecordCase {
  what: string;
  runId: string;
  /** Lays out the damaged run under `runDir`; returns the path the error names. */
  damage(runDir: string, goodStatus: Record<string, unknown>): string;
  /** The error after the path; a function of the file's content for JSON parse errors. */
  error: string;
}

const statusFile = (runDir: string, attempt = 1) =>
  path.join(runDir, 'attempts', String(attempt), 'status.json');

function writeStatus(runDir: string, content: string, attempt = 1): string {
  const file = statusFile(runDir, attempt);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
  return file;
}

/** A directory last touched two minutes ago: past the grace a run being created gets. */
function ageDir(dir: string): string {
  const past = new Date(Date.now() - 2 * 60_000);
  utimesSync(dir, past, past);
  return dir;
}

const truncated = (good: Record<string, unknown>, runId: string) =>
  JSON.stringify({ ...good, run_id: runId }, null, 2).slice(0, 120);

const CASES: RecordCase[] = [
  {
    what: 'a truncated status file',
    runId: 'truncated-run',
    damage: (dir, good) => writeStatus(dir, truncated(good, 'truncated-run')),
    error: '',
  },
  {
    what: 'an empty status file',
    runId: 'empty-run',
    damage: (dir) => writeStatus(dir, ''),
    error: 'empty file',
  },
  {
    what: 'a status file of another version',
    runId: 'future-run',
    damage: (dir, good) => writeStatus(dir, JSON.stringify({ ...good, run_id: 'future-run', version: 2 })),
    error: 'not a run status: unsupported version 2 (this dagu reads version 1)',
  },
  {
    what: "another run's status copied into this run",
    runId: 'copied-run',
    damage: (dir, good) => writeStatus(dir, JSON.stringify(good)),
    error: 'status of run good-run found in the directory of run copied-run',
  },
  {
    what: 'a JSON list instead of a status',
    runId: 'list-run',
    damage: (dir) => writeStatus(dir, '[]\n'),
    error: 'not a run status: not a JSON object',
  },
  {
    what: 'a directory where the status file belongs',
    runId: 'dir-run',
    damage: (dir) => {
      const file = statusFile(dir);
      mkdirSync(file, { recursive: true });
      return file;
    },
    error: 'a directory, not a file',
  },
  {
    what: 'an abandoned attempt directory without a status',
    runId: 'abandoned-run',
    damage: (dir) => {
      const attempt = path.join(dir, 'attempts', '1');
      mkdirSync(attempt, { recursive: true });
      return ageDir(attempt);
    },
    error: `attempt 1 has no status file: ${CRASHED}`,
  },
  {
    what: 'an abandoned run directory without attempts',
    runId: 'bare-run',
    damage: (dir) => {
      mkdirSync(dir, { recursive: true });
      return ageDir(dir);
    },
    error: `the run directory has no attempt: ${CRASHED}`,
  },
  {
    what: 'a truncated second attempt over an intact first',
    runId: 'second-run',
    damage: (dir, good) => {
      writeStatus(dir, JSON.stringify({ ...good, run_id: 'second-run' }));
      return writeStatus(dir, '{"version":1,"run_id":"second-run","attempt":2,', 2);
    },
    error: jsonError('{"version":1,"run_id":"second-run","attempt":2,'),
  },
];

let home: SeededHome;
let good: Record<string, unknown>;
beforeAll(async () => {
  home = await seededHome();
  good = JSON.parse(readFileSync(statusFile(path.join(home.data, 'runs', home.runId)), 'utf8')) as Record<
    string,
    unknown
  >;
});
afterAll(() => home.cleanup());

describe('a damaged run record', () => {
  it.each(CASES)('$what: status and retry exit 1 naming the file, and it is left as it was', async (c) => {
    const runDir = path.join(home.data, 'runs', c.runId);
    const named = c.damage(runDir, good);
    const error = c.error || jsonError(readFileSync(named, 'utf8'));
    const before = snapshotTree(home.data);

    const line = `dagu: status of run ${c.runId} is unreadable (${named}): ${error}\n`;
    const status = await dagu(['status', c.runId], home.env);
    expect(status.stderr).toBe(line);
    expect(status.code).toBe(1);
    const retry = await dagu(['retry', '--quiet', c.runId], home.env);
    expect(retry.stderr).toBe(line);
    expect(retry.code).toBe(1);

    // Not repaired, not deleted, no new attempt: the data directory is byte for byte what it was.
    expect(snapshotTree(home.data)).toEqual(before);
    const other = await dagu(['status', '--json', home.runId], home.env);
    expect(JSON.parse(other.stdout)).toMatchObject({ run_id: home.runId, status: 'succeeded' });
  });
});
