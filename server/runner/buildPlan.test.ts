// planBuild on real files: declared paths resolved against the DAG's stable base, made canonical and
// compared; the dependencies they imply; and the plans Dagu refuses.

import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StepSpec } from '../core/types';
import { BuildPlanError, buildPathBase, planBuild } from './buildPlan';

let base: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'dagu-build-plan-')));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

/** A step with only what planBuild reads. */
function step(
  name: string,
  o: {
    inputs?: Record<string, string>;
    output?: [string, string];
    depends?: string[];
    stdout?: string;
    stderr?: string;
  } = {},
): StepSpec {
  return {
    name,
    id: name,
    depends: o.depends ?? [],
    ...(o.inputs ? { inputs: Object.entries(o.inputs).map(([n, p]) => ({ name: n, path: p })) } : {}),
    ...(o.output ? { outputs: [{ name: o.output[0], type: 'string', path: o.output[1] }] } : {}),
    stdout_file: o.stdout ?? null,
    stderr_file: o.stderr ?? null,
  } as unknown as StepSpec;
}

const same = (text: string) => text;

async function refused(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BuildPlanError);
  return (err as Error).message;
}

describe('buildPathBase', () => {
  it('is the authored working directory, else the directory of the source file or the file', () => {
    expect(buildPathBase({ file: '/a/dag.yaml', source_file: '/src/dag.yaml' }, '/w')).toBe('/w');
    expect(buildPathBase({ file: '/a/dag.yaml', source_file: '/src/dag.yaml' }, null)).toBe('/src');
    expect(buildPathBase({ file: '/a/dag.yaml' }, null)).toBe('/a');
    expect(buildPathBase({ file: null }, null)).toBeNull();
  });
});

describe('planBuild: resolving paths', () => {
  it('resolves relative paths against the base, and leaves steps without paths empty', async () => {
    await mkdir(path.join(base, 'sub'));
    const plan = await planBuild(
      { steps: [step('a', { inputs: { src: 'in.txt' }, output: ['bin', 'sub/../sub/out.txt'] }), step('b')] },
      base,
      same,
    );
    expect(plan.steps.get('a')).toEqual({
      inputs: [{ name: 'src', path: path.join(base, 'in.txt'), key: path.join(base, 'in.txt') }],
      output: { name: 'bin', path: path.join(base, 'sub/out.txt'), key: path.join(base, 'sub/out.txt') },
    });
    expect(plan.steps.get('b')).toEqual({ inputs: [], output: null });
    expect(plan.inferred.size).toBe(0);
  });

  it('fills in references through the resolve callback (params)', async () => {
    const seen: string[] = [];
    const plan = await planBuild({ steps: [step('a', { output: ['bin', '${OUT}'] })] }, base, (text) => {
      seen.push(text);
      return text.replace('${OUT}', 'made.txt');
    });
    expect(seen).toEqual(['${OUT}']);
    expect(plan.steps.get('a')!.output!.path).toBe(path.join(base, 'made.txt'));
  });

  it('refuses a path whose reference does not resolve', async () => {
    expect(
      await refused(planBuild({ steps: [step('a', { inputs: { src: '${NOPE}/x' } })] }, base, same)),
    ).toBe('step a input src path must resolve before execution');
    expect(
      await refused(planBuild({ steps: [step('a', { output: ['bin', 'o-${NOPE}'] })] }, base, same)),
    ).toBe('step a output bin path must resolve before execution');
  });

  it('refuses a relative path without a base', async () => {
    expect(await refused(planBuild({ steps: [step('a', { output: ['bin', 'o.txt'] })] }, null, same))).toBe(
      'step a output bin: relative build path "o.txt" has no stable working directory',
    );
  });

  it('refuses an output whose directory does not exist, naming the path', async () => {
    const msg = await refused(
      planBuild({ steps: [step('a', { output: ['bin', 'nodir/o.txt'] })] }, base, same),
    );
    expect(msg).toMatch(/^step a output bin: resolve output parent for /);
    expect(msg).toContain(path.join(base, 'nodir/o.txt'));
  });

  it('accepts an input that does not exist yet (its directory neither)', async () => {
    const plan = await planBuild({ steps: [step('a', { inputs: { src: 'later/in.txt' } })] }, base, same);
    expect(plan.steps.get('a')!.inputs[0].path).toBe(path.join(base, 'later/in.txt'));
  });

  it('refuses an output that is a symlink or a directory', async () => {
    await writeFile(path.join(base, 'target'), 'x');
    await symlink(path.join(base, 'target'), path.join(base, 'link'));
    await mkdir(path.join(base, 'dir'));
    expect(await refused(planBuild({ steps: [step('a', { output: ['o', 'link'] })] }, base, same))).toBe(
      `step a output o: output path must not be a symlink: ${path.join(base, 'link')}`,
    );
    expect(await refused(planBuild({ steps: [step('a', { output: ['o', 'dir'] })] }, base, same))).toBe(
      `step a output o: output path must be a regular file: ${path.join(base, 'dir')}`,
    );
  });
});

describe('planBuild: comparing paths', () => {
  it('sees ./a.txt and a.txt as one output with two producers', async () => {
    expect(
      await refused(
        planBuild(
          { steps: [step('one', { output: ['o', './a.txt'] }), step('two', { output: ['o', 'a.txt'] })] },
          base,
          same,
        ),
      ),
    ).toBe(`build output path ${path.join(base, 'a.txt')} has multiple producers: one and two`);
  });

  it('sees a path through a symlinked directory as its real path', async () => {
    await mkdir(path.join(base, 'real'));
    await symlink(path.join(base, 'real'), path.join(base, 'link'));
    const plan = await planBuild(
      {
        steps: [
          step('make', { output: ['o', 'link/o.txt'] }),
          step('use', { inputs: { src: path.join(base, 'real/o.txt') } }),
        ],
      },
      base,
      same,
    );
    expect(plan.steps.get('make')!.output!.path).toBe(path.join(base, 'real/o.txt'));
    expect(plan.inferred.get('use')).toEqual(new Set(['make']));
    // An input that does not exist yet, through the link, meets the output too.
    const other = await planBuild(
      {
        steps: [
          step('make', { output: ['o', 'real/p.txt'] }),
          step('use', { inputs: { src: 'link/p.txt' } }),
        ],
      },
      base,
      same,
    );
    expect(other.inferred.get('use')).toEqual(new Set(['make']));
    expect(
      await refused(
        planBuild(
          {
            steps: [
              step('one', { output: ['o', 'link/q.txt'] }),
              step('two', { output: ['o', 'real/q.txt'] }),
            ],
          },
          base,
          same,
        ),
      ),
    ).toBe(`build output path ${path.join(base, 'real/q.txt')} has multiple producers: one and two`);
  });

  it('refuses the same path as input and output of one step', async () => {
    expect(
      await refused(
        planBuild({ steps: [step('a', { inputs: { src: './x.txt' }, output: ['o', 'x.txt'] })] }, base, same),
      ),
    ).toBe(`step a declares the same path as input and output: ${path.join(base, 'x.txt')}`);
  });

  it('refuses a stdout or stderr file that is a declared path', async () => {
    expect(
      await refused(
        planBuild(
          { steps: [step('a', { output: ['o', 'x.txt'] }), step('log', { stdout: './x.txt' })] },
          base,
          same,
        ),
      ),
    ).toBe(`step log stdout path aliases build output produced by a: ${path.join(base, 'x.txt')}`);
    expect(
      await refused(
        planBuild(
          {
            steps: [
              step('a', { inputs: { src: 'in.txt' } }),
              step('log', { stderr: path.join(base, 'in.txt') }),
            ],
          },
          base,
          same,
        ),
      ),
    ).toBe(`step log stderr path aliases build input src declared by a: ${path.join(base, 'in.txt')}`);
    // Another file is fine.
    await planBuild(
      { steps: [step('a', { output: ['o', 'x.txt'] }), step('log', { stdout: 'y.txt' })] },
      base,
      same,
    );
  });

  it('takes a relative stdout file from the step’s own working directory, as the step opens it', async () => {
    await mkdir(path.join(base, 'sub'), { recursive: true });
    const dag = {
      steps: [step('a', { output: ['o', 'sub/x.txt'] }), step('log', { stdout: 'x.txt' })],
    };
    // In `sub`, the step's x.txt is a's output.
    expect(
      await refused(planBuild(dag, base, same, (s) => (s.name === 'log' ? path.join(base, 'sub') : base))),
    ).toBe(`step log stdout path aliases build output produced by a: ${path.join(base, 'sub', 'x.txt')}`);
    // In the DAG's directory, it is another file.
    await planBuild(dag, base, same, () => base);
    // A directory not known before the step starts: nothing to compare yet.
    await planBuild(dag, base, same, () => null);
  });

  it('refuses an absolute stdout file that is a declared path in a DAG without a base', async () => {
    const out = path.join(base, 'x.txt');
    expect(
      await refused(
        planBuild({ steps: [step('a', { output: ['o', out] }), step('log', { stdout: out })] }, null, same),
      ),
    ).toBe(`step log stdout path aliases build output produced by a: ${out}`);
    // A relative one has nothing to be resolved against: the step checks it when it opens it.
    await planBuild(
      { steps: [step('a', { output: ['o', out] }), step('log', { stdout: 'x.txt' })] },
      null,
      same,
    );
  });
});

describe('planBuild: inferred dependencies', () => {
  it('adds the producer to the consumer’s depends and lists it', async () => {
    const dag = {
      steps: [
        step('use', { inputs: { a: 'a.txt', b: 'b.txt', src: 'src.txt' } }),
        step('makeA', { output: ['o', 'a.txt'] }),
        step('makeB', { output: ['o', 'b.txt'] }),
      ],
    };
    const plan = await planBuild(dag, base, same);
    expect(plan.inferred).toEqual(new Map([['use', new Set(['makeA', 'makeB'])]]));
    expect(plan.specs.map((s) => [s.name, s.depends])).toEqual([
      ['use', ['makeA', 'makeB']],
      ['makeA', []],
      ['makeB', []],
    ]);
    // The DAG's own steps are not changed.
    expect(dag.steps[0].depends).toEqual([]);
    expect(plan.specs[1]).toBe(dag.steps[1]);
  });

  it('does not add a producer the consumer already depends on', async () => {
    const plan = await planBuild(
      {
        steps: [
          step('make', { output: ['o', 'a.txt'] }),
          step('use', { inputs: { a: 'a.txt' }, depends: ['make'] }),
        ],
      },
      base,
      same,
    );
    expect(plan.specs[1].depends).toEqual(['make']);
    expect(plan.inferred.get('use')).toEqual(new Set(['make']));
  });

  it('refuses a cycle through inferred edges', async () => {
    const msg = await refused(
      planBuild(
        {
          steps: [
            step('a', { inputs: { i: 'b.txt' }, output: ['o', 'a.txt'] }),
            step('b', { inputs: { i: 'a.txt' }, output: ['o', 'b.txt'] }),
          ],
        },
        base,
        same,
      ),
    );
    expect(msg).toMatch(/^infer dependency (a -> b|b -> a): the steps' dependencies would form a cycle$/);
    // Through an explicit edge too: b depends on a, and a reads what b makes.
    const explicit = await refused(
      planBuild(
        {
          steps: [
            step('a', { inputs: { i: 'b.txt' } }),
            step('b', { output: ['o', 'b.txt'], depends: ['a'] }),
          ],
        },
        base,
        same,
      ),
    );
    expect(explicit).toMatch(/would form a cycle$/);
  });
});
