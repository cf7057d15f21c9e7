import { describe, expect, it } from 'vitest';
import { formatDagError, parseDag } from './parseDag';
import type { DagSpec } from '../types';

const FILE = '/srv/dags/etl.yaml';
const yaml = (...rows: string[]) => rows.join('\n') + '\n';

function parse(text: string): DagSpec {
  const r = parseDag(text, { file: FILE, defaultName: 'etl' });
  if (!r.ok) throw new Error(r.errors.map(formatDagError).join('\n'));
  return r.dag;
}

/** Each error as `line:column: field: message`, with ` [unsupported]` for the unsupported kind. */
function errors(text: string, strict = false): string[] {
  const r = parseDag(text, { file: FILE, defaultName: 'etl', strict });
  if (r.ok) throw new Error('expected the DAG to be rejected');
  return r.errors.map(
    (e) => formatDagError({ ...e, file: null }).replace('<input>:', '') + (e.kind ? ' [unsupported]' : ''),
  );
}

const steps = (...rows: string[]) => ['steps:', ...rows];
const step = (...rows: string[]) => yaml(...steps(...rows));

describe('steps: forms, names and order', () => {
  it('gives shorthand and unnamed steps generated names from their position', () => {
    const dag = parse(
      step(
        '  - echo a',
        '  - [echo b, echo c]',
        '  - run: echo d',
        '  - call: other',
        '  - run: |',
        '      one',
        '      two',
      ),
    );
    expect(dag.steps.map((s) => s.name)).toEqual(['cmd_1', 'cmd_2', 'cmd_3', 'cmd_4', 'dag_4', 'script_5']);
    expect(dag.steps[5].script).toBe('one\ntwo\n');
  });

  it('names a step after its id, and resolves depends written as ids to names', () => {
    const dag = parse(
      step(
        '  - {id: first, run: a}',
        '  - {name: Second, id: second, run: b, depends: first}',
        '  - {run: c, depends: [second]}',
      ),
    );
    expect(dag.steps.map((s) => [s.name, s.id, s.depends])).toEqual([
      ['first', 'first', []],
      ['Second', 'second', ['first']],
      ['cmd_3', null, ['Second']],
    ]);
  });

  it('refuses bad, reserved and duplicate ids', () => {
    expect(
      errors(
        step(
          '  - {id: 9a, run: x}',
          '  - {id: Stdout, run: x}',
          '  - {id: b, run: x}',
          '  - {id: b, run: x}',
        ),
      ),
    ).toEqual([
      '2:10: steps[0].id: id "9a" must start with a letter and hold only letters, digits and _',
      '3:10: steps[1].id: id "Stdout" is a reserved word',
      '5:5: steps[3].name: step name "b" is already used by steps[2]',
      '5:10: steps[3].id: id "b" is already used by steps[2]',
    ]);
  });

  it('injects chain dependencies per entry, a group depending on the whole entry before it', () => {
    const dag = parse(
      yaml(
        'type: chain',
        'steps:',
        '  - run: a',
        '  - [{name: b, run: b}, {name: c, run: c}]',
        '  - {name: d, run: d}',
      ),
    );
    expect(dag.steps.map((s) => [s.name, s.depends])).toEqual([
      ['cmd_1', []],
      ['b', ['cmd_1']],
      ['c', ['cmd_1']],
      ['d', ['b', 'c']],
    ]);
  });

  it('refuses depends under type: chain, and an unknown type', () => {
    expect(
      errors(yaml('type: chain', 'steps:', '  - {name: a, run: x}', '  - {name: b, run: x, depends: []}'))[0],
    ).toMatch(/^4:5: steps\[1\]\.depends: depends is not allowed in a DAG of type chain/);
    expect(errors(yaml('type: dag', ...steps('  - run: x')))).toEqual([
      '1:7: type: must be graph, chain or build, got "dag"',
    ]);
    expect(errors(yaml('type: agent', ...steps('  - run: x')))[0]).toMatch(
      /agent DAGs are not supported.*\[unsupported\]$/,
    );
  });

  it('reads a map of steps sorted by name, with no chain', () => {
    const dag = parse(yaml('type: chain', 'steps:', '  b: {run: y}', '  a: {run: x, name: ignored}'));
    expect(dag.steps.map((s) => [s.name, s.depends])).toEqual([
      ['a', []],
      ['b', []],
    ]);
  });

  it('takes time linear in the number of steps (a 200-step DAG is read in milliseconds)', () => {
    const chain = (n: number) => {
      const rows = ['steps:'];
      for (let i = 0; i < n; i++)
        rows.push(`  - {name: s${i}, run: echo ${i}${i > 0 ? `, depends: [s${i - 1}]` : ''}}`);
      return yaml(...rows);
    };
    // The fastest of a few runs, so that a busy machine does not decide the outcome.
    const time = (text: string) => {
      let best = Infinity;
      for (let k = 0; k < 3; k++) {
        const start = performance.now();
        expect(parseDag(text, { file: FILE, defaultName: 'etl' }).ok).toBe(true);
        best = Math.min(best, performance.now() - start);
      }
      return best;
    };
    const small = time(chain(200));
    const large = time(chain(1600));
    // 8 times the steps: linear work takes about 8 times as long, quadratic work 64 times.
    expect(large / small).toBeLessThan(24);
  });
});

describe('what a step executes', () => {
  it('reads run lists, numbers and slipped k: v entries, and refuses line breaks in a list', () => {
    expect(parse(step('  - run: [echo a, 5, "", {echo: hi}]')).steps[0].command).toEqual([
      'echo a',
      '5',
      'echo: hi',
    ]);
    expect(errors(step('  - run: ["a\\nb"]'))).toEqual([
      '2:11: steps[0].run[0]: a list entry must be one line (use a text block for a script)',
    ]);
    expect(errors(step('  - run: ["", ""]'))).toEqual(['2:10: steps[0].run: must hold at least one command']);
    expect(errors(step('  - run: x', '    shell: bash'))).toEqual([
      '3:12: steps[0].shell: run cannot be used together with shell',
    ]);
  });

  it('reads command + script as an interpreter running the script, and with.shell as the step shell', () => {
    const [a, b] = parse(
      step(
        '  - command: python3 -u',
        '    script: |',
        '      print(1)',
        '  - run: echo',
        '    with: {shell: bash -o pipefail, shell_args: [-x]}',
      ),
    ).steps;
    expect(a).toMatchObject({
      command: ['python3 -u'],
      script: 'print(1)',
      script_interpreter: true,
      shell_explicit: false,
    });
    expect(b).toMatchObject({ shell: 'bash', shell_args: ['-o', 'pipefail', '-x'], shell_explicit: true });
  });

  it('reads DAG-level shell and shell_args', () => {
    const dag = parse(yaml('shell: [bash, -e]', 'shell_args: [-u]', ...steps('  - run: x')));
    expect([dag.shell, dag.shell_args, dag.steps[0].shell_explicit]).toEqual(['bash', ['-e', '-u'], false]);
  });

  it('reads exec, http, jq, mail, log and noop actions, keeping with as written', () => {
    const dag = parse(
      step(
        '  - {action: exec, with: {command: /bin/echo, args: [a, 2]}}',
        '  - {exec: {command: ls}}',
        '  - {action: http.request, with: {method: GET, url: "http://x/${P}", headers: {A: b}}}',
        '  - {type: http, command: POST http://y}',
        '  - {action: jq.filter, with: {filter: .a, data: {a: 1}}}',
        '  - {type: jq, command: .b, script: \'{"b": 2}\'}',
        '  - {action: mail.send, with: {to: [a@x], subject: s, message: m}}',
        '  - {action: log.write, with: {message: hi}}',
        '  - {action: noop}',
      ),
    );
    expect(dag.steps.map((s) => s.action)).toEqual([
      { kind: 'exec', command: '/bin/echo', args: ['a', '2'] },
      { kind: 'exec', command: 'ls', args: [] },
      { kind: 'http', with: { method: 'GET', url: 'http://x/${P}', headers: { A: 'b' } } },
      { kind: 'http', with: { method: 'POST', url: 'http://y' } },
      { kind: 'jq', with: { filter: '.a', data: { a: 1 } } },
      { kind: 'jq', with: { filter: '.b', data: { b: 2 } } },
      { kind: 'mail', with: { to: ['a@x'], subject: 's', message: 'm' } },
      { kind: 'log', with: { message: 'hi' } },
      { kind: 'noop' },
    ]);
    expect(dag.steps.map((s) => s.name)).toEqual([
      'cmd_1',
      'cmd_2',
      'http_3',
      'http_4',
      'jq_5',
      'jq_6',
      'mail_7',
      'log_8',
      'noop_9',
    ]);
  });

  it('refuses an action without its required inputs, with keys it does not take, or unknown to Dagu', () => {
    expect(errors(step('  - {action: http.request, with: {url: x, verb: GET}}'))).toEqual([
      '2:34: steps[0].with: http needs with.method',
      '2:43: steps[0].with.verb: unknown key "verb" (allowed: method, url, headers, query, body, form, files, timeout, silent, debug, json, format, output, skip_tls_verify)',
    ]);
    expect(errors(step('  - {action: http.get}'))).toEqual([
      '2:14: steps[0].action: unknown action "http.get" (http has http.request)',
    ]);
    expect(errors(step('  - {action: jq.filter, run: x, with: {filter: .}}'))).toEqual([
      '2:14: steps[0].action: run cannot be used together with action',
      '2:30: steps[0].run: action jq does not take run',
    ]);
  });

  it('reads call and dag.run/dag.enqueue with params and a queue', () => {
    const [a, b, c] = parse(
      step(
        '  - {call: child, params: "A=1 B=${X}"}',
        '  - {action: dag.run, with: {dag: child, params: {B: 2, A: 1}}}',
        '  - {action: dag.enqueue, with: {dag: child, queue: batch}}',
      ),
    ).steps;
    expect(a).toMatchObject({
      action: { kind: 'dag', mode: 'run', queue: null },
      call: 'child',
      params: [
        { name: 'A', value: '1' },
        { name: 'B', value: '${X}' },
      ],
    });
    expect(b.params).toEqual([
      { name: 'A', value: '1' },
      { name: 'B', value: '2' },
    ]);
    expect(c).toMatchObject({ action: { kind: 'dag', mode: 'enqueue', queue: 'batch' }, call: 'child' });
  });

  it('reads parallel as a variable, a list or {items, max_concurrent}', () => {
    const [a, b, c] = parse(
      step(
        '  - {call: c, parallel: "${ITEMS}"}',
        '  - {call: c, parallel: [a, 2, {K: v}]}',
        '  - {call: c, parallel: {items: [x], max_concurrent: 3}}',
      ),
    ).steps;
    expect(a.parallel).toEqual({ variable: '${ITEMS}', items: [], max_concurrent: 10 });
    expect(b.parallel).toEqual({ variable: null, items: ['a', '2', { K: 'v' }], max_concurrent: 10 });
    expect(c.parallel).toEqual({ variable: null, items: ['x'], max_concurrent: 3 });
    expect(a.name).toBe('parallel_1');
  });

  it('refuses parallel without a sub-DAG, over 1000 items, or too wide', () => {
    expect(errors(step('  - {run: x, parallel: [a]}'))).toEqual([
      '2:24: steps[0].parallel: parallel needs call, action: dag.run or action: dag.enqueue',
    ]);
    const many = `[${Array.from({ length: 100_000 }, (_, i) => i).join(',')}]`;
    expect(errors(step(`  - {call: c, parallel: ${many}}`))).toEqual([
      '2:25: steps[0].parallel: at most 1000 items, got 100000',
    ]);
    expect(errors(step('  - {call: c, parallel: {items: [a], max_concurrent: 5000}}'))).toEqual([
      '2:54: steps[0].parallel.max_concurrent: must be at most 1000, got 5000',
    ]);
    expect(errors(step('  - {call: c, parallel: []}'))).toEqual([
      '2:25: steps[0].parallel: must not be an empty list',
    ]);
  });
});

describe('unsupported Dagu features', () => {
  it('refuses them with the reason and the unsupported kind, and other keys as unknown', () => {
    expect(
      errors(
        yaml(
          'ssh: {host: h}',
          'steps:',
          '  - {run: x, container: {image: alpine}}',
          '  - {action: docker.run, with: {image: a}}',
          '  - {type: ssh, command: ls}',
          '  - {action: s3.upload}',
          '  - {run: x, bogus: 1}',
        ),
      ),
    ).toEqual([
      "1:1: ssh: Dagu's DAG-level ssh is not supported by this product (it runs no remote shells) [unsupported]",
      "3:14: steps[0].container: Dagu's container steps are not supported by this product (it runs no container runtime) [unsupported]",
      "4:14: steps[1].action: Dagu's container steps are not supported by this product (it runs no container runtime) [unsupported]",
      "5:12: steps[2].type: Dagu's ssh steps are not supported by this product (it runs no remote shells) [unsupported]",
      "6:14: steps[3].action: Dagu's S3 steps are not supported by this product (it has no object-storage client) [unsupported]",
      expect.stringMatching(/^7:14: steps\[4\]\.bogus: unknown key "bogus"/),
    ]);
  });
});

describe('policies', () => {
  it('reads preconditions as a string, a list of strings and objects', () => {
    const dag = parse(
      yaml(
        'preconditions: test -f x',
        ...steps(
          '  - run: x',
          '    preconditions:',
          '      - "true"',
          '      - {condition: "${A}", expected: "re:^a+$", negate: true}',
          '      - {eval: "`date`", expected: x}',
        ),
      ),
    );
    expect(dag.preconditions).toEqual([
      { condition: 'test -f x', eval: null, expected: null, negate: false },
    ]);
    expect(dag.steps[0].preconditions).toEqual([
      { condition: 'true', eval: null, expected: null, negate: false },
      { condition: '${A}', eval: null, expected: 're:^a+$', negate: true },
      { condition: null, eval: '`date`', expected: 'x', negate: false },
    ]);
  });

  // The 1.x spellings (precondition, a condition's command) are read with 1.x meaning: dagu1.test.ts.
  it('refuses malformed preconditions', () => {
    expect(
      errors(
        step(
          '  - run: x',
          '    preconditions:',
          '      - {condition: a, eval: b, expected: c}',
          '      - {eval: b}',
          '      - {condition: a, expected: "re:("}',
        ),
      ),
    ).toEqual([
      '4:9: steps[0].preconditions[0]: a precondition needs exactly one of condition and eval',
      '5:16: steps[0].preconditions[1].eval: eval needs expected: the value its output is compared with',
      expect.stringMatching(
        /^6:34: steps\[0\]\.preconditions\[2\]\.expected: invalid regular expression "\("/,
      ),
    ]);
  });

  it('reads continue_on as a word or a map', () => {
    const [a, b, c] = parse(
      step(
        '  - {run: x, continue_on: Skipped}',
        '  - {run: x, continue_on: failed}',
        '  - {run: x, continue_on: {failed: true, exit_code: [1, "2"], output: "re:warn", mark_success: true}}',
      ),
    ).steps;
    expect(a.continue_on).toEqual({
      failure: false,
      skipped: true,
      exit_code: [],
      output: [],
      mark_success: false,
    });
    expect(b.continue_on.failure).toBe(true);
    expect(c.continue_on).toEqual({
      failure: true,
      skipped: false,
      exit_code: [1, 2],
      output: ['re:warn'],
      mark_success: true,
    });
    expect(errors(step('  - {run: x, continue_on: failure}'))).toEqual([
      '2:27: steps[0].continue_on: must be skipped, failed or a map, got a string "failure"',
    ]);
  });

  it('reads continue_on output "" as no pattern and [""] as a pattern matching any line, as Dagu does', () => {
    // types/continueon.go:parseStringArray: an empty string is no pattern; list items are kept as they are.
    const [a, b] = parse(
      step('  - {run: x, continue_on: {output: ""}}', '  - {run: x, continue_on: {output: [""]}}'),
    ).steps;
    expect(a.continue_on.output).toEqual([]);
    expect(b.continue_on.output).toEqual(['']);
  });

  it('reads a step retry_policy, which needs limit and interval_sec, and refuses bad values', () => {
    expect(
      parse(step('  - {run: x, retry_policy: {limit: "2", interval_sec: 1, exit_code: [3], backoff: 1.5}}'))
        .steps[0],
    ).toMatchObject({
      retry_policy: { limit: 2, interval_sec: 1, backoff: 1.5, max_interval_sec: null },
      retry_exit_codes: [3],
    });
    expect(errors(step('  - {run: x, retry_policy: {limit: 2}}'))).toEqual([
      '2:28: steps[0].retry_policy: interval_sec is required',
    ]);
    expect(errors(step('  - {run: x, retry_policy: {limit: 2, interval_sec: -1, backoff: 1}}'))).toEqual([
      '2:53: steps[0].retry_policy.interval_sec: must be at least 0, got -1',
      '2:66: steps[0].retry_policy.backoff: a backoff multiplier must be greater than 1, got 1',
    ]);
  });

  it('infers the repeat mode, and refuses an explicit mode without a check and a huge limit', () => {
    const modes = parse(
      step(
        '  - {run: x, repeat_policy: {condition: a, expected: b}}',
        '  - {run: x, repeat_policy: {condition: a}}',
        '  - {run: x, repeat_policy: {exit_code: 1}}',
        '  - {run: x, repeat_policy: {interval_sec: 1}}',
        '  - {run: x, repeat_policy: {repeat: true, limit: 3}}',
      ),
    ).steps.map((s) => s.repeat_policy?.mode);
    expect(modes).toEqual(['until', 'while', 'while', null, 'while']);
    expect(errors(step('  - {run: x, repeat_policy: {repeat: until}}'))).toEqual([
      '2:38: steps[0].repeat_policy.repeat: repeat: until needs a condition or an exit_code',
    ]);
    expect(errors(step('  - {run: x, repeat_policy: {repeat: true, limit: 99999999999}}'))).toEqual([
      '2:51: steps[0].repeat_policy.limit: must be at most 1000000, got 99999999999',
    ]);
  });

  it('reads repeat: false as unset, limit: 0 as no limit and a lone expected as ignored, as Dagu does', () => {
    // Dagu's RepeatMode leaves `false` unset, so the mode is still inferred from the other keys; Limit 0 is
    // "no limit"; `expected` only counts together with `condition` (spec/step.go:buildStepRepeatPolicy).
    const r = parseDag(
      step(
        '  - {run: x, repeat_policy: {repeat: false, condition: a, expected: b}}',
        '  - {run: x, repeat_policy: {repeat: false, exit_code: [1]}}',
        '  - {run: x, repeat_policy: {repeat: false, limit: 3}}',
        '  - {run: x, repeat_policy: {repeat: true, limit: 0}}',
        '  - {run: x, repeat_policy: {exit_code: 1, expected: b}}',
        '  - {run: x, repeat_policy: {expected: b}}',
      ),
      { file: FILE, defaultName: 'etl' },
    );
    if (!r.ok) throw new Error(r.errors.map(formatDagError).join('\n'));
    expect(r.dag.steps.map((s) => [s.repeat_policy?.mode, s.repeat_policy?.limit])).toEqual([
      ['until', null],
      ['while', null],
      [null, 3],
      ['while', null],
      ['while', null],
      [null, null],
    ]);
    expect(r.dag.steps[4].repeat_policy).toMatchObject({ condition: null, expected: null, exit_code: [1] });
    expect(r.warnings.filter((w) => w.includes('expected'))).toEqual([
      'steps[4].repeat_policy.expected: expected without a condition is ignored (as in Dagu)',
      'steps[5].repeat_policy.expected: expected without a condition is ignored (as in Dagu)',
    ]);
  });

  it('reads signal_on_stop, timeouts and stdout/stderr paths, and refuses bad ones', () => {
    const s = parse(
      step(
        '  - {run: x, signal_on_stop: int, timeout_sec: 0, stdout: out.txt, stderr: err.txt, log_output: merged, mail_on_error: true}',
      ),
    ).steps[0];
    expect(s).toMatchObject({
      signal_on_stop: 'SIGINT',
      timeout_sec: null,
      stdout_file: 'out.txt',
      stderr_file: 'err.txt',
      log_output: 'merged',
      mail_on_error: true,
    });
    expect(
      errors(step('  - {run: x, signal_on_stop: SIGNOPE, timeout_sec: -1, stdout: a, stderr: a}')),
    ).toEqual([
      '2:30: steps[0].signal_on_stop: invalid signal "SIGNOPE" (use a name like SIGINT or SIGTERM)',
      '2:52: steps[0].timeout_sec: must be at least 0, got -1',
      '2:75: steps[0].stderr: stdout and stderr name the same file; use log_output: merged instead',
    ]);
  });

  it('applies defaults to the keys a step does not set', () => {
    const [a, b] = parse(
      yaml(
        'defaults: {timeout_sec: 9, env: {A: "1"}, continue_on: skipped}',
        ...steps('  - run: x', '  - {run: y, timeout_sec: 2, env: {B: "2"}}'),
      ),
    ).steps;
    expect([a.timeout_sec, a.env, a.continue_on.skipped]).toEqual([9, { A: '1' }, true]);
    expect([b.timeout_sec, b.env]).toEqual([2, { A: '1', B: '2' }]);
  });
});

describe('DAG-level keys', () => {
  it('reads params in every form, with rich definitions', () => {
    const dag = parse(
      yaml(
        'params:',
        '  - A=1',
        '  - {Z: 2, B: 3}',
        '  - {name: env, default: dev, enum: [dev, prd], required: true, eval: "`echo x`", type: string}',
        ...steps('  - run: x'),
      ),
    );
    expect(dag.params.map((p) => [p.name, p.value])).toEqual([
      ['A', '1'],
      ['B', '3'],
      ['Z', '2'],
      ['env', 'dev'],
    ]);
    expect(dag.params[3].rich).toMatchObject({
      has_default: true,
      enum: ['dev', 'prd'],
      required: true,
      eval: '`echo x`',
      type: 'string',
    });
    expect(
      errors(
        yaml('params:', '  - {name: x}', '  - {name: y, type: date}', '  - _a=1', ...steps('  - run: x')),
      ),
    ).toEqual([
      '2:5: params[0]: parameter "x" must define at least one field in addition to name',
      '3:21: params[1].type: must be string, integer, number or boolean, got "date"',
      '4:5: params[2]: "_a" is not a valid parameter name (start with a letter; then letters, digits and _)',
    ]);
  });

  it('reads labels (lowercased, k=v from maps) and refuses labels with tags', () => {
    expect(parse(yaml('labels: {Team: Data, tier: "1"}', ...steps('  - run: x'))).labels).toEqual([
      'team=data',
      'tier=1',
    ]);
    expect(parse(yaml('tags: "A, b c"', ...steps('  - run: x'))).tags).toEqual(['a', 'b', 'c']);
    expect(errors(yaml('labels: [a]', 'tags: [b]', ...steps('  - run: x')))).toEqual([
      '2:7: tags: use labels or its old name tags, not both',
    ]);
  });

  it('joins a relative working_dir to the file directory and reads dotenv with .env first', () => {
    const dag = parse(yaml('working_dir: ../data/./x', 'dotenv: [prod.env, .env]', ...steps('  - run: x')));
    expect(dag.working_dir).toBe('/srv/data/x');
    expect(dag.dotenv).toEqual(['.env', 'prod.env']);
    expect(parse(yaml('working_dir: ~/w', ...steps('  - run: x'))).working_dir).toBe('~/w');
  });

  it('reads schedule start/stop/restart and entry objects, and refuses descriptors', () => {
    const dag = parse(
      yaml(
        'schedule:',
        '  start: ["0 1 * * *", {kind: cron, expression: "TZ=Asia/Tokyo 0 2 * * *"}]',
        '  stop: "0 3 * * *"',
        ...steps('  - run: x'),
      ),
    );
    expect(dag.schedule.map((s) => [s.cron, s.timezone])).toEqual([
      ['0 1 * * *', null],
      ['0 2 * * *', 'Asia/Tokyo'],
    ]);
    expect(dag.stop_schedule?.map((s) => s.cron)).toEqual(['0 3 * * *']);
    expect(errors(yaml('schedule: "@daily"', ...steps('  - run: x')))[0]).toMatch(
      /descriptors like @daily are not accepted/,
    );
    expect(errors(yaml('schedule: {begin: "0 1 * * *"}', ...steps('  - run: x')))[0]).toMatch(
      /unknown key "begin"/,
    );
  });

  it('reads handlers, retention, mail and the remaining keys, and refuses both retention keys', () => {
    const dag = parse(
      yaml(
        'group: " ops "',
        'hist_retention_runs: 5',
        'max_active_steps: 2',
        'delay_sec: 1',
        'max_clean_up_time_sec: 0',
        'skip_if_successful: true',
        'smtp: {host: mail, port: "2525", username: u, password: p}',
        'mail_on: {failure: true}',
        'error_mail: {from: a@x, to: "b@x, c@x", prefix: "[E]", attach_logs: true}',
        'run_config: {disable_param_edit: true}',
        'worker_selector: local',
        ...steps('  - run: x'),
      ),
    );
    expect(dag).toMatchObject({
      group: 'ops',
      hist_retention_runs: 5,
      hist_retention_days: null,
      max_active_steps: 2,
      delay_sec: 1,
      // 0 is Dagu's "unset": the 5 s default.
      max_clean_up_time_sec: 5,
      skip_if_successful: true,
      smtp: { host: 'mail', port: 2525, username: 'u', password: 'p' },
      mail_on: { failure: true, success: false },
      error_mail: { from: 'a@x', to: ['b@x', 'c@x'], prefix: '[E]', attach_logs: true },
      run_config: { disable_param_edit: true, disable_run_id_edit: false },
      worker_selector: null,
    });
    expect(errors(yaml('hist_retention_days: 3', 'hist_retention_runs: 4', ...steps('  - run: x')))).toEqual([
      '2:22: hist_retention_runs: set hist_retention_days or hist_retention_runs, not both',
    ]);
  });

  it('warns about deprecated spellings and max_active_runs', () => {
    const r = parseDag(
      yaml(
        'max_active_runs: 3',
        ...steps('  - echo a', '  - {command: b, shell: bash}', '  - {call: c, params: A=1}'),
      ),
      { file: FILE, defaultName: 'etl' },
    );
    expect(r.ok && [...r.warnings].sort()).toEqual([
      'Deprecated DAG syntax: steps[0] string shorthand is deprecated; use run',
      'Deprecated DAG syntax: steps[1].command is deprecated; use run',
      'Deprecated DAG syntax: steps[1].shell is deprecated; use run with with.shell',
      'Deprecated DAG syntax: steps[2].call is deprecated; use action: dag.run with with.dag',
      'Deprecated DAG syntax: steps[2].params is deprecated; use action: dag.run with with.params',
      'max_active_runs=3 is deprecated; use a global queue (queue: NAME) to bound concurrent runs',
    ]);
  });
});

describe('documents', () => {
  it('keeps later documents as local DAGs with unique names', () => {
    const dag = parse(
      yaml(
        ...steps('  - call: child'),
        '---',
        'name: child',
        ...steps('  - run: echo c'),
        '---',
        '',
        '---',
        'name: other',
        ...steps('  - run: echo o'),
      ),
    );
    expect(Object.keys(dag.local_dags ?? {})).toEqual(['child', 'other']);
    expect(dag.local_dags?.child.steps[0].command).toEqual(['echo c']);
    expect(
      errors(
        yaml(
          ...steps('  - run: x'),
          '---',
          'name: c',
          ...steps('  - run: y'),
          '---',
          'name: c',
          ...steps('  - run: z'),
        ),
      ),
    ).toEqual(['8:1: name: DAG name "c" is used by another document of this file']);
  });

  it('applies dagu validate rules in strict mode: no entrypoint name, steps as a non-empty list', () => {
    expect(errors(yaml('name: etl', ...steps('  - run: x')), true)[0]).toMatch(
      /^1:1: name: the entrypoint document .* must not define name/,
    );
    expect(errors(yaml('steps: {a: {run: x}}'), true)).toEqual([
      '1:1: steps: the entrypoint document (the first of the file): steps must be a list (dagu validate follows Dagu here; dagu start accepts a map)',
    ]);
    expect(
      parseDag(yaml(...steps('  - run: x'), '---', 'name: c', ...steps('  - run: y')), {
        file: FILE,
        defaultName: 'etl',
        strict: true,
      }).ok,
    ).toBe(true);
  });
});

describe('worker_selector: local and step file dependencies', () => {
  it('reads worker_selector: local as "never dispatch", and refuses any other string', () => {
    const dag = parse(yaml('worker_selector: local', ...steps('  - run: echo a')));
    expect(dag.worker_selector).toBeNull();
    expect(dag.force_local).toBe(true);
    expect(parse(step('  - run: echo a')).force_local).toBe(false);
    expect(errors(yaml('worker_selector: remote', ...steps('  - run: echo a')))).toEqual([
      '1:18: worker_selector: must be a map of labels or the string "local", got "remote"',
    ]);
  });

  it('reads step dependencies as files (not steps to wait for), literal and non-empty', () => {
    const dag = parse(step('  - name: a', '    run: ./x.sh', '    dependencies: ["scripts/**", x.sh]'));
    expect(dag.steps[0].depends).toEqual([]);
    expect(errors(step('  - name: a', '    run: ./x.sh', '    dependencies: ["${DIR}/x"]'))).toEqual([
      '4:20: steps[0].dependencies[0]: file dependency paths must be literal (no ${...} references)',
    ]);
    expect(errors(step('  - name: a', '    run: ./x.sh', '    dependencies: []'))).toEqual([
      '4:19: steps[0].dependencies: must not be empty',
    ]);
  });
});

describe('numbers in env and map params', () => {
  it("write a YAML float as Go's %v does (Dagu decodes them as float64), an integer as written", () => {
    // spec/types/env.go:stringifyValue and spec/params.go:parseMapParams print non-strings with %v.
    const dag = parse(
      yaml(
        'env:',
        '  - {A: 100000000.0, B: 1e3, C: 0.00001, D: 1.50, E: 100000000, F: 0x10, G: 2.5e+20}',
        'params: {P: 1.0e+8, Q: 42}',
        ...steps('  - run: x'),
      ),
    );
    expect(dag.env).toEqual({
      A: '1e+08',
      B: '1000',
      C: '1e-05',
      D: '1.5',
      E: '100000000',
      F: '16',
      G: '2.5e+20',
    });
    expect(dag.params).toEqual([
      { name: 'P', value: '1e+08' },
      { name: 'Q', value: '42' },
    ]);
  });
});

describe('keys in another case (Dagu decodes struct-typed maps ignoring case)', () => {
  it('reads DAG, step, handler and policy keys in any case', () => {
    const dag = parse(
      yaml(
        'Description: d',
        'Max_Active_Steps: 2',
        'Handler_On:',
        '  Exit: {Command: echo bye}',
        'Retry_Policy: {LIMIT: 2}',
        'SMTP: {Host: mail.local, PORT: 25}',
        'Steps:',
        '  - Name: a',
        '    Command: echo a',
        '    Timeout_Sec: 5',
        '    Repeat_Policy: {Repeat: while, Exit_Code: [1], Limit: 3}',
      ),
    );
    expect(dag.description).toBe('d');
    expect(dag.max_active_steps).toBe(2);
    expect(dag.handler_on.exit?.command).toEqual(['echo bye']);
    expect(dag.retry_policy?.limit).toBe(2);
    expect(dag.smtp).toMatchObject({ host: 'mail.local', port: 25 });
    expect(dag.steps[0]).toMatchObject({ name: 'a', command: ['echo a'], timeout_sec: 5 });
    expect(dag.steps[0].repeat_policy).toMatchObject({ mode: 'while', limit: 3 });
  });

  it('refuses two spellings of one key, naming both', () => {
    expect(errors(yaml('name: x', 'NAME: y', ...steps('  - run: echo')))).toEqual([
      '2:1: NAME: key "NAME" is already defined at line 1 as "name" (these keys ignore case)',
    ]);
  });

  it('keeps the case of run, action and with, and of maps Dagu reads by hand', () => {
    expect(errors(step('  - Run: echo x', '  - action: noop', '    With: {}'))).toEqual([
      '2:5: steps[0].Run: write "Run" as run: Dagu reads run, action and with in lower case only (other keys ignore case)',
      '4:5: steps[1].With: write "With" as with: Dagu reads run, action and with in lower case only (other keys ignore case)',
    ]);
    expect(errors(step('  - run: "false"', '    continue_on: {Failure: true}'))).toEqual([
      '3:19: steps[0].continue_on.Failure: unknown key "Failure": here, as in Dagu, these keys are matched in lower case only; use failure',
    ]);
  });

  it('validate reads name and steps in lower case only, and warns only of lower-case legacy keys', () => {
    expect(errors(yaml('Steps:', '  - run: echo'), true)).toEqual([
      '1:1: Steps: the entrypoint document (the first of the file) must define steps: dagu validate reads it in lower case only, as Dagu\'s does (dagu start accepts "Steps")',
    ]);
    const r = parseDag(yaml('Name: x', ...steps('  - Command: echo', '  - command: echo')), {
      file: FILE,
      defaultName: 'etl',
      strict: true,
    });
    expect(r.ok && r.warnings.filter((w) => w.startsWith('Deprecated'))).toEqual([
      'Deprecated DAG syntax: steps[1].command is deprecated; use run',
    ]);
  });
});
