import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newRunStatus } from '../core/runStatus';
import type { DagSpec } from '../core/types';
import { dagOf, runDag, stepOf, tempDir } from './testSupport';

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(() => cleanup());

function humanDag(): DagSpec {
  return dagOf(
    [
      stepOf('review', null, {
        id: 'review',
        action: { kind: 'human', prompt: 'Deploy ${DAG_RUN_ID}?', form: null },
      }),
      stepOf('other', 'true'),
      stepOf('after', 'true', { depends: ['review'] }),
    ],
    {
      handler_on: {
        success: stepOf('on_success', 'true'),
        failure: null,
        abort: null,
        exit: stepOf('on_exit', 'true'),
        wait: null,
      },
    },
  );
}

describe('a human task in a run', () => {
  it('opens with its prompt resolved; the run ends waiting without running a handler', async () => {
    const { final } = await runDag(humanDag(), dir);
    expect(final.status).toBe('waiting');
    expect(final.error).toBeNull();
    expect(final.steps.map((s) => s.status)).toEqual(['waiting', 'succeeded', 'not_started']);
    expect(final.steps[0].human_task).toEqual({
      id: 'review',
      prompt: 'Deploy run-1?',
      form: null,
      max_size: 1024 * 1024,
    });
    expect(final.handlers).toEqual({});
  });

  it('runs handler_on.wait alone, with DAG_WAITING_STEPS; its failure changes nothing', async () => {
    const dag = humanDag();
    const out = join(dir, 'waiting.txt');
    dag.handler_on.wait = stepOf('onWait', `printf '%s %s' "$DAG_WAITING_STEPS" "$DAG_RUN_STATUS" > ${out}`);
    const { final } = await runDag(dag, dir);
    expect(final.status).toBe('waiting');
    expect(readFileSync(out, 'utf8')).toBe('review waiting');
    expect(Object.keys(final.handlers)).toEqual(['wait']);
    expect(final.handlers.wait?.status).toBe('succeeded');

    dag.handler_on.wait = stepOf('onWait', 'exit 3');
    const failed = await runDag(dag, dir);
    expect(failed.final.status).toBe('waiting');
    expect(failed.final.error).toBeNull();
    expect(failed.final.handlers.wait?.status).toBe('failed');
  });

  it('waits on a worker as anywhere else (the completion resumes it there)', async () => {
    const dag = humanDag();
    const status = newRunStatus({
      dag,
      runId: 'run-1',
      status: 'running',
      triggerType: 'manual',
      scheduleTime: null,
      params: [],
      nowIso: new Date().toISOString(),
      logDir: 'test-dag/run-1/1',
    });
    status.worker_id = 'w-1';
    const { final } = await runDag(dag, dir, { status });
    expect(final.status).toBe('waiting');
    expect(final.error).toBeNull();
  });
});
