// Run records written straight into a cluster's run store, through the project's own store (FileRunStore),
// for console tests of record shapes the runner may not produce yet. Every record is a complete RunStatus
// of the shared contract (server/core/types.ts); the server reads them as it reads any run.

import path from 'node:path';
import type { RunStatus, StepStatus } from '../server/core/types';
import { FileRunStore } from '../server/store/fileRunStore';
import { testRunStatus } from '../server/testing/testRunStatus';

/** A finished step of a seeded run; override any field. */
export function seededStep(name: string, overrides: Partial<StepStatus> = {}): StepStatus {
  const ran = overrides.status !== 'skipped' && overrides.status !== 'not_started';
  return {
    name,
    status: 'succeeded',
    started_at: ran ? '2026-03-01T10:00:01.000Z' : null,
    finished_at: ran ? '2026-03-01T10:00:02.000Z' : null,
    exit_code: ran ? 0 : null,
    error: null,
    retry_count: 0,
    stdout: null,
    stderr: null,
    output: null,
    depends: [],
    ...overrides,
  };
}

/** A finished run of `dag_name` with `steps`; override any field. */
export function seededRun(overrides: Partial<RunStatus> & { run_id: string; dag_name: string }): RunStatus {
  return testRunStatus({
    status: 'succeeded',
    created_at: '2026-03-01T10:00:00.000Z',
    started_at: '2026-03-01T10:00:00.500Z',
    finished_at: '2026-03-01T10:00:05.000Z',
    ...overrides,
  });
}

/** Writes the runs into `home`'s run store (`data/runs`, its index and logs directory). */
export async function seedRuns(home: string, runs: readonly RunStatus[]): Promise<void> {
  const store = new FileRunStore({ dataDir: path.join(home, 'data'), logDir: path.join(home, 'logs') });
  for (const run of runs) {
    const result = await store.createRun(run);
    if (!result.created) throw new Error(`e2e: run ${run.run_id} was not created (${result.reason})`);
  }
}
