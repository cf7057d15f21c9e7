// A DAGU_HOME with something to lose: a valid DAG, one finished run, a scheduler lock held by another
// (live-looking) instance and that instance's record. Hostile-input tests check all of it is still intact.

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { dagu, tempHome, type TempHome } from '../integration/harness';

export interface SeededHome extends TempHome {
  data: string;
  lockFile: string;
  instanceFile: string;
  /** Run ID of the finished run of `good`. */
  runId: string;
}

export const GOOD_DAG = 'steps:\n  - name: hello\n    command: echo hello\n';

/** The lock record of another scheduler that renewed just now (display times only; nobody renews it). */
export function otherHolderLock(nowIso: string): string {
  return `${JSON.stringify({
    version: 1,
    holder: '0123456789abcdef0123456789abcdef',
    instance_id: 'other-host-4242-abcdef',
    host: 'other-host',
    pid: 4242,
    epoch: 7,
    counter: 12,
    released: false,
    acquired_at: nowIso,
    renewed_at: nowIso,
  })}\n`;
}

export async function seededHome(extraEnv: Record<string, string> = {}): Promise<SeededHome> {
  const home = tempHome({
    DAGU_SCHEDULER_LOCK_STALE_THRESHOLD: '3s',
    DAGU_SCHEDULER_LOCK_RETRY_INTERVAL: '500ms',
    ...extraEnv,
  });
  home.writeDag('good', GOOD_DAG);
  const runId = 'good-run';
  const run = await dagu(['start', '--quiet', '--run-id', runId, 'good'], home.env);
  expect(run.code, run.stderr).toBe(0);

  const data = path.join(home.home, 'data');
  const lockDir = path.join(data, 'scheduler', 'lock');
  const instancesDir = path.join(data, 'scheduler', 'instances');
  mkdirSync(lockDir, { recursive: true });
  mkdirSync(instancesDir, { recursive: true });
  const now = new Date().toISOString();
  const lockFile = path.join(lockDir, 'lock.json');
  writeFileSync(lockFile, otherHolderLock(now));
  const instanceFile = path.join(instancesDir, 'other-host-4242-abcdef.json');
  writeFileSync(
    instanceFile,
    `${JSON.stringify({
      version: 1,
      id: 'other-host-4242-abcdef',
      host: 'other-host',
      pid: 4242,
      role: 'active',
      since: now,
      port: 8090,
      lock_holder: 'other-host-4242-abcdef',
      last_renewal_seen: now,
      updated_at: now,
    })}\n`,
  );
  return { ...home, data, lockFile, instanceFile, runId };
}
