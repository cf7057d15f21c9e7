// Sub-DAGs through the real `bin/dagu`: each child is its own `dagu start` process. Calls into the catalogue
// and into local documents, params, the call step's JSON, links both ways, refusals, and a 1,000-item
// `parallel` whose runner's peak memory is measured.

import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DAGU, dagu, tempHome, type TempHome } from './harness';

let h: TempHome;
beforeEach(() => {
  h = tempHome();
});
afterEach(() => h.cleanup());

interface Step {
  name: string;
  status: string;
  error: string | null;
  stdout: string | null;
  output: Record<string, string> | null;
  sub_runs?: Array<{ dag_name: string; run_id: string; status: string | null; item?: string }>;
}

async function status(runId: string) {
  const r = await dagu(['status', '--json', runId], h.env);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as {
    dag_name: string;
    status: string;
    params: string[];
    parent?: { dag_name: string; run_id: string; step: string } | null;
    steps: Step[];
  };
}

const runIdOf = (stdout: string) => /^\S+ (\S+) \(attempt/m.exec(stdout)![1];
const stepOf = (s: { steps: Step[] }, name: string) => s.steps.find((x) => x.name === name)!;
const logOf = (step: Step) => readFileSync(path.join(h.home, 'logs', step.stdout!), 'utf8');

describe('sub-DAGs', () => {
  it('calls a catalogue DAG with params, links parent and child, and hands its outputs on as JSON', async () => {
    h.writeDag(
      'child',
      [
        'params:',
        '  - WHO: nobody',
        'steps:',
        '  - name: greet',
        '    run: echo "hello $WHO"',
        '    output: GREETING',
        '',
      ].join('\n'),
    );
    h.writeDag(
      'parent',
      [
        'type: chain',
        'steps:',
        '  - name: call',
        '    action: dag.run',
        '    with:',
        '      dag: child',
        '      params: "WHO=world"',
        '    output: CHILD',
        '  - name: show',
        '    run: echo "got ${CHILD.outputs.GREETING} from ${CHILD.status}"',
        '',
      ].join('\n'),
    );
    const r = await dagu(['start', 'parent'], h.env);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const parent = await status(runIdOf(r.stdout));
    const call = stepOf(parent, 'call');
    expect(call.status).toBe('succeeded');
    expect(call.sub_runs).toHaveLength(1);
    const [sub] = call.sub_runs!;
    expect(sub).toMatchObject({ dag_name: 'child', status: 'succeeded' });
    expect(JSON.parse(logOf(call))).toEqual({
      name: 'child',
      dagRunId: sub.run_id,
      params: 'WHO=world',
      outputs: { GREETING: 'hello world' },
      status: 'succeeded',
    });
    expect(logOf(stepOf(parent, 'show'))).toContain('got hello world from succeeded');

    const child = await status(sub.run_id);
    expect(child).toMatchObject({
      dag_name: 'child',
      status: 'succeeded',
      params: ['WHO=world'],
      parent: { dag_name: 'parent', run_id: runIdOf(r.stdout), step: 'call' },
    });
  });

  it('runs local documents of the same file, which call their siblings, under their own names', async () => {
    h.writeDag(
      'multi',
      [
        'steps:',
        '  - name: go',
        '    call: worker',
        '    params: "N=5"',
        '---',
        'name: worker',
        'params:',
        '  - N: 1',
        'steps:',
        '  - name: w',
        '    run: echo "worker $N"',
        '  - name: h',
        '    call: helper',
        '---',
        'name: helper',
        'steps:',
        '  - name: hh',
        '    run: echo helper',
        '',
      ].join('\n'),
    );
    const r = await dagu(['start', 'multi'], h.env);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const parent = await status(runIdOf(r.stdout));
    const worker = await status(stepOf(parent, 'go').sub_runs![0].run_id);
    expect(worker).toMatchObject({ dag_name: 'worker', status: 'succeeded', params: ['N=5'] });
    const helperRun = stepOf(worker, 'h').sub_runs![0];
    expect(helperRun).toMatchObject({ dag_name: 'helper', status: 'succeeded' });
    expect((await status(helperRun.run_id)).parent).toMatchObject({ dag_name: 'worker', step: 'h' });
  });

  it("runs base.yaml's handlers for the parent only; a child keeps its own (Dagu skips base handlers for sub-DAGs)", async () => {
    writeFileSync(
      path.join(h.home, 'base.yaml'),
      'handler_on:\n  failure:\n    run: echo "base-$DAG_NAME" >> "$DAGU_HOME/handled.txt"\n',
    );
    h.writeDag(
      'kid',
      'handler_on:\n  exit:\n    run: echo "own-$DAG_NAME" >> "$DAGU_HOME/handled.txt"\nsteps:\n  - name: x\n    run: exit 1\n',
    );
    h.writeDag('top', 'steps:\n  - name: c\n    call: kid\n');
    expect((await dagu(['start', '--quiet', 'top'], h.env)).code).toBe(1);
    expect(readFileSync(path.join(h.home, 'handled.txt'), 'utf8')).toBe('own-kid\nbase-top\n');
    // Started on its own, the same DAG runs the base's handlers as any root run does.
    expect((await dagu(['start', '--quiet', 'kid'], h.env)).code).toBe(1);
    expect(readFileSync(path.join(h.home, 'handled.txt'), 'utf8')).toBe(
      'own-kid\nbase-top\nbase-kid\nown-kid\n',
    );
  });

  it('fails the step of a recursive call with a clear error instead of starting processes for ever', async () => {
    h.writeDag('loop_a', 'steps:\n  - name: a\n    call: loop_b\n');
    h.writeDag('loop_b', 'steps:\n  - name: b\n    call: loop_a\n');
    const r = await dagu(['start', 'loop_a'], h.env);
    expect(r.code).toBe(1);
    const a = await status(runIdOf(r.stdout));
    const b = await status(stepOf(a, 'a').sub_runs![0].run_id);
    expect(stepOf(b, 'b')).toMatchObject({
      status: 'failed',
      error: 'recursive sub-DAG call refused: loop_a -> loop_b -> loop_a',
    });
    expect(stepOf(a, 'a').error).toMatch(/ended with status failed/);
  });

  it('fails the step for an unknown target, an undeclared param, and a child that failed', async () => {
    h.writeDag('strict', 'params:\n  - REGION: us\nsteps:\n  - name: s\n    run: exit 3\n');
    h.writeDag(
      'caller',
      [
        'steps:',
        '  - name: missing',
        '    call: no_such_dag',
        '  - name: bad_param',
        '    call: strict',
        '    params: "COLOR=red"',
        '  - name: failing',
        '    call: strict',
        '    params:',
        '      REGION: eu',
        '',
      ].join('\n'),
    );
    const r = await dagu(['start', 'caller'], h.env);
    expect(r.code).toBe(1);
    const s = await status(runIdOf(r.stdout));
    expect(stepOf(s, 'missing').error).toMatch(/^failed to find DAG "no_such_dag"/);
    expect(stepOf(s, 'bad_param').error).toBe(
      'sub-DAG strict: unknown parameter(s): "COLOR"; accepted parameters are: REGION',
    );
    const failing = stepOf(s, 'failing');
    expect(failing.status).toBe('failed');
    expect(failing.error).toMatch(
      new RegExp(`^sub-DAG run ${failing.sub_runs![0].run_id} ended with status failed`),
    );
  });

  // 300 items: every child run, the summary and the outputs of a large fan-out. The figure (1,000 items,
  // the run's and the scheduler's memory under 200 MB) is `npm run bench -- language`, as targets belong there.
  it(
    'runs a parallel step over 300 items: every child, the summary and the outputs',
    { timeout: 600_000 },
    async () => {
      h.writeDag(
        'fan',
        [
          'type: chain',
          'steps:',
          '  - name: list',
          '    run: seq 1 300',
          '    output: ITEMS',
          '  - name: fan',
          '    call: leaf',
          '    parallel:',
          '      items: ${ITEMS}',
          '      max_concurrent: 10',
          '---',
          'name: leaf',
          'params:',
          '  - N: 0',
          'steps:',
          '  - name: s',
          // The item is the child's $1: Dagu adds a positional value beside the named N, it does not fill N.
          '    run: echo "leaf $1"',
          '    output: OUT',
          '',
        ].join('\n'),
      );
      const child = spawn(process.execPath, [DAGU, 'start', 'fan'], {
        env: h.env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.resume();
      const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
      expect(code, stdout).toBe(0);

      const s = await status(runIdOf(stdout));
      const fan = stepOf(s, 'fan');
      expect(fan.status).toBe('succeeded');
      expect(fan.sub_runs).toHaveLength(300);
      expect(fan.sub_runs!.every((x) => x.status === 'succeeded')).toBe(true);
      const out = JSON.parse(logOf(fan));
      expect(out.summary).toEqual({ total: 300, succeeded: 300, failed: 0 });
      expect(out.outputs).toHaveLength(300);
      expect(out.outputs).toContainEqual({ OUT: 'leaf 277' });
    },
  );
});

describe("Dagu's retry --sub-run-id", () => {
  beforeEach(() => {
    h.writeDag(
      'root',
      'steps:\n  - id: pre\n    run: echo pre\n  - id: mid_call\n    depends: pre\n    call: mid\n' +
        '  - id: after\n    depends: mid_call\n    run: echo after\n',
    );
    h.writeDag(
      'mid',
      'steps:\n  - id: fan\n    call: leaf\n    parallel:\n      items: [a, b]\n    params: "X=${ITEM}"\n' +
        '  - id: tail\n    depends: fan\n    run: echo tail\n',
    );
    // Item b fails until the file `ok` exists; every execution of build is counted per item.
    h.writeDag(
      'leaf',
      'params:\n  - X: none\nsteps:\n  - id: build\n    run: |\n' +
        '      echo "build $X" >> "$DAGU_HOME/count-$X"\n      test "$X" = a || test -f "$DAGU_HOME/ok"\n' +
        '  - id: pack\n    depends: build\n    run: echo "pack $X"\n',
    );
  });

  const countOf = (x: string) =>
    readFileSync(path.join(h.home, `count-${x}`), 'utf8')
      .trim()
      .split('\n').length;

  it('retries one step of a nested sub-run in place, and only the call steps on the way to it', async () => {
    const first = await dagu(['start', 'root'], h.env);
    expect(first.code).toBe(1);
    const rootId = runIdOf(first.stdout);
    const midId = stepOf(await status(rootId), 'mid_call').sub_runs![0].run_id;
    const leaves = stepOf(await status(midId), 'fan').sub_runs!;
    const failed = leaves.find((l) => l.status === 'failed')!;
    const other = leaves.find((l) => l.status === 'succeeded')!;
    writeFileSync(path.join(h.home, 'ok'), '');

    const retried = await dagu(
      ['retry', '--run-id', rootId, '--sub-run-id', failed.run_id, '--step', 'build', 'root'],
      h.env,
    );
    expect(retried.code, retried.stderr).toBe(0);
    const root = await status(rootId);
    expect(root).toMatchObject({ status: 'succeeded' });
    // The call step was retried with its old child; the steps after it were not run again.
    expect(stepOf(root, 'mid_call')).toMatchObject({ status: 'succeeded', sub_runs: [{ run_id: midId }] });
    expect(stepOf(root, 'after').status).toBe('aborted');
    const mid = await status(midId);
    expect(
      stepOf(mid, 'fan')
        .sub_runs!.map((r) => r.run_id)
        .sort(),
    ).toEqual(leaves.map((l) => l.run_id).sort());
    expect(stepOf(mid, 'tail').status).toBe('aborted');
    const leaf = JSON.parse((await dagu(['status', '--json', failed.run_id], h.env)).stdout) as {
      attempt: number;
      steps: Step[];
    };
    expect(leaf.attempt).toBe(2);
    expect(leaf.steps.map((s) => [s.name, s.status])).toEqual([
      ['build', 'succeeded'],
      ['pack', 'aborted'],
    ]);
    // The other item's child was kept as it was: not run again.
    const kept = JSON.parse((await dagu(['status', '--json', other.run_id], h.env)).stdout) as {
      attempt: number;
    };
    expect(kept.attempt).toBe(1);
    expect([countOf('a'), countOf('b')]).toEqual([1, 2]);
  });

  it('with --downstream, runs the steps after the retried one in the sub-run', async () => {
    const rootId = runIdOf((await dagu(['start', 'root'], h.env)).stdout);
    const midId = stepOf(await status(rootId), 'mid_call').sub_runs![0].run_id;
    const failed = stepOf(await status(midId), 'fan').sub_runs!.find((l) => l.status === 'failed')!;
    writeFileSync(path.join(h.home, 'ok'), '');
    const r = await dagu(
      ['retry', '--run-id', rootId, '--sub-run-id', failed.run_id, '--step', 'build', '--downstream', 'root'],
      h.env,
    );
    expect(r.code, r.stderr).toBe(0);
    const leaf = await status(failed.run_id);
    expect(leaf.steps.map((s) => s.status)).toEqual(['succeeded', 'succeeded']);
    // Only in the sub-run: the call steps on the way keep their downstream as it was.
    expect(stepOf(await status(midId), 'tail').status).toBe('aborted');
  });

  it('retries a step of a local DAG of the calling file, which no DAG file names', async () => {
    const ok = path.join(h.home, 'ok');
    h.writeDag(
      'mend',
      'type: chain\nsteps:\n  - name: go\n    call: part\n---\nname: part\nsteps:\n' +
        `  - name: build\n    run: test -f ${ok}\n  - name: pack\n    depends: build\n    run: echo packed\n`,
    );
    const rootId = runIdOf((await dagu(['start', 'mend'], h.env)).stdout);
    const partId = stepOf(await status(rootId), 'go').sub_runs![0].run_id;
    writeFileSync(ok, '');
    const r = await dagu(['retry', '--sub-run-id', partId, '--step', 'build', '--downstream', rootId], h.env);
    expect(r.code, r.stderr).toBe(0);
    const part = await status(partId);
    expect(part).toMatchObject({ attempt: 2, status: 'succeeded', parent: { run_id: rootId, step: 'go' } });
    expect(part.steps.map((s) => s.status)).toEqual(['succeeded', 'succeeded']);
    // Retried alone, it is found again in the file it was written in.
    const alone = await dagu(['retry', '--quiet', partId], h.env);
    expect(alone.code, alone.stderr).toBe(0);
    expect(await status(partId)).toMatchObject({ attempt: 3, status: 'succeeded', dag_name: 'part' });
  });

  it('refuses a sub-run id without --step, a step the sub-run lacks and a run not under the root', async () => {
    const rootId = runIdOf((await dagu(['start', 'root'], h.env)).stdout);
    const midId = stepOf(await status(rootId), 'mid_call').sub_runs![0].run_id;
    const noStep = await dagu(['retry', '--run-id', rootId, '--sub-run-id', midId, 'root'], h.env);
    expect([noStep.code, noStep.stderr.trim()]).toEqual([2, 'dagu: --sub-run-id requires --step']);
    const badStep = await dagu(
      ['retry', '--run-id', rootId, '--sub-run-id', midId, '--step', 'nope', 'root'],
      h.env,
    );
    expect(badStep.code).toBe(1);
    expect(badStep.stderr).toContain(`retry step not found: nope in DAG run ${midId}`);
    const otherRoot = runIdOf((await dagu(['start', 'leaf'], h.env)).stdout);
    const notUnder = await dagu(
      ['retry', '--run-id', rootId, '--sub-run-id', otherRoot, '--step', 'build', 'root'],
      h.env,
    );
    expect(notUnder.code).toBe(1);
    expect(notUnder.stderr).toContain(`DAG run ${otherRoot} is not under run ${rootId}`);
    // Nothing was retried by any of these.
    expect((await status(rootId)).status).toBe('failed');
  });
});
