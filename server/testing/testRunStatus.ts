// A complete RunStatus with test defaults, for the tests of stores, services, the API and the console.

import type { RunStatus } from '../core/types';

/** A queued first attempt of `run_id` of `dag_name`, created at `created_at`; override any field. */
export function testRunStatus(overrides: Partial<RunStatus> & { run_id: string }): RunStatus {
  const dag = overrides.dag_name ?? 'etl';
  return {
    version: 1,
    dag_name: dag,
    attempt: 1,
    status: 'queued',
    trigger_type: 'manual',
    schedule_time: null,
    queue: overrides.queue ?? dag,
    params: [],
    created_at: '2026-03-01T10:00:00.000Z',
    queued_at: null,
    started_at: null,
    finished_at: null,
    pid: null,
    host: null,
    worker_id: null,
    error: null,
    steps: [],
    handlers: {},
    conditions: [],
    worker_selector: null,
    log_dir: `${dag}/${overrides.run_id}/${overrides.attempt ?? 1}`,
    ...overrides,
  };
}
