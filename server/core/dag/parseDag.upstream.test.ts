// Load rules taken from Dagu's own conformance specs (spec004 consts, spec009 step references, spec012
// declared outputs, spec023 preconditions) and schema (file, wait, http and noop actions, remote and custom
// actions, schema-backed params).

import { describe, expect, it } from 'vitest';
import { formatDagError, parseDag } from './parseDag';
import type { DagSpec } from '../types';

const FILE = '/srv/dags/etl.yaml';
const yaml = (...rows: string[]) => rows.join('\n') + '\n';
const step = (...rows: string[]) => yaml('steps:', ...rows);

function parse(text: string): DagSpec {
  const r = parseDag(text, { file: FILE, defaultName: 'etl' });
  if (!r.ok) throw new Error(r.errors.map(formatDagError).join('\n'));
  return r.dag;
}

/** Each error as `line:column: field: message`, with ` [unsupported]` for the unsupported kind. */
function errors(text: string): string[] {
  const r = parseDag(text, { file: FILE, defaultName: 'etl' });
  if (r.ok) throw new Error('expected the DAG to be rejected');
  return r.errors.map(
    (e) => formatDagError({ ...e, file: null }).replace('<input>:', '') + (e.kind ? ' [unsupported]' : ''),
  );
}

describe('step ids, names and depends (spec009)', () => {
  it('reads a number in depends as the name it spells', () => {
    const dag = parse(step('  - {name: "42", run: a}', '  - {id: after, depends: [42], run: b}'));
    expect(dag.steps[1].depends).toEqual(['42']);
  });

  it('trims ids and names, and matches depends against the trimmed ones', () => {
    const dag = parse(
      step(
        '  - {id: " build ", name: " Build step ", run: a}',
        '  - {id: after_name, depends: Build step, run: b}',
        '  - {id: after_id, depends: [after_name, build], run: c}',
      ),
    );
    expect(dag.steps.map((s) => [s.name, s.id, s.depends])).toEqual([
      ['Build step', 'build', []],
      ['after_name', 'after_name', ['Build step']],
      ['after_id', 'after_id', ['after_name', 'Build step']],
    ]);
  });

  it('does not trim a dependency, and sees a trimmed id as a duplicate', () => {
    expect(
      errors(
        step('  - {id: build, name: Build Step, run: a}', '  - {id: deploy, depends: " build ", run: b}'),
      ),
    ).toEqual(['3:27: steps[1].depends: step " build " does not exist']);
    expect(errors(step('  - {id: " build ", name: A, run: a}', '  - {id: build, name: B, run: b}'))).toEqual([
      '3:10: steps[1].id: id "build" is already used by steps[0]',
    ]);
  });

  it('counts a step name in UTF-8 bytes, at most 255', () => {
    expect(parse(step(`  - {name: "${'あ'.repeat(85)}", run: a}`)).steps[0].name).toHaveLength(85);
    expect(errors(step(`  - {name: "${'あ'.repeat(86)}", run: a}`))).toEqual([
      '2:12: steps[0].name: a step name has at most 255 bytes in UTF-8, got 258 (86 characters)',
    ]);
    expect(errors(step(`  - {name: "${'a'.repeat(256)}", run: a}`))).toEqual([
      '2:12: steps[0].name: a step name has at most 255 bytes in UTF-8, got 256',
    ]);
  });
});

describe('remote and custom actions, and errors that only follow from a refusal', () => {
  it('refuses remote actions as unsupported, once each; a custom action is read from its definition', () => {
    expect(
      errors(
        yaml(
          'actions:',
          '  greet: {template: {run: echo hi}}',
          'steps:',
          '  - {action: greet}',
          '  - {action: duckdb@v1, with: {sql: x}}',
          '  - {action: dagucloud/duckdb@v1.2.0}',
          '  - {action: embedded_echo, with: {message: hi}}',
        ),
      ),
    ).toEqual([
      // The definition's mistake is told once, where it is: not again at the step that calls it.
      '2:10: actions.greet.input_schema: input_schema is required',
      expect.stringMatching(/^5:14: steps\[1\]\.action: Dagu's remote actions .* \[unsupported\]$/),
      expect.stringMatching(/^6:14: steps\[2\]\.action: Dagu's remote actions .* \[unsupported\]$/),
      // Not declared: a typo, or an action a program embedding Dagu registers, which is refused as such.
      expect.stringMatching(
        /^7:14: steps\[3\]\.action: action "embedded_echo" is not one of Dagu's built-in actions, .* embedding Dagu registers are not supported by this product \[unsupported\]$/,
      ),
    ]);
  });

  it('keeps an unknown operation of a built-in family an error, with the family’s actions', () => {
    expect(errors(step('  - {action: file.touch}', '  - {type: wait}'))).toEqual([
      '2:14: steps[0].action: unknown action "file.touch" (file has file.copy, file.delete, file.list, file.mkdir, file.move, file.read, file.stat, file.write)',
      '3:12: steps[1].type: unknown action "wait" (use action: wait.duration, wait.until, wait.file or wait.http)',
    ]);
  });

  it('does not say a foreach step needs run, nor a step with only an object output (a noop)', () => {
    expect(
      errors(
        step(
          '  - id: each',
          '    foreach: [a, b]',
          '  - id: publish',
          '    output: {version: v1}',
          '  - name: plain',
        ),
      ),
    ).toEqual([
      '3:14: steps[0].foreach: foreach must be a map, got a list',
      '6:5: steps[2]: a step needs run, an action or a call',
    ]);
  });

  it('does not ask an OAuth smtp block for a host', () => {
    expect(errors(yaml('smtp:', '  oauth: {client_id: x}', 'steps:', '  - run: a'))).toEqual([
      "2:3: smtp.oauth: Dagu's SMTP OAuth is not supported by this product (use username and password) [unsupported]",
    ]);
    expect(errors(yaml('smtp:', '  port: 25', 'steps:', '  - run: a'))).toEqual([
      '2:3: smtp: smtp needs a host',
    ]);
  });
});

describe('schema-backed params', () => {
  it('reads an inline JSON Schema and {schema, values} (readParamSchema.test.ts has the rules)', () => {
    const inline = parse(
      yaml(
        'params:',
        '  type: object',
        '  properties:',
        '    region: {type: string, default: eu}',
        '  required: [region]',
        'steps:',
        '  - run: a',
      ),
    );
    expect(inline.params).toEqual([{ name: 'region', value: 'eu' }]);
    expect(inline.param_schema?.file).toBeNull();
    const declared = parse(yaml('params:', '  schema: ./p.json', '  values: {a: 1}', 'steps:', '  - run: a'));
    expect(declared.param_schema).toEqual({ schema: null, file: './p.json' });
    expect(declared.params).toEqual([{ name: 'a', value: '1' }]);
  });

  it('still reads a map of params that has keys named type or properties', () => {
    const dag = parse(yaml('params:', '  type: fast', '  properties: none', 'steps:', '  - run: a'));
    expect(dag.params).toEqual([
      { name: 'properties', value: 'none' },
      { name: 'type', value: 'fast' },
    ]);
  });
});

describe('preconditions (spec023)', () => {
  it('refuses a single map, blank or non-string condition, eval and expected, and an empty re:', () => {
    expect(errors(yaml('preconditions:', '  condition: test -f x', 'steps:', '  - run: a'))).toEqual([
      '2:3: preconditions: must be a command or a list (write the condition as a list item: - condition: ...)',
    ]);
    expect(
      errors(
        yaml(
          'preconditions:',
          '  - {condition: "   ", expected: ready}',
          '  - {eval: "  ", expected: ready}',
          '  - {condition: ready, expected: "  "}',
          '  - {condition: ready, expected: true}',
          '  - {condition: true, expected: ready}',
          '  - {condition: ready, expected: "re:"}',
          '  - {condition: ready, expected: "re:  "}',
          '  - "   "',
          '  - 1',
          'steps:',
          '  - run: a',
        ),
      ),
    ).toEqual([
      '2:17: preconditions[0].condition: must not be empty',
      '3:12: preconditions[1].eval: must not be empty',
      '4:34: preconditions[2].expected: must not be empty',
      '5:34: preconditions[3].expected: must be a non-empty string, got a boolean true',
      '6:17: preconditions[4].condition: must be a non-empty string, got a boolean true',
      '7:34: preconditions[5].expected: the regular expression (regexp) after re: must not be empty',
      '8:34: preconditions[6].expected: the regular expression (regexp) after re: must not be empty',
      '9:5: preconditions[7]: a precondition must not be empty',
      '10:5: preconditions[8]: a precondition must be a command or {condition, expected}, got a number 1',
    ]);
  });

  it('still reads a string, an empty list and a list of conditions', () => {
    expect(parse(yaml('preconditions: []', 'steps:', '  - run: a')).preconditions).toEqual([]);
    expect(
      parse(step('  - run: a', '    preconditions:', '      - {eval: "$(date)", expected: "re:^2"}')).steps[0]
        .preconditions,
    ).toEqual([{ condition: null, eval: '$(date)', expected: 're:^2', negate: false }]);
  });
});

describe('declared outputs (spec012)', () => {
  it('reads outputs as {name, type}, string by default', () => {
    const dag = parse(
      step(
        '  - id: build',
        '    run: echo',
        '    outputs:',
        '      - name: image_tag',
        '      - {name: " meta ", type: json}',
        '  - run: echo',
      ),
    );
    expect(dag.steps[0].outputs).toEqual([
      { name: 'image_tag', type: 'string' },
      { name: 'meta', type: 'json' },
    ]);
    expect(dag.steps[1]).not.toHaveProperty('outputs');
  });

  it('refuses what Dagu refuses, and the path form outside a build DAG', () => {
    const out = (...rows: string[]) => errors(step('  - id: build', '    run: echo ok', ...rows));
    expect(out('    outputs: null')).toEqual([
      '4:5: steps[0].outputs: outputs must be a non-empty sequence (list) of {name, type}, got nothing',
    ]);
    expect(out('    outputs: []')).toEqual([
      '4:14: steps[0].outputs: outputs must be a non-empty sequence (list) of {name, type}, got a list',
    ]);
    expect(errors(step('  - name: build', '    run: echo ok', '    outputs: [{name: a}]'))).toEqual([
      '2:5: steps[0].outputs: a step with outputs must define id (later steps read ${steps.<id>.outputs.<name>})',
    ]);
    expect(
      out(
        '    outputs:',
        '      - type: string',
        '      - name: 1invalid',
        '      - name: tag',
        '      - name: tag',
        '      - {name: x, value: latest}',
        '      - {name: y, type: yaml}',
        '      - {name: z, path: dist/app.tgz}',
        '      - plain',
      ),
    ).toEqual([
      '2:5: steps[0].outputs: step build declares build paths but DAG type is not "build"',
      '5:9: steps[0].outputs[0]: name is required',
      '6:15: steps[0].outputs[1].name: name must match ^[A-Za-z][A-Za-z0-9_]*$ (a letter, then letters, digits and _), got "1invalid"',
      '8:15: steps[0].outputs[3].name: duplicate output name "tag"',
      expect.stringMatching(/^9:19: steps\[0\]\.outputs\[4\]\.value: unknown key "value"/),
      '10:25: steps[0].outputs[5].type: type must be string or json, got "yaml"',
      '12:9: steps[0].outputs[7]: an output must be a map with a name, got a string "plain"',
    ]);
  });
});

describe('consts (spec004)', () => {
  it('reads the list form in order, filling in earlier consts and leaving every other reference', () => {
    const dag = parse(
      yaml(
        'consts:',
        '  - service: api',
        '  - enabled: true',
        '  - replicas: 3',
        '  - ratio: 1.25',
        '  - big: 1e6',
        '  - endpoint: https://example.test/${consts.service}/${consts.enabled}/${consts.replicas}/${consts.ratio}',
        '  - later: ${consts.host}/${consts.later}',
        '  - host: h',
        '  - other: ${env.SERVICE} ${params.x} ${steps.build.outputs.image} ${consts.service.name} $consts.service',
        'steps:',
        '  - run: echo ${consts.endpoint}',
      ),
    );
    expect(Object.entries(dag.consts ?? {})).toEqual([
      ['service', 'api'],
      ['enabled', 'true'],
      ['replicas', '3'],
      ['ratio', '1.25'],
      ['big', '1e+06'],
      ['endpoint', 'https://example.test/api/true/3/1.25'],
      ['later', '${consts.host}/${consts.later}'],
      ['host', 'h'],
      [
        'other',
        '${env.SERVICE} ${params.x} ${steps.build.outputs.image} ${consts.service.name} $consts.service',
      ],
    ]);
    // Other fields keep the reference: the run resolves it.
    expect(dag.steps[0].command).toEqual(['echo ${consts.endpoint}']);
    expect(parse(step('  - run: a'))).not.toHaveProperty('consts');
  });

  it('refuses the map form, scalar and multi-key entries, bad names, non-literal and non-finite values', () => {
    expect(errors(yaml('consts:', '  service: api', 'steps:', '  - run: a'))).toEqual([
      '2:3: consts: consts must use list form (- NAME: value, one per item), got a map',
    ]);
    expect(
      errors(
        yaml(
          'consts:',
          '  - api',
          '  - {a: 1, b: 2}',
          '  - 1service: api',
          '  - service: {name: api}',
          '  - replicas: .nan',
          '  - empty:',
          '  - dup: 1',
          '  - dup: 2',
          'steps:',
          '  - run: a',
        ),
      ),
    ).toEqual([
      '2:5: consts[0]: consts entries must be single-entry mappings (- NAME: value), got a string "api"',
      '3:5: consts[1]: consts entries must contain exactly one key, got 2',
      '4:5: consts[2]: consts key "1service" is invalid (start with a letter; then letters, digits and _)',
      '5:14: consts.service: const "service" must be a literal string, number, or boolean, got a map',
      '6:15: consts.replicas: const "replicas" must be finite, got .nan',
      '7:5: consts.empty: const "empty" must be a literal string, number, or boolean, got nothing',
      '9:5: consts.dup: consts key "dup" is defined more than once',
    ]);
  });
});

describe('file and wait actions', () => {
  it('reads each operation into {kind, op, with}, legacy type: file with the operation in command', () => {
    const dag = parse(
      step(
        '  - {action: file.write, with: {path: out.txt, content: "", mode: "0600", create_dirs: true}}',
        '  - {action: file.copy, with: {source: a, destination: b, overwrite: true}}',
        '  - {action: file.read, with: {path: "${params.f}", format: json, max_bytes: 10}}',
        '  - {type: file, command: list, config: {path: ., pattern: "**/*.txt"}}',
        '  - {action: wait.duration, with: {duration: 1m30s}}',
        '  - {action: wait.until, with: {until: "2026-01-31T09:00:00+01:00"}}',
        '  - {action: wait.file, with: {path: ready.flag, state: missing, poll_interval: 500ms}}',
        '  - {action: wait.http, with: {url: "http://localhost:8080/health", status: 204, headers: {A: b}}}',
      ),
    );
    expect(dag.steps.map((s) => s.action)).toEqual([
      { kind: 'file', op: 'write', with: { path: 'out.txt', content: '', mode: '0600', create_dirs: true } },
      { kind: 'file', op: 'copy', with: { source: 'a', destination: 'b', overwrite: true } },
      { kind: 'file', op: 'read', with: { path: '${params.f}', format: 'json', max_bytes: 10 } },
      { kind: 'file', op: 'list', with: { path: '.', pattern: '**/*.txt' } },
      { kind: 'wait', op: 'duration', with: { duration: '1m30s' } },
      { kind: 'wait', op: 'until', with: { until: '2026-01-31T09:00:00+01:00' } },
      { kind: 'wait', op: 'file', with: { path: 'ready.flag', state: 'missing', poll_interval: '500ms' } },
      {
        kind: 'wait',
        op: 'http',
        with: { url: 'http://localhost:8080/health', status: 204, headers: { A: 'b' } },
      },
    ]);
    expect(dag.steps.map((s) => s.name)).toEqual([
      'file_1',
      'file_2',
      'file_3',
      'file_4',
      'wait_5',
      'wait_6',
      'wait_7',
      'wait_8',
    ]);
  });

  it('refuses missing inputs per operation, unknown keys and malformed values', () => {
    expect(
      errors(
        step(
          '  - {action: file.write, with: {path: a}}',
          '  - {action: file.copy, with: {source: a, destination: " "}}',
          '  - {action: file.stat}',
          '  - {action: file.read, with: {path: a, format: xml, mode: "999", verbose: true, max_bytes: -1}}',
          '  - {action: file.write, with: {path: a, content: 5}, run: x}',
          '  - {action: file}',
          '  - {type: file, command: touch, with: {path: a}}',
        ),
      ),
    ).toEqual([
      '2:32: steps[0].with: file.write needs with.content',
      '3:56: steps[1].with.destination: file.copy needs with.destination',
      '4:14: steps[2].action: file.stat needs with.path',
      '5:49: steps[3].with.format: must be raw or json, got "xml"',
      expect.stringMatching(/^5:60: steps\[3\]\.with\.mode: must be an octal mode/),
      expect.stringMatching(/^5:67: steps\[3\]\.with\.verbose: unknown key "verbose"/),
      '5:93: steps[3].with.max_bytes: must be at least 0, got -1',
      '6:14: steps[4].action: run cannot be used together with action',
      '6:51: steps[4].with.content: must be a string, got a number 5',
      '6:60: steps[4].run: action file.write does not take run',
      '7:14: steps[5].action: action file needs an operation: file.stat, file.read, file.write, file.copy, file.move, file.delete, file.mkdir, file.list',
      '8:27: steps[6].command: unknown file operation "touch" (use stat, read, write, copy, move, delete, mkdir, list)',
    ]);
    expect(
      errors(
        step(
          '  - {action: wait.duration, with: {duration: 2d}}',
          '  - {action: wait.duration, with: {duration: 0s, poll_interval: soon}}',
          '  - {action: wait.until, with: {until: tomorrow}}',
          '  - {action: wait.file, with: {state: gone}}',
          '  - {action: wait.http, with: {url: "ftp://x", status: 700, method: " "}}',
        ),
      ),
    ).toEqual([
      '2:46: steps[0].with.duration: must be a duration like 30s, 5m or 1h30m, got "2d"',
      '3:46: steps[1].with.duration: must be greater than 0, got "0s"',
      '3:65: steps[1].with.poll_interval: must be a duration like 30s, 5m or 1h30m, got "soon"',
      '4:40: steps[2].with.until: must be an RFC 3339 timestamp like 2026-01-31T09:00:00Z, got "tomorrow"',
      '5:31: steps[3].with: wait.file needs with.path',
      '5:39: steps[3].with.state: must be exists or missing, got "gone"',
      '6:37: steps[4].with.url: must be an absolute http or https URL, got "ftp://x"',
      '6:56: steps[4].with.status: must be at most 599, got 700',
      '6:69: steps[4].with.method: must not be empty',
    ]);
  });

  it('leaves values with a $ reference to be checked when the step runs', () => {
    const dag = parse(
      step(
        '  - {action: wait.duration, with: {duration: "${params.wait}"}}',
        '  - {action: wait.http, with: {url: "${BASE}/health"}}',
      ),
    );
    expect(dag.steps.map((s) => s.action?.kind)).toEqual(['wait', 'wait']);
  });
});

describe('http.request and noop inputs', () => {
  it('refuses a blank method or url, and noop with any with key', () => {
    expect(
      errors(
        step(
          '  - {action: http.request, with: {method: " ", url: http://x}}',
          '  - {action: http.request}',
          '  - {action: noop, with: {a: 1}}',
        ),
      ),
    ).toEqual([
      '2:34: steps[0].with: http needs with.method',
      '3:14: steps[1].action: http needs with.method',
      '3:14: steps[1].action: http needs with.url',
      '4:26: steps[2].with: noop takes no with, got a map',
    ]);
    expect(parse(step('  - {action: noop, with: {}}')).steps[0].action).toEqual({ kind: 'noop' });
  });

  it('refuses at load what Dagu refuses: a method, url or log message that is not text, two jq filters', () => {
    expect(
      errors(
        step(
          '  - {action: http.request, with: {method: [GET, POST], url: http://x}}',
          '  - {action: http.request, with: {method: GET, url: {a: 1}}}',
          '  - {action: log.write, with: {message: [a]}}',
          '  - {action: log.write, with: {}}',
          '  - {action: jq.filter, with: {filter: [".a", ".b"], data: "{}"}}',
        ),
      ),
    ).toEqual([
      '2:43: steps[0].with.method: must be a non-empty string, got a list',
      '3:53: steps[1].with.url: must be a non-empty string, got a map',
      '4:41: steps[2].with.message: must be a non-empty string, got a list',
      '5:31: steps[3].with: log needs with.message',
      '6:40: steps[4].with.filter: action "jq" supports only one command (one filter)',
    ]);
    // One filter in a list is that filter.
    const one = parse(step('  - {action: jq.filter, with: {filter: [".a"], data: "{}"}}')).steps[0].action;
    expect(one).toEqual({ kind: 'jq', with: { filter: '.a', data: '{}' } });
  });
});

describe('template.render and legacy type: template (builtin/template, spec/step_v2.go)', () => {
  it('moves with.template into the script and keeps data and output', () => {
    const dag = parse(
      step(
        '  - id: render',
        '    action: template.render',
        '    with:',
        '      template: "Hello, {{ .name }}! ${BAR}"',
        '      data: {name: Alice, n: 3}',
        '      output: out/report.md',
      ),
    );
    expect(dag.steps[0].script).toBe('Hello, {{ .name }}! ${BAR}');
    expect(dag.steps[0].action).toEqual({
      kind: 'template',
      with: { data: { name: 'Alice', n: 3 }, output: 'out/report.md' },
    });
  });

  it('reads the legacy type: template with its script, and a template_ref in place of a script', () => {
    const legacy = parse(step('  - type: template', '    script: "{{ .a }}"', '    with: {data: {a: 1}}'));
    expect(legacy.steps[0].script).toBe('{{ .a }}');
    expect(legacy.steps[0].action).toEqual({ kind: 'template', with: { data: { a: 1 } } });
    const ref = parse(step('  - action: template.render', '    with: {template_ref: "${env.TEMPLATE}"}'));
    expect(ref.steps[0].script).toBeNull();
    expect(ref.steps[0].action).toEqual({ kind: 'template', with: { template_ref: '${env.TEMPLATE}' } });
  });

  it('needs exactly one of with.template and with.template_ref, and a script for the legacy type', () => {
    expect(errors(step('  - action: template.render', '    with: {data: {a: 1}}'))).toEqual([
      '3:11: steps[0].with: template.render requires exactly one of with.template or with.template_ref',
    ]);
    expect(
      errors(step('  - action: template.render', '    with: {template: x, template_ref: "${env.T}"}')),
    ).toEqual([
      '3:11: steps[0].with: template.render requires exactly one of with.template or with.template_ref',
    ]);
    expect(errors(step('  - type: template'))).toEqual(['2:11: steps[0].type: script field is required']);
    expect(
      errors(step('  - type: template', '    script: x', '    with: {template_ref: "${env.T}"}')),
    ).toEqual([
      '4:26: steps[0].with.template_ref: template step cannot use both script and with.template_ref',
    ]);
  });

  it('refuses a template_ref that is not one whole scoped reference, and unknown with keys', () => {
    expect(errors(step('  - action: template.render', '    with: {template_ref: "x ${env.T}"}'))).toEqual([
      '3:26: steps[0].with.template_ref: with.template_ref must be one complete scoped value reference such as ${env.NAME}',
    ]);
    expect(errors(step('  - action: template.render', '    with: {template_ref: "${NAME}"}'))).toHaveLength(
      1,
    );
    expect(errors(step('  - action: template.render', '    with: {template: x, bogus: 1}'))[0]).toContain(
      'steps[0].with.bogus',
    );
    expect(errors(step('  - action: template.render', '    with: {template: x, data: [1]}'))).toEqual([
      '3:31: steps[0].with.data: must be a map, got a list',
    ]);
  });

  it('refuses a template that does not parse with the parse error, and an unsupported function as such', () => {
    expect(errors(step('  - action: template.render', '    with: {template: "{{ if .x }}"}'))).toEqual([
      '3:22: steps[0].with.template: template: parse error: template: template:1: unexpected EOF',
    ]);
    expect(
      errors(step('  - action: template.render', '    with: {template: "{{ env \\"HOME\\" }}"}')),
    ).toEqual([
      '3:22: steps[0].with.template: template: parse error: template: template:1: function "env" not defined',
    ]);
    expect(errors(step('  - action: template.render', '    with: {template: "{{ urlParse .u }}"}'))).toEqual([
      '3:22: steps[0].with.template: template: template: template:1: function "urlParse" is not supported by this product [unsupported]',
    ]);
  });
});
