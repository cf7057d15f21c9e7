// A DAG's history written straight into the run store's file layout (status files and index markers, as
// FileRunStore writes them): 10,000 runs in seconds rather than the minutes of 10,000 createRuns.

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isoUtc } from '../server/core/runStatus';
import type { RunState, RunStatus, StepStatus } from '../server/core/types';
import { bucketPath, markerName } from '../server/store/runIndex';

export const DAG = 'wide';
export const STEPS = 20;
const STATES: RunState[] = ['succeeded', 'succeeded', 'failed', 'succeeded', 'aborted'];

/** A chain of STEPS steps on a five-minute schedule. */
export function dagYaml(): string {
  const lines = ['schedule: "*/5 * * * *"', 'steps:'];
  for (let i = 0; i < STEPS; i++) {
    lines.push(`  - name: step-${i}`, `    command: echo ${i}`);
    if (i > 0) lines.push(`    depends: [step-${i - 1}]`);
  }
  return lines.join('\n') + '\n';
}

/** Writes run `i` of DAG, created at `createdMs`, under `dataDir` (`DAGU_HOME/data`). */
export function seedRun(dataDir: string, i: number, createdMs: number): void {
  const runId = `seed-${String(i).padStart(6, '0')}`;
  const status = STATES[i % STATES.length];
  const steps: StepStatus[] = Array.from({ length: STEPS }, (_, s) => ({
    name: `step-${s}`,
    status: status === 'failed' && s >= 10 ? (s === 10 ? 'failed' : 'skipped') : 'succeeded',
    started_at: isoUtc(createdMs + 1000 + s * 1000),
    finished_at: isoUtc(createdMs + 1900 + s * 1000),
    exit_code: 0,
    error: null,
    retry_count: 0,
    stdout: `${DAG}/${runId}/1/step-${s}.out`,
    stderr: `${DAG}/${runId}/1/step-${s}.err`,
    output: null,
    depends: s > 0 ? [`step-${s - 1}`] : [],
  }));
  const record: RunStatus = {
    version: 1,
    dag_name: DAG,
    run_id: runId,
    attempt: 1,
    status,
    trigger_type: i % 3 === 0 ? 'manual' : 'scheduler',
    schedule_time: null,
    queue: DAG,
    params: [],
    created_at: isoUtc(createdMs),
    queued_at: null,
    started_at: isoUtc(createdMs + 1000),
    finished_at: isoUtc(createdMs + 1000 + STEPS * 1000 + (i % 7) * 500),
    pid: null,
    host: 'bench',
    worker_id: null,
    error: null,
    steps,
    handlers: {},
    conditions: [],
    worker_selector: null,
    log_dir: `${DAG}/${runId}/1`,
  };
  const attemptDir = path.join(dataDir, 'runs', runId, 'attempts', '1');
  mkdirSync(attemptDir, { recursive: true });
  writeFileSync(path.join(attemptDir, 'status.json'), JSON.stringify(record, null, 2) + '\n');
  for (const [root, dag] of [
    [path.join(dataDir, 'index', 'all'), DAG],
    [path.join(dataDir, 'index', 'dag', DAG), null],
  ] as const) {
    const dir = path.join(root, ...bucketPath(createdMs));
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, markerName(createdMs, runId, dag)), '');
  }
}
