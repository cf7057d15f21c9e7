// Dagu's build DAGs (`type: build`) as the reader sees them: the `inputs:` key, the path form of `outputs:`,
// and every rule about declared paths Dagu checks when it loads the file (readBuild.ts).

import { describe, expect, it } from 'vitest';
import { formatDagError, parseDag } from './parseDag';
import { hasBuildPaths, mayBeReused, pathOutputs } from '../build/steps';
import type { DagSpec } from '../types';

const FILE = '/srv/dags/etl.yaml';
const yaml = (...rows: string[]) => rows.join('\n') + '\n';
/** A build DAG with an authored working_dir and these step rows (the first step row is line 4). */
const build = (...rows: string[]) => yaml('type: build', 'working_dir: /srv/w', 'steps:', ...rows);
/** The step `a` (line 4), running `x`, with these extra rows (line 6 on). */
const stepA = (...rows: string[]) => build('  - id: a', '    run: x', ...rows);
const PATHS = ['    inputs: [{name: i, path: /srv/in.txt}]', '    outputs: [{name: o, path: /srv/out.txt}]'];

function parse(text: string, file: string | null = FILE): DagSpec {
  const r = parseDag(text, { file, defaultName: 'etl' });
  if (!r.ok) throw new Error(r.errors.map(formatDagError).join('\n'));
  return r.dag;
}

/** Each error as `line:column: field: message`, with ` [unsupported]` for the unsupported kind. */
function errors(text: string, file: string | null = FILE): string[] {
  const r = parseDag(text, { file, defaultName: 'etl' });
  if (r.ok) throw new Error('expected the DAG to be rejected');
  return r.errors.map(
    (e) => formatDagError({ ...e, file: null }).replace('<input>:', '') + (e.kind ? ' [unsupported]' : ''),
  );
}

describe('type: build', () => {
  it('is accepted, in any case, and keeps the declared paths', () => {
    const dag = parse(
      yaml(
        'type: Build',
        'working_dir: /srv/w',
        'steps:',
        '  - id: a',
        '    run: x',
        '    inputs: [{name: src, path: " in.txt "}]',
        '    outputs: [{name: bin, path: out.txt}]',
      ),
    );
    expect(dag.type).toBe('build');
    expect(dag.steps[0].inputs).toEqual([{ name: 'src', path: 'in.txt' }]);
    expect(dag.steps[0].outputs).toEqual([{ name: 'bin', type: 'string', path: 'out.txt' }]);
    expect(parse(yaml('type: BUILD', 'steps:', '  - run: x')).type).toBe('build');
  });

  it('names build among the types an unknown one is told about', () => {
    expect(errors(yaml('type: dag', 'steps:', '  - run: x'))).toEqual([
      '1:7: type: must be graph, chain or build, got "dag"',
    ]);
  });
});

describe('inputs: hostile shapes', () => {
  it.each([
    [
      'not a list',
      '    inputs: foo',
      '6:13: steps[0].inputs: inputs must be a non-empty sequence (list) of {name, path}, got a string "foo"',
    ],
    [
      'empty',
      '    inputs: []',
      '6:13: steps[0].inputs: inputs must be a non-empty sequence (list) of {name, path}, got a list',
    ],
    [
      'null',
      '    inputs: null',
      '6:5: steps[0].inputs: inputs must be a non-empty sequence (list) of {name, path}, got nothing',
    ],
    [
      'an item not a map',
      '    inputs: [foo]',
      '6:14: steps[0].inputs[0]: an input must be a map with a name and a path, got a string "foo"',
    ],
    [
      'an empty map',
      '    inputs: [{}]',
      '6:14: steps[0].inputs[0]: an input must be a map with a name and a path, got a map',
    ],
    ['missing name', '    inputs: [{path: a.txt}]', '6:14: steps[0].inputs[0]: name is required'],
    [
      'null name',
      '    inputs: [{name: null, path: a.txt}]',
      '6:15: steps[0].inputs[0].name: name is required',
    ],
    [
      'a name that is not a string',
      '    inputs: [{name: [a], path: a.txt}]',
      '6:21: steps[0].inputs[0].name: must be a string, got a list',
    ],
    [
      'a bad name',
      '    inputs: [{name: 1x, path: a.txt}]',
      '6:21: steps[0].inputs[0].name: name must match ^[A-Za-z][A-Za-z0-9_]*$ (a letter, then letters, digits and _), got "1x"',
    ],
    [
      'a duplicate name',
      '    inputs: [{name: src, path: a.txt}, {name: src, path: b.txt}]',
      '6:47: steps[0].inputs[1].name: duplicate input name "src"',
    ],
    ['missing path', '    inputs: [{name: src}]', '6:14: steps[0].inputs[0]: path is required'],
    [
      'an empty path',
      "    inputs: [{name: src, path: '  '}]",
      '6:32: steps[0].inputs[0].path: path must not be empty',
    ],
    [
      'a path that is a list',
      '    inputs: [{name: src, path: [a]}]',
      '6:32: steps[0].inputs[0].path: must be a string, got a list',
    ],
    [
      'a path that is a number',
      '    inputs: [{name: src, path: 12}]',
      '6:32: steps[0].inputs[0].path: must be a string, got a number 12',
    ],
    [
      'an unknown key',
      '    inputs: [{name: src, path: a.txt, mode: r}]',
      '6:39: steps[0].inputs[0].mode: unknown key "mode" (allowed: name, path)',
    ],
  ])('refuses %s', (_what, row, message) => {
    expect(errors(stepA(row))).toEqual([message]);
  });

  it('needs an id on the step', () => {
    expect(errors(build('  - name: a', '    run: x', '    inputs: [{name: src, path: a.txt}]'))).toEqual([
      '4:5: steps[0].inputs: a step with inputs must define id',
    ]);
    expect(
      errors(build("  - id: ''", '    name: a', '    run: x', '    inputs: [{name: src, path: a.txt}]')),
    ).toEqual(['4:5: steps[0].inputs: a step with inputs must define id']);
  });
});

describe('outputs: the path form', () => {
  it.each([
    [
      'an empty path',
      "    outputs: [{name: o, path: ''}]",
      '6:31: steps[0].outputs[0].path: path must not be empty',
    ],
    [
      'a path that is not a string',
      '    outputs: [{name: o, path: {a: 1}}]',
      '6:31: steps[0].outputs[0].path: must be a string, got a map',
    ],
    [
      'a path with a type',
      '    outputs: [{name: o, path: o.txt, type: string}]',
      '6:44: steps[0].outputs[0].type: type and path cannot be used together',
    ],
    [
      'two path outputs',
      '    outputs: [{name: o, path: o.txt}, {name: p, path: p.txt}]',
      '4:5: steps[0].outputs: step a declares more than one path output',
    ],
  ])('refuses %s', (_what, row, message) => {
    expect(errors(stepA(row))).toEqual([message]);
  });

  it('is refused outside a build DAG, naming the first kind of path the step declares', () => {
    expect(errors(yaml('steps:', '  - id: a', '    run: x', '    inputs: [{name: i, path: /i}]'))).toEqual([
      '2:5: steps[0].inputs: step a declares build paths but DAG type is not "build"',
    ]);
    expect(
      errors(yaml('type: chain', 'steps:', '  - id: a', '    run: x', '    outputs: [{name: o, path: /o}]')),
    ).toEqual(['3:5: steps[0].outputs: step a declares build paths but DAG type is not "build"']);
  });
});

describe('the steps that may declare paths', () => {
  it('refuses paths on a call step, a parallel call and a non-command action', () => {
    expect(
      errors(
        yaml(
          'type: build',
          'working_dir: /srv/w',
          'steps:',
          '  - id: a',
          '    call: child',
          '    outputs: [{name: o, path: o.txt}]',
          '---',
          'name: child',
          'steps:',
          '  - run: x',
        ),
      ),
    ).toEqual(['4:5: steps[0].type: build paths are not supported by executor "dag"']);
    expect(
      errors(
        build('  - id: a', '    call: child', '    parallel: [a, b]', '    outputs: [{name: o, path: /o}]'),
      ),
    ).toEqual(['4:5: steps[0].type: build paths are not supported by executor "dag"']);
    expect(
      errors(
        build(
          '  - id: a',
          '    action: http.request',
          "    with: {url: 'http://x', method: GET}",
          '    outputs: [{name: o, path: /o}]',
        ),
      ),
    ).toEqual(['4:5: steps[0].type: build paths are not supported by executor "http"']);
  });

  it('refuses paths in a lifecycle handler', () => {
    expect(
      errors(
        yaml(
          'type: build',
          'working_dir: /srv/w',
          'handler_on:',
          '  success:',
          '    id: h',
          '    run: x',
          '    outputs: [{name: o, path: /o}]',
          'steps:',
          '  - run: x',
        ),
      ),
    ).toEqual(['4:3: handler_on: build paths are not supported in lifecycle handlers']);
  });

  it('refuses paths in a foreach body', () => {
    expect(
      errors(
        build(
          '  - id: each',
          '    foreach:',
          '      items: [a, b]',
          '      steps:',
          '        - id: inner',
          '          run: x',
          '          outputs: [{name: o, path: /o}]',
        ),
      ),
    ).toEqual(['4:5: steps[0].foreach.steps: build paths are not supported in foreach steps']);
  });

  it('refuses mark_success on a step with a path output', () => {
    expect(errors(stepA('    continue_on: {failure: true, mark_success: true}', PATHS[1]))).toEqual([
      '4:5: steps[0].continue_on.mark_success: build path output step a cannot mark a failed attempt as successful',
    ]);
    // Without a path output it is allowed.
    expect(parse(stepA('    continue_on: {failure: true, mark_success: true}', PATHS[0])).steps).toHaveLength(
      1,
    );
  });
});

describe('what a declared path may refer to', () => {
  it('refuses command substitution', () => {
    expect(errors(stepA("    inputs: [{name: i, path: '$(pwd)/i.txt'}]"))).toEqual([
      '4:5: steps[0].inputs: build paths cannot use command substitution',
    ]);
    expect(errors(stepA("    outputs: [{name: o, path: '`pwd`/o.txt'}]"))).toEqual([
      '4:5: steps[0].outputs: build paths cannot use command substitution',
    ]);
  });

  it('refuses step references and the other namespace of paths', () => {
    expect(errors(stepA("    outputs: [{name: o, path: '${steps.b.outputs.x}'}]"))).toEqual([
      '4:5: steps[0].outputs: build paths must resolve before step execution',
    ]);
    expect(errors(stepA("    outputs: [{name: o, path: '/d/${inputs.i}'}]", PATHS[0]))).toEqual([
      '4:5: steps[0].outputs: build paths must resolve before step execution',
    ]);
    expect(errors(stepA("    inputs: [{name: i, path: '${outputs.o}'}]", PATHS[1]))).toEqual([
      '4:5: steps[0].inputs: path output references are available only during executor attempts',
    ]);
  });

  it('accepts params and env references, resolved when the run starts', () => {
    const dag = parse(
      yaml(
        'type: build',
        'working_dir: /w',
        'params: [OUT=o.txt]',
        'steps:',
        '  - id: a',
        '    run: x',
        "    outputs: [{name: o, path: '${OUT}'}]",
      ),
    );
    expect(pathOutputs(dag.steps[0])).toEqual([{ name: 'o', path: '${OUT}' }]);
  });
});

describe('where ${inputs.x} and ${outputs.x} may be used', () => {
  it('accepts both in the command', () => {
    const dag = parse(stepA(...PATHS).replace('run: x', "run: 'cp ${inputs.i} ${outputs.o}'"));
    expect(dag.steps[0].command).toEqual(['cp ${inputs.i} ${outputs.o}']);
  });

  it.each([
    [
      'working_dir',
      "    working_dir: '${outputs.o}'",
      '4:5: steps[0].working_dir: path output references are available only during executor attempts',
    ],
    [
      'working_dir',
      "    working_dir: '${inputs.i}'",
      '4:5: steps[0].working_dir: input path references are unavailable before step execution',
    ],
    [
      'stdout',
      "    stdout: '${outputs.o}'",
      '4:5: steps[0].stdout: path output references are available only during executor attempts',
    ],
    [
      'stdout',
      "    stdout: '${inputs.i}'",
      '4:5: steps[0].stdout: input path references are unavailable before step execution',
    ],
    [
      'a precondition',
      "    preconditions: [{condition: '${outputs.o}', expected: y}]",
      '4:5: steps[0].preconditions: path output references are available only during executor attempts',
    ],
    // signal_on_stop must be a signal name: the reference is refused as one (before the build rules see it).
    [
      'signal_on_stop',
      "    signal_on_stop: '${outputs.o}'",
      '8:21: steps[0].signal_on_stop: invalid signal "${outputs.o}" (use a name like SIGINT or SIGTERM)',
    ],
    [
      'signal_on_stop',
      "    signal_on_stop: '${inputs.i}'",
      '8:21: steps[0].signal_on_stop: invalid signal "${inputs.i}" (use a name like SIGINT or SIGTERM)',
    ],
  ])('refuses them in %s', (_field, row, message) => {
    expect(errors(stepA(...PATHS, row))).toEqual([message]);
  });

  it('refuses them in the step shell (with command, which a shell may go with)', () => {
    const withShell = (shell: string) =>
      errors(build('  - id: a', '    command: x', `    shell: '${shell}'`, ...PATHS));
    expect(withShell('${outputs.o}')).toEqual([
      '4:5: steps[0].shell: path output references are available only during executor attempts',
    ]);
    expect(withShell('bash ${inputs.i}')).toEqual([
      '4:5: steps[0].shell_args: input path references are unavailable before step execution',
    ]);
  });

  it('accepts ${inputs.x} in a precondition (the inputs are known then)', () => {
    expect(
      parse(stepA(...PATHS, "    preconditions: [{condition: 'test -f ${inputs.i}'}]")).steps,
    ).toHaveLength(1);
  });

  it('refuses them in the DAG working_dir, shell and preconditions', () => {
    expect(errors(yaml('type: build', "working_dir: '${outputs.o}'", 'steps:', '  - run: x'))).toEqual([
      '1:1: working_dir: path output references are available only during executor attempts',
    ]);
    expect(
      errors(yaml('type: build', 'working_dir: /w', "shell: 'bash ${inputs.i}'", 'steps:', '  - run: x')),
    ).toEqual(['1:1: shell_args: input path references are unavailable before step execution']);
    for (const condition of [
      "{condition: '${inputs.i}', expected: x}",
      "{condition: 'test -f ${outputs.o}'}",
    ]) {
      expect(
        errors(
          yaml(
            'type: build',
            'working_dir: /w',
            'preconditions:',
            `  - ${condition}`,
            'steps:',
            '  - run: x',
          ),
        ),
      ).toEqual(['1:1: preconditions: build path references are unavailable to DAG preconditions']);
    }
  });
});

describe('relative paths need a stable base', () => {
  const relative = yaml(
    'type: build',
    'steps:',
    '  - id: a',
    '    run: x',
    '    outputs: [{name: o, path: o.txt}]',
  );

  it('refuses a relative path in a DAG with neither working_dir nor a file', () => {
    expect(errors(relative, null)).toEqual([
      '1:1: working_dir: relative build paths require an authored or caller-supplied working_dir',
    ]);
    expect(
      errors(
        yaml('type: build', 'steps:', '  - id: a', '    run: x', '    inputs: [{name: i, path: i.txt}]'),
        null,
      ),
    ).toEqual(['1:1: working_dir: relative build paths require an authored or caller-supplied working_dir']);
  });

  it('accepts it with a file, with a working_dir, and an absolute path without either', () => {
    expect(parse(relative).steps[0].outputs?.[0].path).toBe('o.txt');
    expect(parse(yaml('working_dir: /w', relative), null).steps).toHaveLength(1);
    expect(parse(relative.replace('path: o.txt', 'path: /o.txt'), null).steps).toHaveLength(1);
  });
});

describe("a reusable producer's runtime outputs", () => {
  const producer = ['  - id: gen', '    run: x', '    outputs: [{name: o, path: /o}]'];
  const message = (line: number, step: number) =>
    `${line}:5: steps[${step}]: runtime outputs from reusable build step gen are unavailable on reuse; use \${steps.gen.outputs.<name>}`;

  it.each([
    ["    run: 'cat ${gen.stdout}'"],
    ["    run: 'cat ${gen.stderr}'"],
    ["    run: 'echo ${gen.output}'"],
    ["    run: 'echo ${gen.exit_code}'"],
    ["    run: 'echo ${gen.outputs.o}'"],
    ['    run: x', "    env: [{X: '${gen.stdout}'}]"],
    ['    run: x', "    preconditions: [{condition: '${gen.exit_code}', expected: '0'}]"],
    ['    run: x', "    working_dir: '${gen.stdout}'"],
  ])('are refused: %s', (...rows) => {
    expect(errors(build(...producer, '  - id: c', ...rows))).toEqual([message(7, 1)]);
  });

  it('are refused once per step that uses them', () => {
    expect(
      errors(
        build(
          ...producer,
          '  - id: c1',
          "    run: 'cat ${gen.stdout}'",
          '  - id: c2',
          "    run: 'cat ${gen.output} ${gen.exit_code}'",
        ),
      ),
    ).toEqual([message(7, 1), message(9, 2)]);
  });

  it('leave ${steps.id.outputs.x} and the steps of other ids alone', () => {
    const dag = parse(
      build(...producer, '  - id: c', "    run: 'cat ${steps.gen.outputs.o} ${generator.stdout}'"),
    );
    expect(dag.steps[1].command).toEqual(['cat ${steps.gen.outputs.o} ${generator.stdout}']);
  });

  it('are allowed of a producer that cannot be reused, or outside a build DAG', () => {
    // An output variable makes the producer ineligible: it always runs, so its stdout exists.
    expect(
      parse(build(...producer, '    output: VAR', '  - id: c', "    run: 'cat ${gen.stdout}'")).steps,
    ).toHaveLength(2);
    // Inputs alone: nothing to reuse.
    expect(
      parse(
        build(
          '  - id: gen',
          '    run: x',
          '    inputs: [{name: i, path: /i}]',
          '  - id: c',
          "    run: 'cat ${gen.stdout}'",
        ),
      ).steps,
    ).toHaveLength(2);
    expect(
      parse(
        yaml(
          'steps:',
          '  - id: gen',
          '    run: x',
          '    outputs: [{name: o}]',
          '  - id: c',
          "    run: 'cat ${gen.stdout}'",
        ),
      ).steps,
    ).toHaveLength(2);
  });
});

describe('worker_selector on a build DAG', () => {
  it('is refused unless local or empty', () => {
    expect(
      errors(
        yaml('type: build', 'working_dir: /w', "worker_selector: {gpu: 'true'}", 'steps:', '  - run: x'),
      ),
    ).toEqual([
      '3:18: worker_selector: build DAGs run on this host only: they cannot be dispatched to workers',
    ]);
    expect(
      parse(yaml('type: build', 'working_dir: /w', 'worker_selector: local', 'steps:', '  - run: x')).type,
    ).toBe('build');
    expect(
      parse(yaml('type: build', 'working_dir: /w', 'worker_selector: {}', 'steps:', '  - run: x')).type,
    ).toBe('build');
  });

  it('is allowed on another DAG', () => {
    expect(parse(yaml("worker_selector: {gpu: 'true'}", 'steps:', '  - run: x')).worker_selector).toEqual({
      gpu: 'true',
    });
  });
});

describe('mayBeReused and hasBuildPaths', () => {
  const first = (text: string) => {
    const dag = parse(text);
    return { dag, step: dag.steps[0] };
  };

  it('is true only of a command step of a build DAG with an id and exactly one path output', () => {
    const { dag, step } = first(stepA(PATHS[1]));
    expect(mayBeReused(dag, step)).toBe(true);
    expect(mayBeReused({ type: 'graph' }, step)).toBe(false);
    expect(mayBeReused(dag, { ...step, id: null })).toBe(false);
    expect(hasBuildPaths(step)).toBe(true);
  });

  it('is false with inputs only, a second (value) output, an output variable or a repeat policy', () => {
    const no = (...rows: string[]) => {
      const { dag, step } = first(stepA(...rows));
      expect(mayBeReused(dag, step)).toBe(false);
    };
    no(PATHS[0]);
    no('    outputs: [{name: o, path: /o}, {name: v}]');
    no(PATHS[1], '    output: VAR');
    no(PATHS[1], '    repeat_policy: {repeat: while, condition: x, expected: y, interval_sec: 1}');
    no(PATHS[1], '    stdout: {outputs: {decode: yaml}}');
  });

  it('sees no paths in a step with only value outputs', () => {
    expect(
      hasBuildPaths(parse(yaml('steps:', '  - id: a', '    run: x', '    outputs: [{name: v}]')).steps[0]),
    ).toBe(false);
  });
});
