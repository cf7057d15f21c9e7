import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newRunStatus } from '../core/runStatus';
import { NotFoundError } from './errors';
import { getDag } from './dags';
import { startDag } from './startDag';
import { testServices, type TestServices } from './testServices';

let svc: TestServices;
let argsFile: string;
const savedExecutable = process.env.DAGU_EXECUTABLE;

beforeEach(() => {
  svc = testServices();
  svc.writeDag('hello', 'steps:\n  - name: greet\n    command: echo hi\n');
  svc.runs.logDir = (dag, runId, attempt) => path.join(svc.config.paths.log_dir, dag, runId, String(attempt));
  // A stand-in for bin/dagu that records how it was called.
  argsFile = path.join(svc.config.home, 'args.json');
  const fake = path.join(svc.config.home, 'fake-dagu.mjs');
  writeFileSync(
    fake,
    `import { writeFileSync } from 'node:fs';\n` +
      `writeFileSync(${JSON.stringify(argsFile)}, JSON.stringify({ argv: process.argv.slice(2), home: process.env.DAGU_HOME }));\n`,
  );
  process.env.DAGU_EXECUTABLE = fake;
});
afterEach(() => {
  process.env.DAGU_EXECUTABLE = savedExecutable;
  if (savedExecutable === undefined) delete process.env.DAGU_EXECUTABLE;
  svc.cleanup();
});

async function recordedCall(): Promise<{ argv: string[]; home: string }> {
  for (;;) {
    try {
      return JSON.parse(readFileSync(argsFile, 'utf8')) as { argv: string[]; home: string };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

describe('startDag', () => {
  it('spawns `dagu start` with a new run ID, the manual trigger and the params after --', async () => {
    const result = await startDag(svc, 'hello', ['A=1', '$(rm -rf /)'], { waitMs: 0 });

    expect(result.run_id).toMatch(/^20261130-011430-[0-9a-f]{8}$/);
    expect(result.status).toBeNull();
    const call = await recordedCall();
    expect(call.argv).toEqual([
      'start',
      '--quiet',
      '--run-id',
      result.run_id,
      '--trigger-type',
      'manual',
      'hello',
      '--',
      'A=1',
      '$(rm -rf /)',
    ]);
    expect(call.home).toBe(svc.config.home);
  });

  it("returns the run's status once its process has recorded it", async () => {
    const dag = (await getDag(svc, 'hello')).dag!;
    const readStatus = svc.runs.readStatus.bind(svc.runs);
    let polls = 0;
    // The record shows up on the third look, as if the run process had just written it.
    svc.runs.readStatus = async (runId) => {
      polls += 1;
      if (polls === 3) {
        await svc.runs.createRun(
          newRunStatus({
            dag,
            runId,
            status: 'running',
            triggerType: 'manual',
            scheduleTime: null,
            params: [],
            nowIso: '2026-11-30T01:14:30Z',
          }),
        );
      }
      return readStatus(runId);
    };

    const result = await startDag(svc, 'hello', [], { waitMs: 10_000, pollMs: 1 });

    expect(result.status).toMatchObject({ run_id: result.run_id, status: 'running' });
    expect(polls).toBe(3);
  });

  it('refuses a missing DAG without starting anything', async () => {
    await expect(startDag(svc, 'missing', [], { waitMs: 0 })).rejects.toBeInstanceOf(NotFoundError);
  });
});
