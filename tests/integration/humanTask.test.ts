// Human tasks (`action: human.task`) through the real binary: a run stops `waiting` at its open tasks, `dagu
// human-task complete` (or the API) gives them their input, and the run resumes under the same run ID with the
// task's form values as step outputs. `dagu stop` aborts a waiting run. (The API's completion is tested in
// server/api/humanTask.test.ts.)

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
  steps: Array<{ name: string; status: string; outputs?: Record<string, string> | null }>;
}

async function status(runId: string): Promise<Status> {
  const r = await dagu(['status', '--json', runId], h.env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Status;
}

const TYPED = `working_dir: .
steps:
  - id: release_review
    action: human.task
    with:
      prompt: Choose the release target for \${DAG_RUN_ID}
      form:
        type: object
        properties:
          environment:
            type: string
            enum: [staging, production]
          replicas:
            type: integer
            minimum: 1
            default: 2
          notify:
            type: boolean
            default: true
        required: [environment]
  - id: record_release
    depends: release_review
    env:
      TARGET: \${steps.release_review.outputs.environment}
      REPLICAS: \${steps.release_review.outputs.replicas}
      NOTIFY: \${steps.release_review.outputs.notify}
    run: printf '%s,%s,%s\\n' "$TARGET" "$REPLICAS" "$NOTIFY" > release.txt
`;

const complete = (dag: string, runId: string, step: string, ...flags: string[]) =>
  dagu(['human-task', 'complete', '--run-id', runId, '--step', step, ...flags, dag], h.env);

describe('human tasks', () => {
  it('wait with their prompt and form, take typed input from the CLI, and resume the run', async () => {
    h.writeDag('typed', TYPED);
    const started = await dagu(['start', '--run-id', 'ht-typed', 'typed'], h.env);
    expect(started.code, started.stderr).toBe(0);
    const shown = await dagu(['status', '--run-id', 'ht-typed', 'typed'], h.env);
    expect(shown.code).toBe(0);
    expect(shown.stderr).toBe('');
    expect(shown.stdout).toContain('typed ht-typed (attempt 1): waiting');
    expect(shown.stdout).toContain('human task release_review: Choose the release target for ht-typed');
    expect(shown.stdout).toContain('"additionalProperties":false');
    expect((await status('ht-typed')).steps.map((s) => s.status)).toEqual(['waiting', 'not_started']);

    const bad = await complete('typed', 'ht-typed', 'release_review', '--input', 'replicas=many');
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/release_review.*replicas.*integer/);
    const both = await complete(
      'typed',
      'ht-typed',
      'release_review',
      '--input',
      'a=b',
      '--inputs-json',
      '{}',
    );
    expect(both.stderr).toMatch(/--input and --inputs-json/);
    const missing = await complete('typed', 'ht-typed', 'nope');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/human task "nope"/);
    expect((await status('ht-typed')).steps[0].status).toBe('waiting');

    const ok = await complete('typed', 'ht-typed', 'release_review', '--input', 'environment=production');
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toBe('Completed human task release_review; DAG-run queued for resume.\n');
    expect(ok.stderr).toBe('');
    const done = await eventually(async () => {
      const s = await status('ht-typed');
      return s.status === 'succeeded' ? s : null;
    });
    expect(done.attempt).toBe(2);
    expect(done.steps[0].outputs).toEqual({ environment: 'production', notify: 'true', replicas: '2' });
    expect(readFileSync(path.join(h.dags, 'release.txt'), 'utf8')).toBe('production,2,true\n');

    const again = await complete(
      'typed',
      'ht-typed',
      'release_review',
      '--inputs-json',
      '{"environment":"production","replicas":2}',
    );
    expect(again.stdout).toBe('Human task release_review was already completed.\n');
    const other = await complete('typed', 'ht-typed', 'release_review', '--input', 'environment=staging');
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/release_review.*different input/);
  });

  it('keep the run waiting until every open task is completed, then resume it once', async () => {
    h.writeDag(
      'multi',
      [
        'working_dir: .',
        'steps:',
        '  - id: review_a',
        '    action: human.task',
        '    with: { prompt: Confirm A }',
        '  - id: review_b',
        '    action: human.task',
        '    with: { prompt: Confirm B }',
        '  - id: independent',
        '    run: echo independent >> independent.txt',
        '  - id: deploy',
        '    depends: [review_a, review_b]',
        '    run: echo deployed >> deployed.txt',
        '',
      ].join('\n'),
    );
    expect((await dagu(['start', '--run-id', 'ht-multi', 'multi'], h.env)).code).toBe(0);
    expect((await status('ht-multi')).steps.map((s) => s.status)).toEqual([
      'waiting',
      'waiting',
      'succeeded',
      'not_started',
    ]);
    const ack = await complete('multi', 'ht-multi', 'review_a', '--input', 'x=1');
    expect(ack.stderr).toMatch(/review_a does not accept input/);
    const a = await complete('multi', 'ht-multi', 'review_a');
    expect(a.stdout).toBe('Completed human task review_a; DAG-run remains waiting.\n');
    expect((await status('ht-multi')).status).toBe('waiting');
    const b = await complete('multi', 'ht-multi', 'review_b');
    expect(b.stdout).toBe('Completed human task review_b; DAG-run queued for resume.\n');
    await eventually(async () => (await status('ht-multi')).status === 'succeeded');
    expect(readFileSync(path.join(h.dags, 'deployed.txt'), 'utf8')).toBe('deployed\n');
    // The independent step succeeded in attempt 1 and is kept, not run again.
    expect(readFileSync(path.join(h.dags, 'independent.txt'), 'utf8')).toBe('independent\n');
  });

  it('are aborted with their run by dagu stop', async () => {
    h.writeDag('stopped', 'steps:\n  - id: gate\n    action: human.task\n    with: { prompt: Go? }\n');
    expect((await dagu(['start', '--run-id', 'ht-stop', 'stopped'], h.env)).code).toBe(0);
    const stop = await dagu(['stop', 'ht-stop'], h.env);
    expect(stop.code, stop.stderr).toBe(0);
    const s = await status('ht-stop');
    expect(s.status).toBe('aborted');
    expect(s.steps[0].status).toBe('aborted');
    const late = await complete('stopped', 'ht-stop', 'gate');
    expect(late.code).toBe(2);
    expect(late.stderr).toMatch(/ht-stop is not waiting/);
  });

  it('fail a child run started by dag.run', async () => {
    h.writeDag(
      'parent',
      [
        'steps:',
        '  - id: run_child',
        '    action: dag.run',
        '    with: { dag: child_human }',
        '---',
        'name: child_human',
        'steps:',
        '  - id: review',
        '    action: human.task',
        '    with: { prompt: Review }',
        '',
      ].join('\n'),
    );
    const r = await dagu(['start', '--run-id', 'ht-parent', 'parent'], h.env);
    expect(r.code).toBe(1);
    expect((await status('ht-parent')).status).toBe('failed');
  });
});
