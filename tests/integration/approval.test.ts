// Step approvals (a step's `approval:`) through the real binary: the step runs its command and waits, `dagu
// approval approve` resumes the run with the inputs as variables downstream, `reject` ends it `rejected`, and
// `push-back` reruns from `rewind_to` under the push-back variables. (The API is tested in
// server/api/approval.test.ts.)

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dagu, eventually, tempHome, type TempHome } from './harness';

let h: TempHome;
beforeEach(() => {
  h = tempHome();
});
afterEach(() => h.cleanup());

interface Status {
  status: string;
  attempt: number;
  steps: Array<{ name: string; status: string; output?: Record<string, string> | null }>;
}

async function status(runId: string): Promise<Status> {
  const r = await dagu(['status', '--json', runId], h.env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Status;
}

async function ends(runId: string, attempt: number, state: string): Promise<Status> {
  return eventually(async () => {
    const s = await status(runId);
    return s.attempt === attempt && s.status === state ? s : null;
  });
}

const DAG = `working_dir: .
steps:
  - name: build
    run: echo "build \${DAG_PUSHBACK_ITERATION:-0} \${FEEDBACK:-none}" >> log.txt
  - name: review
    depends: [build]
    run: echo review >> log.txt
    approval:
      prompt: Ship it?
      input: [TICKET, FEEDBACK]
      required: [TICKET]
      rewind_to: build
  - name: deploy
    depends: [review]
    run: echo "deploy $TICKET" >> log.txt
`;

const answer = (verb: string, runId: string, ...flags: string[]) =>
  dagu(['approval', verb, '--run-id', runId, '--step', 'review', ...flags, 'gate'], h.env);

describe('step approvals', () => {
  it('push back reruns from rewind_to; approve resumes with the inputs downstream', async () => {
    h.writeDag('gate', DAG);
    const started = await dagu(['start', '--run-id', 'ap-1', 'gate'], h.env);
    expect(started.code, started.stderr).toBe(0);
    const shown = await dagu(['status', '--run-id', 'ap-1', 'gate'], h.env);
    expect(shown.stdout).toContain('approval review: Ship it?');

    const missing = await answer('approve', 'ap-1');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing required inputs: [TICKET]');

    const pushed = await answer('push-back', 'ap-1', '--input', 'TICKET=T-2', '--input', 'FEEDBACK=tests');
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(pushed.stdout).toBe('Pushed back step review (iteration 1); DAG-run queued for resume.\n');
    await ends('ap-1', 2, 'waiting');

    const ok = await answer('approve', 'ap-1', '--input', 'TICKET=T-2');
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toBe('Approved step review; DAG-run queued for resume.\n');
    const done = await ends('ap-1', 3, 'succeeded');
    expect(done.steps.map((s) => s.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(readFileSync(path.join(h.dags, 'log.txt'), 'utf8')).toBe(
      'build 0 none\nreview\nbuild 1 tests\nreview\ndeploy T-2\n',
    );
  });

  it('reject ends the run rejected', async () => {
    h.writeDag('gate', DAG);
    expect((await dagu(['start', '--run-id', 'ap-2', 'gate'], h.env)).code).toBe(0);
    const r = await answer('reject', 'ap-2', '--reason', 'not now');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('Rejected step review; DAG-run rejected.\n');
    const s = await status('ap-2');
    expect([s.status, s.steps.map((x) => x.status)]).toEqual([
      'rejected',
      ['succeeded', 'rejected', 'not_started'],
    ]);
    const late = await answer('approve', 'ap-2', '--input', 'TICKET=x');
    expect(late.code).toBe(2);
    expect(late.stderr).toContain('not waiting for approval (status: rejected)');
  });
});
