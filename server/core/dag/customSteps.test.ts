// Dagu's DAG-local custom steps (`actions:`, legacy `step_types:`), expanded when the DAG loads. The cases
// restate upstream Dagu's tests: internal/spec/step_types_test.go (TestCustomStepTypes_*,
// TestValidateCustomStepInput_DefersRuntimeExpressionLeaves), internal/spec/step_v2_test.go
// (TestStepSchemaV2_CustomAction*) and internal/intg/step_types_test.go.

import { describe, expect, it } from 'vitest';
import { readBaseLayer } from './baseConfig';
import { formatDagError, parseDag } from './parseDag';
import type { DagSpec } from '../types';

const FILE = '/srv/dags/custom.yaml';

function run(text: string, baseText: string | null = null) {
  const base = baseText === null ? null : readBaseLayer({ text: baseText, file: '/home/base.yaml' });
  if (base && !base.ok) throw new Error(base.error.message);
  return parseDag(text, { file: FILE, defaultName: 'custom', base: base?.layer ?? null });
}

function parse(text: string, baseText: string | null = null): DagSpec {
  const r = run(text, baseText);
  if (!r.ok) throw new Error(r.errors.map(formatDagError).join('\n'));
  return r.dag;
}

/** Each error as `line:column: field: message` (`-` for no line), ` [unsupported]` for that kind. */
function errors(text: string, baseText: string | null = null): string[] {
  const r = run(text, baseText);
  if (r.ok) throw new Error('expected the DAG to be rejected');
  return r.errors.map(
    (e) =>
      formatDagError({ ...e, file: null }).replace(/^<input>:\s?/, '') + (e.kind ? ' [unsupported]' : ''),
  );
}

const GREET = `
step_types:
  greet:
    type: command
    description: Send a greeting
    input_schema:
      type: object
      additionalProperties: false
      required: [message]
      properties:
        message:
          type: string
        repeat:
          type: integer
          default: 3
    template:
      exec:
        command: /bin/echo
        args:
          - {$input: message}
          - {$input: repeat}
`;

describe('legacy step_types', () => {
  it('expands a call: typed input values, defaults, the description and a generated name (DAGLocalExecTemplate)', () => {
    const dag = parse(`${GREET}steps:\n  - type: greet\n    with:\n      message: hello\n`);
    expect(dag.steps).toHaveLength(1);
    const [step] = dag.steps;
    expect(step.name).toBe('greet_1');
    expect(step.action).toEqual({ kind: 'exec', command: '/bin/echo', args: ['hello', '3'] });
    expect(step.description).toBe('Send a greeting');
  });

  it('warns that step_types and type are deprecated', () => {
    const r = run(`${GREET}steps:\n  - type: greet\n    with:\n      message: hello\n`);
    expect(r.ok && r.warnings).toEqual([
      'Deprecated DAG syntax: step_types is deprecated; use actions',
      'Deprecated DAG syntax: steps[0].type is deprecated; use action',
    ]);
  });

  it('takes the input from the legacy config key (LegacyConfigAlias), not from both', () => {
    const dag = parse(`${GREET}steps:\n  - type: greet\n    config:\n      message: hello\n`);
    expect(dag.steps[0].action).toMatchObject({ args: ['hello', '3'] });
    expect(
      errors(`${GREET}steps:\n  - type: greet\n    with: {message: hello}\n    config: {message: bye}\n`),
    ).toEqual([
      '25:5: steps[0].config: legacy step_types definition "greet": fields "with" and "config" cannot be used together',
    ]);
  });

  it('renders Go template strings with Dagu’s hermetic functions and json (TemplateSupportsHermeticFunctions, TemplateKeepsJSONHelper)', () => {
    const dag = parse(`
step_types:
  format_message:
    type: command
    input_schema:
      type: object
      additionalProperties: false
      required: [message]
      properties:
        message: {type: string}
        fallback: {type: string, default: ""}
    template:
      exec:
        command: /bin/echo
        args:
          - '{{ .input.message | trim | upper | replace "HELLO" "HI" }}'
          - '{{ list "b" "a" "b" | uniq | sortAlpha | join "," }}'
          - '{{ .input.fallback | default "fallback" }}'
          - '{{ json .input.message }}'
steps:
  - type: format_message
    config:
      message: ' hello "quoted" '
`);
    expect(dag.steps[0].action).toMatchObject({
      args: ['HI "QUOTED"', 'a,b', 'fallback', '" hello \\"quoted\\" "'],
    });
  });

  it('refuses a blocked template function, naming it (TemplateRejectsBlockedFunctions)', () => {
    expect(
      errors(`
step_types:
  stamp:
    type: command
    input_schema: {type: object, additionalProperties: false, properties: {}}
    template:
      exec:
        command: /bin/echo
        args: ['{{ now }}']
steps:
  - type: stamp
`),
    ).toEqual([
      expect.stringMatching(
        /^11:11: steps\[0\]\.type: legacy step_types definition "stamp": step_types\.stamp\.template\.exec\.args\[0\]: failed to parse template string: template: stamp:1: function "now" not defined$/,
      ),
    ]);
  });

  it('refuses a template string that names a missing input, and other template mistakes', () => {
    const def = (arg: string) => `
step_types:
  t:
    type: command
    input_schema: {type: object, properties: {a: {type: string}}}
    template:
      command: echo ${arg}
steps:
  - type: t
`;
    expect(errors(def("'{{ .input.missing }}'"))[0]).toContain(
      'failed to execute template string: template: t:1:9: executing "t" at <.input.missing>: map has no entry for key "missing"',
    );
    expect(errors(def("'{{ .input.a '"))[0]).toContain('failed to parse template string: template: t:1');
    expect(errors(def('\'{{ template "x" }}\''))[0]).toContain('template "x" not defined');
  });

  it('keeps the implicit command step for a command template without exec (CommandTargetWithoutExecUsesImplicitCommandExecutor)', () => {
    const dag = parse(`
step_types:
  greet:
    type: command
    input_schema:
      type: object
      additionalProperties: false
      required: [message]
      properties: {message: {type: string}}
    template:
      command: echo {{ json .input.message }}
steps:
  - type: greet
    with:
      message: hello-inline
`);
    expect(dag.steps[0].action).toEqual({ kind: 'command' });
    expect(dag.steps[0].command).toEqual(['echo "hello-inline"']);
  });

  it('expands to the definition’s builtin type for other targets', () => {
    const dag = parse(`
step_types:
  note:
    type: log
    input_schema: {type: object, required: [text], properties: {text: {type: string}}}
    template:
      with:
        message: {$input: text}
steps:
  - type: note
    with: {text: hi}
`);
    expect(dag.steps[0].action).toEqual({ kind: 'log', with: { message: 'hi' } });
  });

  it('refuses call-site keys that would change what runs (RejectsForbiddenCallSiteFields)', () => {
    expect(
      errors(
        `${GREET}steps:\n  - type: greet\n    command: echo should-fail\n    working_dir: /tmp\n    with:\n      message: hello\n`,
      ),
    ).toEqual([
      '24:5: steps[0].command: legacy step_types definition "greet": field "command" is not allowed when using a legacy step_types definition',
      '25:5: steps[0].working_dir: legacy step_types definition "greet": field "working_dir" is not allowed when using a legacy step_types definition',
    ]);
  });

  it('lets call-site keys win over the template’s, and the template’s over defaults; env and preconditions add up (CallSiteOverridesTemplateAndComposesAdditiveFields)', () => {
    const dag = parse(`
defaults:
  timeout_sec: 600
  mail_on_error: true
  signal_on_stop: SIGTERM
  env:
    - LAYERED: default
    - DEFAULT_ONLY: default-only
step_types:
  layered:
    type: command
    input_schema: {type: object, additionalProperties: false, properties: {}}
    template:
      exec:
        command: /bin/echo
        args: [hello]
      continue_on: skipped
      retry_policy: {limit: 5, interval_sec: 2}
      timeout_sec: 9
      mail_on_error: true
      signal_on_stop: SIGINT
      env:
        - LAYERED: template
        - TEMPLATE_ONLY: template-only
      preconditions:
        - condition: "test -d /template"
steps:
  - type: layered
    retry_policy: {limit: 7, interval_sec: 3}
    timeout_sec: 0
    mail_on_error: false
    signal_on_stop: SIGQUIT
    env:
      - LAYERED: call
      - CALL_ONLY: call-only
    preconditions:
      - condition: "test -x /call"
  - type: layered
`);
    const [call, plain] = dag.steps;
    expect(call.retry_policy).toMatchObject({ limit: 7, interval_sec: 3 });
    expect(call.timeout_sec).toBeNull();
    expect(call.mail_on_error).toBe(false);
    expect(call.signal_on_stop).toBe('SIGQUIT');
    expect(call.env).toEqual({
      LAYERED: 'call',
      DEFAULT_ONLY: 'default-only',
      TEMPLATE_ONLY: 'template-only',
      CALL_ONLY: 'call-only',
    });
    expect((call.preconditions ?? []).map((p) => p.condition)).toEqual([
      'test -d /template',
      'test -x /call',
    ]);
    // TemplateFieldsOverrideDefaults
    expect(plain.continue_on).toMatchObject({ skipped: true, failure: false });
    expect(plain.retry_policy).toMatchObject({ limit: 5, interval_sec: 2 });
    expect(plain.timeout_sec).toBe(9);
    expect(plain.mail_on_error).toBe(true);
    expect(plain.signal_on_stop).toBe('SIGINT');
    expect(plain.env).toEqual({
      LAYERED: 'template',
      DEFAULT_ONLY: 'default-only',
      TEMPLATE_ONLY: 'template-only',
    });
  });

  it('adds env maps and single preconditions up the same way', () => {
    const dag = parse(`
actions:
  show:
    input_schema: {type: object}
    template:
      run: echo
      env: {A: template, B: template}
      preconditions: "test -d /template"
steps:
  - action: show
    env: {B: call, C: call}
    preconditions: {condition: "test -x /call"}
`);
    expect(dag.steps[0].env).toEqual({ A: 'template', B: 'call', C: 'call' });
    expect((dag.steps[0].preconditions ?? []).map((p) => p.condition)).toEqual([
      'test -d /template',
      'test -x /call',
    ]);
  });

  it('expands handlers, with their fixed names (HandlerSupport, HandlerAllowsExplicitZeroValueOverrides)', () => {
    const dag = parse(`${GREET}handler_on:
  success:
    type: greet
    with:
      message: handler-ok
    timeout_sec: 0
steps:
  - run: echo run
`);
    expect(dag.handler_on.success).toMatchObject({
      name: 'onSuccess',
      action: { kind: 'exec', args: ['handler-ok', '3'] },
      timeout_sec: null,
    });
  });

  it('attaches the definition’s output_schema and checks it (OutputSchemaIsAttachedToExpandedStep, RejectInvalidOutputSchema)', () => {
    const def = (schema: string) => `
step_types:
  classify:
    type: command
    input_schema: {type: object}
    output_schema: ${schema}
    template:
      command: echo '{}'
steps:
  - id: classify
    type: classify
`;
    expect(parse(def('{type: object, required: [category]}')).steps[0].output_schema).toEqual({
      type: 'object',
      required: ['category'],
    });
    expect(parse(def('{}')).steps[0].output_schema).toEqual({});
    expect(
      parse(def("{$ref: '#/$defs/r', $defs: {r: {type: object}}}")).steps[0].output_schema,
    ).toMatchObject({
      $ref: '#/$defs/r',
    });
    expect(errors(def('{type: string}'))).toEqual([
      '6:20: step_types.classify.output_schema: output_schema must resolve to an object schema',
    ]);
    expect(errors(def('{anyOf: [{type: object}, {type: string}]}'))).toEqual([
      '6:20: step_types.classify.output_schema: output_schema must resolve to an object schema',
    ]);
  });
});

describe('definition rules', () => {
  const one = (section: string, name: string, body: string) =>
    `${section}:\n  ${name}:\n${body}\nsteps:\n  - run: echo\n`;

  it('checks a legacy definition’s name, type, schema and template, each with Dagu’s words', () => {
    const body = '    type: command\n    input_schema: {type: object}\n    template: {command: echo}';
    expect(errors(one('step_types', '9lives', body))).toEqual([
      '2:3: step_types.9lives: legacy step_types definition names must match ^[A-Za-z][A-Za-z0-9_-]*$',
    ]);
    expect(errors(one('step_types', 'http', body))).toEqual([
      '2:3: step_types.http: legacy step_types definition name "http" conflicts with a builtin action',
    ]);
    expect(
      errors(one('step_types', 'x', '    input_schema: {type: object}\n    template: {command: echo}')),
    ).toEqual(['3:5: step_types.x.type: type is required']);
    expect(
      errors(
        one(
          'step_types',
          'x',
          '    type: bogus\n    input_schema: {type: object}\n    template: {command: echo}',
        ),
      ),
    ).toEqual(['3:11: step_types.x.type: unknown builtin action "bogus"']);
    expect(errors(one('step_types', 'x', '    type: command\n    template: {command: echo}'))).toEqual([
      '3:5: step_types.x.input_schema: input_schema is required',
    ]);
    expect(errors(one('step_types', 'x', '    type: command\n    input_schema: {type: object}'))).toEqual([
      '3:5: step_types.x.template: template is required',
    ]);
    expect(
      errors(
        one(
          'step_types',
          'x',
          '    type: command\n    input_schema: {type: object}\n    template: {type: http}',
        ),
      ),
    ).toEqual([
      '5:16: step_types.x.template.type: template.type is not allowed; use step_types.x.type instead',
    ]);
    expect(
      errors(
        one(
          'step_types',
          'x',
          '    type: command\n    input_schema: {type: string}\n    template: {command: e}',
        ),
      ),
    ).toEqual(['4:19: step_types.x.input_schema: input_schema must resolve to an object schema']);
    expect(
      errors(one('step_types', 'x', '    type: command\n    input_schema: [a]\n    template: {command: e}')),
    ).toEqual(['4:19: step_types.x.input_schema: input_schema must be an inline JSON Schema object']);
    expect(
      errors(
        one(
          'step_types',
          'x',
          '    type: command\n    input_schema: {type: object, minProperties: x}\n    template: {command: e}',
        ),
      )[0],
    ).toMatch(/^4:19: step_types\.x\.input_schema: invalid JSON Schema: /);
  });

  it('checks a custom action’s name, type and template (CustomActionRejectsLegacyTemplateFields)', () => {
    const body = '    input_schema: {type: object}\n    template: {run: echo}';
    expect(errors(one('actions', 'a..b', body))).toEqual([
      '2:3: actions.a..b: custom action names must match ^[A-Za-z][A-Za-z0-9_-]*(\\.[A-Za-z][A-Za-z0-9_-]*)*$',
    ]);
    expect(errors(one('actions', 'http.request', body))).toEqual([
      '2:3: actions.http.request: custom action name "http.request" conflicts with a builtin action',
    ]);
    expect(errors(one('actions', 'redis.get', body))).toEqual([
      '2:3: actions.redis.get: custom action name "redis.get" conflicts with a builtin action',
    ]);
    expect(errors(one('actions', 'x', `    type: command\n${body}`))).toEqual([
      '3:11: actions.x.type: type is not supported for actions; put run or action in actions.x.template',
    ]);
    expect(
      errors(one('actions', 'x', '    input_schema: {type: object}\n    template: {with: {a: 1}}')),
    ).toEqual(['4:15: actions.x.template: custom action template must define exactly one of run or action']);
    expect(
      errors(
        one(
          'actions',
          'x',
          '    input_schema: {type: object}\n    template: {action: log.write, command: echo legacy, script: s}',
        ),
      ),
    ).toEqual(['4:15: actions.x.template: template contains deprecated execution keys: [command script]']);
  });

  it('refuses a name defined twice, across base config and DAG too (DuplicateNameAcrossScopes)', () => {
    const base = `step_types:\n  " greet ":\n    type: command\n    input_schema: {type: object}\n    template: {command: echo}\n`;
    const dag = `step_types:\n  greet:\n    type: command\n    input_schema: {type: object}\n    template: {command: echo}\nsteps:\n  - type: greet\n`;
    expect(errors(dag, base)).toEqual([
      '2:3: step_types.greet: duplicate legacy step_types definition "greet" is defined in both base config and DAG',
    ]);
    expect(
      errors(
        `step_types:\n  greet:\n    type: command\n    input_schema: {type: object}\n    template: {command: echo}\nactions:\n  greet:\n    input_schema: {type: object}\n    template: {run: echo}\nsteps:\n  - run: echo\n`,
      ),
    ).toEqual(['7:3: actions.greet: duplicate legacy step_types definition "greet" is defined in DAG']);
  });

  it('reports a problem in a base config definition as the base config’s, once', () => {
    expect(
      errors(
        'steps:\n  - action: greet\n',
        'actions:\n  greet:\n    input_schema: {type: object}\n    template: {run: echo, action: log.write}\n',
      ),
    ).toEqual([
      'actions.greet.template: base config: custom action template must define exactly one of run or action',
    ]);
  });
});

describe('custom actions', () => {
  const SLACK = `
actions:
  slack.notify:
    description: Send Slack notification
    input_schema:
      type: object
      additionalProperties: false
      required: [text]
      properties:
        text: {type: string}
    output_schema:
      type: object
      required: [ok]
      properties:
        ok: {type: boolean}
    template:
      action: http.request
      with:
        method: POST
        url: \${SLACK_WEBHOOK_URL}
        body: {$input: text}
`;

  it('expands a call to a built-in action (TestStepSchemaV2_CustomActions)', () => {
    const dag = parse(`${SLACK}steps:\n  - action: slack.notify\n    with:\n      text: hello\n`);
    const [step] = dag.steps;
    expect(step.name).toBe('slack.notify_1');
    expect(step.action).toEqual({
      kind: 'http',
      with: { method: 'POST', url: '${SLACK_WEBHOOK_URL}', body: 'hello' },
    });
    expect(step.description).toBe('Send Slack notification');
    expect(step.output_schema).toMatchObject({ type: 'object', required: ['ok'] });
  });

  it('composes custom actions, named after the outermost (CustomActionsCanComposeCustomActions)', () => {
    const dag = parse(`
actions:
  http.notify:
    input_schema: {type: object, required: [text], properties: {text: {type: string}}}
    template:
      action: http.request
      with: {method: POST, url: '\${WEBHOOK_URL}', body: {$input: text}}
  slack.notify:
    input_schema: {type: object, required: [text], properties: {text: {type: string}}}
    template:
      action: http.notify
      with:
        text: {$input: text}
steps:
  - action: slack.notify
    with: {text: hello}
`);
    expect(dag.steps[0].name).toBe('slack.notify_1');
    expect(dag.steps[0].action).toMatchObject({ kind: 'http', with: { method: 'POST', body: 'hello' } });
  });

  it('refuses recursive custom actions, naming the loop, and nothing after it (CustomActionsRejectRecursiveReferences)', () => {
    expect(
      errors(`
actions:
  loop.a:
    input_schema: {type: object}
    template: {action: loop.b}
  loop.b:
    input_schema: {type: object}
    template: {action: loop.a}
steps:
  - action: loop.a
  - {name: after, depends: [loop.a_1], run: echo}
`),
    ).toEqual([
      '8:24: steps[0].action: custom action "loop.a": custom action "loop.b": recursive custom action reference: loop.a -> loop.b -> loop.a',
    ]);
    expect(
      errors(
        'actions:\n  self:\n    input_schema: {type: object}\n    template: {action: self}\nsteps:\n  - action: self\n',
      ),
    ).toEqual([
      '4:24: steps[0].action: custom action "self": recursive custom action reference: self -> self',
    ]);
  });

  it('reports a problem of the expanded step as the action’s, where the template has it (CustomActionErrorContext)', () => {
    expect(
      errors(
        'actions:\n  bad.log:\n    input_schema: {type: object}\n    template:\n      action: log.write\n      with: {}\nsteps:\n  - action: bad.log\n',
      ),
    ).toEqual([expect.stringMatching(/^6:13: steps\[0\]\.with: custom action "bad\.log": .*message/)]);
  });

  it('comes from base config (CustomActionsFromBaseConfig)', () => {
    const dag = parse(
      'steps:\n  - action: greet\n    with:\n      message: hello\n',
      `
actions:
  greet:
    input_schema:
      type: object
      additionalProperties: false
      required: [message]
      properties:
        message: {type: string}
    template:
      run: echo {{ .input.message }}
`,
    );
    expect(dag.steps[0]).toMatchObject({ name: 'greet_1', command: ['echo hello'] });
  });

  it('refuses legacy execution keys beside action:, and working_dir', () => {
    expect(
      errors(
        `${SLACK}steps:\n  - action: slack.notify\n    command: echo x\n    working_dir: /tmp\n    with: {text: a}\n`,
      ),
    ).toEqual([
      '24:5: steps[0].command: action cannot be used together with command',
      '25:5: steps[0].working_dir: custom action "slack.notify": field "working_dir" is not allowed when using a legacy step_types definition',
    ]);
  });

  it('checks the input against the schema, at the call’s with', () => {
    expect(errors(`${SLACK}steps:\n  - action: slack.notify\n    with: {text: 3}\n`)).toEqual([
      '24:11: steps[0].with: invalid "slack.notify" input: with/text must be string',
    ]);
    expect(errors(`${SLACK}steps:\n  - action: slack.notify\n`)).toEqual([
      '23:13: steps[0].with: invalid "slack.notify" input: with must have required property \'text\'',
    ]);
    expect(errors(`${SLACK}steps:\n  - action: slack.notify\n    with: [a]\n`)).toEqual([
      '24:11: steps[0].with: with must be an object, got a list',
    ]);
  });

  it('refuses an undeclared custom-looking action, saying it is neither built in nor declared', () => {
    expect(errors('steps:\n  - action: greet\n')).toEqual([
      '2:13: steps[0].action: action "greet" is not one of Dagu\'s built-in actions, and no custom action of that ' +
        'name is declared under actions: (or step_types:); actions a Go program embedding Dagu registers are not ' +
        'supported by this product [unsupported]',
    ]);
  });

  it('refuses a template that renders to something other than a map', () => {
    expect(
      errors(
        'step_types:\n  x:\n    type: command\n    input_schema: {type: object, properties: {v: {type: string}}}\n    template: {$input: v}\nsteps:\n  - type: x\n    with: {v: text}\n',
      ),
    ).toEqual([
      '7:11: steps[0].type: legacy step_types definition "x": custom step template for "x" must render to an object',
    ]);
  });

  it('reports a missing input path with Dagu’s words', () => {
    expect(
      errors(
        'actions:\n  x:\n    input_schema: {type: object, properties: {v: {type: string}}}\n    template: {run: {$input: v.w}}\nsteps:\n  - action: x\n    with: {v: text}\n',
      ),
    ).toEqual([
      '6:13: steps[0].action: custom action "x": actions.x.template.run: failed to resolve "x" template input "v.w": segment "w" cannot be resolved from string',
    ]);
  });

  it('refuses an expansion that grows past the limit', () => {
    const refs = Array.from({ length: 40 }, () => '{$input: big}').join(', ');
    const big = 'x'.repeat(30_000);
    const text = `actions:\n  x:\n    input_schema: {type: object, properties: {big: {type: string}}}\n    template:\n      action: log.write\n      with: {message: [${refs}]}\nsteps:\n  - action: x\n    with: {big: ${big}}\n`;
    expect(errors(text)).toEqual([
      '8:13: steps[0].action: custom action "x": the expanded step has more than 1048576 characters; at most 1048576 are accepted',
    ]);
  });
});

describe('runtime references in the input (TestValidateCustomStepInput_DefersRuntimeExpressionLeaves)', () => {
  const dag = (props: string, input: string, extra = '') => `
actions:
  t:
    input_schema:
      type: object
${extra}      properties:
${props}
    template: {run: echo}
steps:
  - action: t
    with: ${input}
`;
  const ok = (props: string, input: string, extra = '') =>
    expect(run(dag(props, input, extra)).ok).toBe(true);
  const bad = (props: string, input: string, extra = '') =>
    expect(errors(dag(props, input, extra))[0]).toContain('invalid "t" input');

  it('lets a whole reference stand for an integer, boolean or enum value', () => {
    ok('        count: {type: integer}', '{count: "${COUNT}"}');
    ok('        enabled: {type: boolean}', '{enabled: $ENABLED}');
    ok('        mode: {enum: [fast, slow]}', '{mode: "${MODE}"}');
    ok('        count: {type: integer, minimum: 1}', '{count: "`echo 3`"}');
    ok(
      '        limits: {type: object, required: [count], properties: {count: {type: integer}}}',
      '{limits: {count: "${COUNT}"}}',
    );
    ok('        counts: {type: array, items: {type: integer}}', '{counts: ["${COUNT}"]}');
    ok(
      '        count: {$ref: "#/$defs/count"}',
      '{count: "${COUNT}"}',
      '      $defs: {count: {type: integer, minimum: 1}}\n',
    );
  });

  it('lets a reference stand for a value of additionalProperties, not hiding a wrong sibling', () => {
    const extra = '      additionalProperties: {type: integer}\n';
    ok('        {}', '{us: "${US_COUNT}"}', extra);
    bad('        {}', '{us: "${US_COUNT}", eu: abc}', extra);
  });

  it('lets a reference inside a text stand for text', () => {
    ok('        message: {type: string}', '{message: "hello-${NAME}"}');
  });

  it('refuses a reference inside a non-text value, and values that are simply wrong', () => {
    bad('        mode: {enum: [fast, slow]}', '{mode: "fast-${MODE}"}');
    bad('        count: {type: integer}', '{count: "count-${COUNT}"}');
    bad('        count: {type: integer}', '{count: abc}');
    bad('        counts: {type: array, items: {type: integer}}', '{counts: ["${COUNT}", abc]}');
  });

  it('keeps the reference as written in the expanded step, to be resolved when it runs (RuntimeVariableInputsDeferSchemaValidation)', () => {
    const d = parse(`
step_types:
  run_with_inputs:
    type: command
    input_schema:
      type: object
      additionalProperties: false
      required: [message, count, enabled, mode]
      properties:
        message: {type: string}
        count: {type: integer, minimum: 1}
        enabled: {type: boolean}
        mode: {enum: [fast, slow]}
    template:
      exec:
        command: /bin/echo
        args:
          - {$input: message}
          - {$input: count}
          - {$input: enabled}
          - {$input: mode}
steps:
  - type: run_with_inputs
    with:
      message: hello-\${SUFFIX}
      count: \${COUNT}
      enabled: \${ENABLED}
      mode: \${MODE}
`);
    expect(d.steps[0].action).toMatchObject({
      args: ['hello-${SUFFIX}', '${COUNT}', '${ENABLED}', '${MODE}'],
    });
  });
});

describe('base config definitions', () => {
  it('come from base.yaml, with its defaults laid under the template (BaseConfigRegistry, BaseConfigDefaultsApplyBeforeTemplate)', () => {
    const dag = parse(
      'steps:\n  - type: greet\n    with:\n      message: hello-from-base\n',
      `
defaults:
  env:
    - DEFAULT_ONLY: default-only
step_types:
  " greet ":
    type: command
    input_schema:
      type: object
      additionalProperties: false
      required: [message]
      properties:
        message: {type: string}
    template:
      exec:
        command: /bin/echo
        args:
          - {$input: message}
      env:
        - TEMPLATE_ONLY: template-only
`,
    );
    expect(dag.steps[0]).toMatchObject({
      name: 'greet_1',
      action: { kind: 'exec', args: ['hello-from-base'] },
      env: { DEFAULT_ONLY: 'default-only', TEMPLATE_ONLY: 'template-only' },
    });
  });
});

describe('where they apply', () => {
  it('expands calls in foreach bodies and in later documents, each document with its own definitions', () => {
    const dag = parse(`
actions:
  say:
    input_schema: {type: object, properties: {m: {type: string}}}
    template: {action: log.write, with: {message: {$input: m}}}
steps:
  - id: each
    foreach:
      items: [a]
      steps:
        - action: say
          with: {m: hi}
---
name: child
actions:
  say:
    input_schema: {type: object}
    template: {run: echo child}
steps:
  - action: say
`);
    expect(dag.local_dags?.child.steps[0].command).toEqual(['echo child']);
    const each = dag.steps[0].action;
    expect(each?.kind === 'foreach' && each.foreach.steps[0]).toMatchObject({
      name: 'say_1',
      action: { kind: 'log', with: { message: 'hi' } },
    });
  });
});

describe('positions and forms', () => {
  it('reports a mistake of the template where the template has it, and one of the call where the call has it', () => {
    expect(
      errors(`
actions:
  slow:
    input_schema: {type: object, properties: {n: {}}}
    template:
      run: sleep 1
      timeout_sec: soon
steps:
  - action: slow
    with: {n: 1}
    retry_policy: {limit: many, interval_sec: 1}
`),
    ).toEqual([
      '7:20: steps[0].timeout_sec: custom action "slow": must be an integer, got a string "soon"',
      '11:27: steps[0].retry_policy.limit: custom action "slow": must be an integer, got a string "many"',
    ]);
  });

  it('places a value taken from with at the call, even one a default filled in beside it', () => {
    expect(
      errors(`
actions:
  wait:
    input_schema:
      type: object
      properties:
        policy: {type: object, properties: {limit: {}, interval_sec: {default: 5}}}
    template:
      run: echo
      retry_policy: {$input: policy}
steps:
  - action: wait
    with:
      policy: {limit: lots}
`),
    ).toEqual([
      '14:23: steps[0].retry_policy.limit: custom action "wait": must be an integer, got a string "lots"',
    ]);
  });

  it('names a step of the map form after its key', () => {
    const dag = parse(
      `${GREET.replace('step_types', 'actions')
        .replace('    type: command\n', '')
        .replace(
          /exec:\n\s+command: \/bin\/echo\n\s+args:\n\s+- \{\$input: message\}\n\s+- \{\$input: repeat\}/,
          'run: echo {{ .input.message }}',
        )}steps:\n  build:\n    action: greet\n    with: {message: hi}\n`,
    );
    expect(dag.steps[0]).toMatchObject({ name: 'build', command: ['echo hi'] });
  });
});

describe('artifacts (TestBuildArtifactActionDetection)', () => {
  const def = (template: string, artifacts = 'artifacts:\n  enabled: false\n') =>
    `${artifacts}actions:\n  myact:\n    input_schema: {type: object}\n    template:\n${template}\nsteps:\n  - name: s1\n    run: echo hello\n`;

  it('counts a template’s artifact action even when no step calls it', () => {
    expect(errors(def('      action: artifact.write\n      with: {path: out.txt, content: hello}'))).toEqual([
      '2:12: artifacts.enabled: artifact actions require artifacts.enabled to be true',
    ]);
    expect(
      parse(def('      action: artifact.write\n      with: {path: out.txt, content: hello}', '')).artifacts,
    ).toEqual({ enabled: true, dir: null });
  });

  it('does not count an artifact action name passed as a child DAG param', () => {
    const dag = parse(
      def(
        '      action: dag.run\n      with:\n        dag: child\n        params:\n          action: artifact.write',
      ),
    );
    expect(dag.artifacts).toEqual({ enabled: false, dir: null });
  });
});

describe('hostile input', () => {
  /** Ten levels of aliases, each ten times the one before: 10^10 values if anything expanded them. */
  const bomb = (indent: string) =>
    [
      'a0: &a0 ["", "", "", "", "", "", "", "", "", ""]',
      ...Array.from(
        { length: 9 },
        (_, i) => `a${i + 1}: &a${i + 1} [${Array(10).fill(`*a${i}`).join(', ')}]`,
      ),
    ]
      .map((line) => indent + line)
      .join('\n');

  it('refuses an alias bomb in a call’s with, in a schema and in a template, quickly', () => {
    const started = Date.now();
    expect(
      errors(
        `actions:\n  a:\n    input_schema: {type: object}\n    template: {run: echo}\nsteps:\n  - action: a\n    with:\n${bomb('      ')}\n`,
      ),
    ).toEqual([
      '8:7: steps[0].with: invalid YAML: Excessive alias count indicates a resource exhaustion attack',
    ]);
    expect(
      errors(
        `actions:\n  a:\n    input_schema: {type: object}\n    template: {run: echo}\n    output_schema:\n${bomb('      ')}\nsteps:\n  - action: a\n`,
      ),
    ).toEqual([
      '6:7: actions.a.output_schema: invalid YAML: Excessive alias count indicates a resource exhaustion attack',
    ]);
    const many = errors(
      `actions:\n  a:\n    input_schema: {type: object}\n    template:\n      run: echo\n      env:\n${bomb('        ')}\nsteps:\n${'  - action: a\n'.repeat(50)}`,
    );
    expect(many).toHaveLength(50);
    expect(many[0]).toBe(
      '18:13: steps[0].action: custom action "a": the expanded step has more than 1048576 characters; at most 1048576 are accepted',
    );
    expect(many[49]).toContain("the document's expanded custom steps have more than 16777216 characters");
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('bounds how deep custom actions call each other', () => {
    const defs = Array.from(
      { length: 40 },
      (_, i) =>
        `  a${i}:\n    input_schema: {type: object}\n    template: {action: ${i === 39 ? 'log.write, with: {message: hi}' : `a${i + 1}`}}`,
    ).join('\n');
    const [error] = errors(`actions:\n${defs}\nsteps:\n  - action: a0\n`);
    expect(error).toMatch(
      /custom action "a32": custom actions call each other more than 32 deep \(a0 -> … -> a32\)$/,
    );
  });
});
