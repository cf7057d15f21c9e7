import { describe, expect, it } from 'vitest';
import { dagNameFromFile, formatDagError, parseDag } from './parseDag';
import type { DagSpec } from '../types';

const FILE = 'dags/etl.yaml';

/** The lines of a DAG file; writing them one per element keeps the line numbers in the tests honest. */
const yaml = (...rows: string[]) => rows.join('\n') + '\n';

function parse(text: string): DagSpec {
  const r = parseDag(text, { file: FILE, defaultName: 'etl' });
  if (!r.ok) throw new Error(r.errors.map(formatDagError).join('\n'));
  return r.dag;
}

function warningsOf(text: string): string[] {
  const r = parseDag(text, { file: FILE, defaultName: 'etl' });
  if (!r.ok) throw new Error(r.errors.map(formatDagError).join('\n'));
  return r.warnings;
}

/** Every error of a file, formatted the way `dagu validate` prints them. */
function errors(text: string, defaultName = 'etl'): string[] {
  const r = parseDag(text, { file: FILE, defaultName });
  if (r.ok) throw new Error('expected the DAG to be rejected');
  return r.errors.map(formatDagError);
}

const oneStep = ['steps:', '  - name: s', '    command: echo hi'];

describe('parseDag: a valid DAG', () => {
  it('fills every field with its default for the smallest DAG', () => {
    expect(parse(yaml('steps:', '  - name: s', '    run: echo hi'))).toEqual({
      name: 'etl',
      description: '',
      tags: [],
      schedule: [],
      steps: [
        {
          name: 's',
          id: null,
          description: '',
          action: { kind: 'command' },
          shell_args: [],
          shell_explicit: false,
          script_interpreter: false,
          preconditions: [],
          repeat_policy: null,
          retry_exit_codes: [],
          signal_on_stop: null,
          stdout_file: null,
          stderr_file: null,

          mail_on_error: false,
          parallel: null,
          command: ['echo hi'],
          script: null,
          shell: null,
          dir: null,
          env: {},
          depends: [],
          timeout_sec: null,
          retry_policy: null,
          continue_on: { failure: false, skipped: false, exit_code: [], output: [], mark_success: false },
          output: null,
          call: null,
          params: [],
          worker_selector: null,
        },
      ],
      params: [],
      env: {},
      queue: 'etl',
      max_active_runs: 1,
      overlap_policy: 'skip',
      catchup_window_ms: 0,
      retry_policy: null,
      timeout_sec: null,
      worker_selector: null,
      force_local: false,
      handler_on: { init: null, success: null, failure: null, abort: null, exit: null, wait: null },
      signal_handling: { enable_propagation: false },
      file: FILE,
      group: '',
      labels: [],
      type: 'graph',
      shell: null,
      shell_args: [],
      working_dir: null,
      dotenv: ['.env'],
      preconditions: [],
      delay_sec: 0,
      max_clean_up_time_sec: 5,
      max_active_steps: 0,
      max_output_size: 1048576,
      hist_retention_days: 30,
      hist_retention_runs: null,
      log_dir: null,
      log_output: 'separate',
      skip_if_successful: false,
      stop_schedule: [],
      restart_schedule: [],
      restart_wait_sec: 0,
      smtp: null,
      mail_on: { failure: false, success: false, wait: false },
      error_mail: null,
      info_mail: null,
      wait_mail: null,
      local_dags: {},
      warnings: [],
    } satisfies DagSpec);
  });

  it('reads every root key', () => {
    const dag = parse(
      yaml(
        'name: nightly-etl',
        'description: Loads the warehouse',
        'tags: [daily, 2026, finance]',
        'schedule: CRON_TZ=Europe/Paris 0 2 * * *',
        'params: DATE=today',
        'env:',
        '  - REGION=eu',
        '  - LEVEL: 3',
        'queue: warehouse',
        'max_active_runs: 3',
        'overlap_policy: latest',
        'catchup_window: 2d12h',
        'retry_policy: {limit: 2, interval_sec: 30, backoff: 1.5, max_interval_sec: 300}',
        'timeout_sec: 3600',
        'worker_selector: {zone: b, gpu: true, slots: 4}',
        'signal_handling: {enable_propagation: true}',
        ...oneStep,
      ),
    );
    expect(dag.name).toBe('nightly-etl');
    expect(dag.description).toBe('Loads the warehouse');
    expect(dag.tags).toEqual(['daily', '2026', 'finance']);
    expect(dag.schedule).toEqual([
      {
        expression: 'CRON_TZ=Europe/Paris 0 2 * * *',
        cron: '0 2 * * *',
        timezone: 'Europe/Paris',
        has_seconds: false,
      },
    ]);
    expect(dag.params).toEqual([{ name: 'DATE', value: 'today' }]);
    expect(dag.env).toEqual({ REGION: 'eu', LEVEL: '3' });
    expect(dag.queue).toBe('warehouse');
    expect(dag.max_active_runs).toBe(3);
    expect(dag.overlap_policy).toBe('latest');
    expect(dag.catchup_window_ms).toBe(60 * 60 * 60 * 1000);
    expect(dag.retry_policy).toEqual({ limit: 2, interval_sec: 30, backoff: 1.5, max_interval_sec: 300 });
    expect(dag.timeout_sec).toBe(3600);
    expect(dag.worker_selector).toEqual({ zone: 'b', gpu: 'true', slots: '4' });
    expect(dag.signal_handling).toEqual({ enable_propagation: true });
  });

  it('reads every step key', () => {
    const dag = parse(
      yaml(
        'steps:',
        '  - name: extract',
        '    command: [./extract.sh, ./check.sh]',
        '    shell: bash -o pipefail',
        '    working_dir: /srv/etl',
        '    env: {MODE: full}',
        '    timeout_sec: 60',
        '    retry_policy: {limit: 3, interval_sec: 5, backoff: true, max_interval_sec: 40}',
        '    continue_on: {failure: true}',
        '    output: ROWS',
        '  - name: load',
        '    script: |',
        '      set -e',
        '      ./load.sh',
        '    depends: extract',
        '  - name: report',
        '    call: reporting',
        '    params: "DAY=1 verbose"',
        '    worker_selector: {zone: a}',
        '    depends: [load]',
      ),
    );
    const [extract, load, report] = dag.steps;
    expect(extract).toMatchObject({
      command: ['./extract.sh', './check.sh'],
      shell: 'bash',
      shell_args: ['-o', 'pipefail'],
      shell_explicit: true,
      dir: '/srv/etl',
      env: { MODE: 'full' },
      timeout_sec: 60,
      retry_policy: { limit: 3, interval_sec: 5, backoff: 2, max_interval_sec: 40 },
      continue_on: { failure: true },
      output: 'ROWS',
      worker_selector: null,
      depends: [],
    });
    // Legacy `script` is trimmed, as Dagu does.
    expect(load).toMatchObject({ command: null, script: 'set -e\n./load.sh', depends: ['extract'] });
    expect(report).toMatchObject({
      call: 'reporting',
      params: [
        { name: 'DAY', value: '1' },
        { name: null, value: 'verbose' },
      ],
      worker_selector: { zone: 'a' },
      depends: ['load'],
    });
  });

  it('runs steps without depends together: graph is the default type', () => {
    const dag = parse(
      yaml('steps:', '  - {name: a, command: x}', '  - {name: b, command: x}', '  - {name: c, command: x}'),
    );
    expect(dag.type).toBe('graph');
    expect(dag.steps.map((s) => s.depends)).toEqual([[], [], []]);
  });

  it('chains steps in order under type: chain', () => {
    const dag = parse(
      yaml(
        'type: chain',
        'steps:',
        '  - {name: a, run: x}',
        '  - {name: b, run: x}',
        '  - {name: c, run: x}',
      ),
    );
    expect(dag.type).toBe('chain');
    expect(dag.steps.map((s) => s.depends)).toEqual([[], ['a'], ['b']]);
  });

  it('makes a graph as soon as one step declares depends, with the other steps as roots', () => {
    const dag = parse(
      yaml(
        'steps:',
        '  - {name: a, command: x}',
        '  - {name: b, command: x}',
        '  - {name: c, command: x, depends: [a, b]}',
        '  - {name: d, command: x}',
      ),
    );
    expect(dag.steps.map((s) => s.depends)).toEqual([[], [], ['a', 'b'], []]);
  });

  it('treats an empty depends as a declaration: the steps then run in parallel', () => {
    const dag = parse(yaml('steps:', '  - {name: a, command: x, depends: []}', '  - {name: b, command: x}'));
    expect(dag.steps.map((s) => s.depends)).toEqual([[], []]);
  });

  it('warns about a dependency listed twice and keeps it once', () => {
    const text = yaml('steps:', '  - {name: a, run: x}', '  - {name: b, run: x, depends: [a, a]}');
    expect(parse(text).steps[1].depends).toEqual(['a']);
    expect(warningsOf(text)).toEqual(['steps[1].depends: step "a" is listed more than once']);
  });

  it('names the handlers onInit, onSuccess, onFailure, onAbort and onExit, whatever their name says', () => {
    const dag = parse(
      yaml(
        ...oneStep,
        'handler_on:',
        '  init: {run: echo start}',
        '  success: {command: echo ok}',
        '  failure: {command: echo failed, name: alert}',
        '  abort: {script: echo aborted}',
        '  exit: {command: [echo bye]}',
      ),
    );
    expect(dag.handler_on.init).toMatchObject({ name: 'onInit', command: ['echo start'] });
    expect(dag.handler_on.success).toMatchObject({ name: 'onSuccess', command: ['echo ok'], depends: [] });
    expect(dag.handler_on.failure?.name).toBe('onFailure');
    expect(dag.handler_on.abort).toMatchObject({ name: 'onAbort', script: 'echo aborted' });
    expect(dag.handler_on.exit?.name).toBe('onExit');
  });

  it('reads a list of schedules, with a seconds field', () => {
    const dag = parse(yaml('schedule:', '  - "*/10 * * * * *"', '  - "0 9 * * 1-5"', ...oneStep));
    expect(dag.schedule.map((s) => [s.cron, s.has_seconds])).toEqual([
      ['*/10 * * * * *', true],
      ['0 9 * * 1-5', false],
    ]);
  });

  it('reads tags from a comma-separated string, trimming and dropping duplicates and blanks', () => {
    expect(parse(yaml('tags: "daily, etl,,daily "', ...oneStep)).tags).toEqual(['daily', 'etl']);
  });

  it('reads params as a quoted string, a list of strings and maps, or a map, keeping values verbatim', () => {
    // Dagu's tokens: a double-quoted value is unquoted, single quotes are ordinary characters, a backtick
    // text is kept with its backticks and never run.
    expect(parse(yaml(`params: "one 'two words' N=\\"a b\\" $(x) C=\`date\`"`, ...oneStep)).params).toEqual([
      { name: null, value: 'one' },
      { name: null, value: "'two" },
      { name: null, value: "words'" },
      { name: 'N', value: 'a b' },
      { name: null, value: '$(x)' },
      { name: 'C', value: '`date`' },
    ]);
    expect(
      parse(yaml('params:', '  - A=1', '  - B: "x; rm -rf /"', '  - plain', '  - 7', ...oneStep)).params,
    ).toEqual([
      { name: 'A', value: '1' },
      { name: 'B', value: 'x; rm -rf /' },
      { name: null, value: 'plain' },
      { name: null, value: '7' },
    ]);
    expect(parse(yaml('params: {A: 1, B: ~}', ...oneStep)).params).toEqual([
      { name: 'A', value: '1' },
      { name: 'B', value: '' },
    ]);
  });

  it('reads env as a map, coercing numbers and booleans to strings and null to empty', () => {
    expect(parse(yaml('env: {A: 1, B: true, C: ~, D: text}', ...oneStep)).env).toEqual({
      A: '1',
      B: 'true',
      C: '',
      D: 'text',
    });
  });

  it('reads backoff false as a constant interval and omitted interval_sec as 60 seconds', () => {
    expect(parse(yaml('retry_policy: {limit: 0, backoff: false}', ...oneStep)).retry_policy).toEqual({
      limit: 0,
      interval_sec: 60,
      backoff: 1,
      max_interval_sec: null,
    });
  });

  it('lowercases and trims overlap_policy', () => {
    expect(parse(yaml('overlap_policy: " ALL "', ...oneStep)).overlap_policy).toBe('all');
  });

  it('follows anchors, aliases and << merges, with written keys winning over merged ones', () => {
    const dag = parse(
      yaml(
        'steps:',
        '  - &base',
        '    name: a',
        '    command: x',
        '    retry_policy: &retry {limit: 2, interval_sec: 1}',
        '  - <<: *base',
        '    name: b',
        '    retry_policy: *retry',
      ),
    );
    expect(dag.steps[1]).toMatchObject({
      name: 'b',
      command: ['x'],
      retry_policy: { limit: 2, interval_sec: 1 },
      depends: [],
    });
  });

  it('reports no file and keeps the given name when the text came from elsewhere', () => {
    const r = parseDag(yaml(...oneStep), { file: null, defaultName: 'inline' });
    expect(r.ok && [r.dag.name, r.dag.file]).toEqual(['inline', null]);
  });
});

describe('parseDag: errors name the file, line, column and field', () => {
  it('reports malformed YAML with its line', () => {
    expect(errors(yaml('steps:', '  - name: a', '    command: echo: x'))).toEqual([
      'dags/etl.yaml:3:14: invalid YAML: Nested mappings are not allowed in compact mappings',
    ]);
    expect(errors(yaml('steps:', '  - name: a', '   command: x'))).toEqual([
      'dags/etl.yaml:3:1: invalid YAML: Sequence item without - indicator',
    ]);
  });

  it('refuses a NUL character in any string, which no command line, variable or path can carry', () => {
    expect(errors(yaml('steps:', '  - name: a', '    command: "echo \\0"'))).toEqual([
      'dags/etl.yaml:3:14: steps[0].command: must not contain a NUL character, got a string "echo \\u0000"',
    ]);
    expect(errors(yaml('env:', '  X: "a\\0"', ...oneStep))).toEqual([
      'dags/etl.yaml:2:6: env.X: must not contain a NUL character, got a string "a\\u0000"',
    ]);
  });

  it('says a document nested too deeply for the parser is nested too deeply', () => {
    const [only, ...rest] = errors(yaml(...oneStep, `    env: ${'['.repeat(20_000)}${']'.repeat(20_000)}`));
    expect(rest).toEqual([]);
    expect(only).toMatch(/^dags\/etl\.yaml:4:\d+: invalid YAML: the document is nested too deeply$/);
  });

  it('reports an unterminated quote where the file ends, as the YAML parser finds it there', () => {
    expect(errors(yaml('steps:', '  - name: a', '    command: "unterminated', 'name: x'))).toEqual([
      'dags/etl.yaml:5:1: invalid YAML: Missing closing "quote',
    ]);
  });

  it('reports a duplicate key at its second occurrence, with the line of the first', () => {
    expect(errors(yaml('name: a', ...oneStep, 'name: b'))).toEqual([
      'dags/etl.yaml:5:1: name: key "name" is already defined at line 1',
    ]);
    expect(errors(yaml('steps:', '  - name: s', '    command: a', '    command: b'))).toEqual([
      'dags/etl.yaml:4:5: steps[0].command: key "command" is already defined at line 3',
    ]);
  });

  it('reports an unknown root key with the allowed keys', () => {
    expect(errors(yaml(...oneStep, 'owner: me'))).toEqual([
      expect.stringMatching(
        /^dags\/etl\.yaml:4:1: owner: unknown key "owner" \(allowed: name, group, description, /,
      ),
    ]);
  });

  it('hints the snake_case key for a camelCase one', () => {
    // Dagu 1.x's own camelCase keys are read with 1.x meaning (dagu1.test.ts); others get the hint.
    expect(errors(yaml('catchupWindow: 1h', 'overlapPolicy: skip', ...oneStep))).toEqual([
      'dags/etl.yaml:1:1: catchupWindow: unknown key "catchupWindow": Dagu keys are snake_case; use catchup_window',
      'dags/etl.yaml:2:1: overlapPolicy: unknown key "overlapPolicy": Dagu keys are snake_case; use overlap_policy',
    ]);
    expect(errors(yaml('catchupWindow: 1h', 'maxActiveRuns: 1', ...oneStep))).toEqual([
      'dags/etl.yaml:1:1: catchupWindow: unknown key "catchupWindow": Dagu keys are snake_case; use catchup_window',
    ]);
    expect(errors(yaml('steps:', '  - name: s', '    command: x', '    shellArgs: [-e]'))).toEqual([
      'dags/etl.yaml:4:5: steps[0].shellArgs: unknown key "shellArgs": Dagu keys are snake_case; use shell_args',
    ]);
  });

  it('hints the key a typo or an alias from elsewhere meant', () => {
    expect(errors(yaml('steps:', '  - name: s', '    comand: x'))).toEqual([
      'dags/etl.yaml:2:5: steps[0]: a step needs run, an action or a call',
      'dags/etl.yaml:3:5: steps[0].comand: unknown key "comand" (did you mean command?)',
    ]);
    expect(errors(yaml('dir: /tmp', 'steps:', '  - name: s', '    command: x'))).toEqual([
      'dags/etl.yaml:1:1: dir: key "dir" was removed from Dagu\'s DAG language; use working_dir',
    ]);
  });

  it('reports wrong types with the type it found', () => {
    expect(
      errors(
        yaml(
          'description: [a]',
          'max_active_runs: "2"',
          'timeout_sec: 1.5',
          'signal_handling: {enable_propagation: "yes"}',
          'queue: 5',
          'steps:',
          '  - name: s',
          '    command: {a: 1}',
          '    continue_on: {failure: 1}',
          '    env: nope',
        ),
      ),
    ).toEqual([
      'dags/etl.yaml:1:14: description: must be a string, got a list',
      'dags/etl.yaml:2:18: max_active_runs: must be an integer, got a string "2"',
      'dags/etl.yaml:3:14: timeout_sec: must be an integer, got a number 1.5',
      'dags/etl.yaml:4:39: signal_handling.enable_propagation: must be true or false, got a string "yes"',
      'dags/etl.yaml:5:8: queue: must be a string, got a number 5',
      'dags/etl.yaml:8:14: steps[0].command: must be a string or a list, got a map',
      'dags/etl.yaml:9:28: steps[0].continue_on.failure: must be true or false, got a number 1',
      'dags/etl.yaml:10:10: steps[0].env: must be a map or a list of KEY=value, got a string "nope"',
    ]);
  });

  it('reports values out of their range', () => {
    expect(
      errors(
        yaml(
          'max_active_runs: x',
          'timeout_sec: -1',
          'overlap_policy: newest',
          'retry_policy: {limit: -1, interval_sec: -5, backoff: 0.5}',
          ...oneStep,
        ),
      ),
    ).toEqual([
      'dags/etl.yaml:1:18: max_active_runs: must be an integer, got a string "x"',
      'dags/etl.yaml:2:14: timeout_sec: must be at least 0, got -1',
      'dags/etl.yaml:3:17: overlap_policy: must be skip, all or latest, got "newest"',
      'dags/etl.yaml:4:23: retry_policy.limit: must be at least 0, got -1',
      'dags/etl.yaml:4:41: retry_policy.interval_sec: must be at least 0, got -5',
      'dags/etl.yaml:4:54: retry_policy.backoff: a backoff multiplier must be greater than 1, got 0.5',
    ]);
  });

  it('reports a retry_policy without a limit and a backoff of the wrong type', () => {
    expect(errors(yaml('retry_policy:', '  interval_sec: 5', '  backoff: fast', ...oneStep))).toEqual([
      'dags/etl.yaml:2:3: retry_policy: limit is required',
      'dags/etl.yaml:3:12: retry_policy.backoff: must be true, false or a multiplier greater than 1, got a string "fast"',
    ]);
  });

  it('reports an invalid or non-positive catchup_window', () => {
    expect(errors(yaml('catchup_window: -5s', ...oneStep))).toEqual([
      'dags/etl.yaml:1:17: catchup_window: must be greater than 0, got "-5s"',
    ]);
    expect(errors(yaml('catchup_window: abc', ...oneStep))).toEqual([
      expect.stringMatching(/^dags\/etl\.yaml:1:17: catchup_window: invalid duration "abc"/),
    ]);
    expect(errors(yaml('catchup_window: 0s', ...oneStep))).toEqual([
      'dags/etl.yaml:1:17: catchup_window: must be greater than 0, got "0s"',
    ]);
    expect(errors(yaml('catchup_window: 60', ...oneStep))).toEqual([
      'dags/etl.yaml:1:17: catchup_window: must be a duration like 6h or 2d, got a number 60',
    ]);
  });

  it('reports each bad schedule with its index and the bad cron field', () => {
    expect(
      errors(yaml('schedule:', '  - "0 * * * *"', '  - "61 * * * *"', '  - "* * *"', ...oneStep)),
    ).toEqual([
      'dags/etl.yaml:3:5: schedule[1]: invalid cron expression "61 * * * *": minute field: 61 is out of range 0-59',
      expect.stringMatching(
        /^dags\/etl\.yaml:4:5: schedule\[2\]: invalid cron expression "\* \* \*": expected 5/,
      ),
    ]);
    expect(errors(yaml('schedule: CRON_TZ=Nowhere/Land 0 0 * * *', ...oneStep))).toEqual([
      'dags/etl.yaml:1:11: schedule: invalid cron expression "CRON_TZ=Nowhere/Land 0 0 * * *": unknown time zone "Nowhere/Land"',
    ]);
  });

  it('reports a missing, empty or mistyped steps', () => {
    expect(errors(yaml('name: x'))).toEqual([
      'dags/etl.yaml:1:1: steps: steps is required: a non-empty list of steps',
    ]);
    expect(errors(yaml('name: x', 'steps: []'))).toEqual([
      'dags/etl.yaml:2:8: steps: must not be an empty list',
    ]);
    expect(errors(yaml('steps: 5'))).toEqual([
      'dags/etl.yaml:1:8: steps: steps must be a list, got a number 5',
    ]);
    expect(errors(yaml('steps:', '  - 5'))).toEqual([
      'dags/etl.yaml:2:5: steps[0]: a step must be a map, got a number 5',
    ]);
  });

  it('reports an empty file and a file that is not a map', () => {
    expect(errors('')).toEqual(['dags/etl.yaml:1:1: the file is empty: a DAG needs steps']);
    expect(errors('# only a comment\n')).toEqual(['dags/etl.yaml:1:1: the file is empty: a DAG needs steps']);
    expect(errors(yaml('- a', '- b'))).toEqual([
      'dags/etl.yaml:1:1: a DAG document must be a map, got a list',
    ]);
  });

  it('reads a later YAML document as a local sub-DAG, which needs its own name', () => {
    const dag = parse(yaml(...oneStep, '---', 'name: other', 'steps:', '  - run: echo x'));
    expect(Object.keys(dag.local_dags ?? {})).toEqual(['other']);
    expect(dag.local_dags?.other.steps[0].name).toBe('cmd_1');
    expect(errors(yaml(...oneStep, '---', 'steps:', '  - run: echo x'))).toEqual([
      'dags/etl.yaml:5:1: name: a local DAG (a later document of the file) needs a name',
    ]);
  });

  it('reports a step without a name, command, script or call', () => {
    expect(errors(yaml('steps:', '  - command: x', '  - name: b'))).toEqual([
      'dags/etl.yaml:3:5: steps[1]: a step needs run, an action or a call',
    ]);
  });

  it('reports bad step names and duplicate step names', () => {
    expect(
      errors(
        yaml(
          'steps:',
          '  - {name: a, command: x}',
          '  - {name: "b/c", command: x}',
          '  - {name: "", command: x}',
          '  - {name: a, command: x}',
        ),
      ),
    ).toEqual([
      'dags/etl.yaml:4:12: steps[2].name: must not be empty',
      'dags/etl.yaml:5:12: steps[3].name: step name "a" is already used by steps[0]',
    ]);
  });

  it('reports a call with a command, params without a call, and a selector on a command step', () => {
    expect(
      errors(
        yaml(
          'steps:',
          '  - name: a',
          '    command: x',
          '    run: y',
          '  - name: b',
          '    call: other',
          '    command: x',
          '  - name: c',
          '    command: x',
          '    params: A=1',
          '  - name: d',
          '    command: x',
          '    worker_selector: {zone: a}',
        ),
      ),
    ).toEqual([
      'dags/etl.yaml:3:14: steps[0].command: run cannot be used together with command',
      'dags/etl.yaml:7:14: steps[1].command: a sub-DAG step runs another DAG and has no command',
      'dags/etl.yaml:10:13: steps[2].params: params are only for sub-DAG steps (call, action: dag.run)',
      'dags/etl.yaml:13:22: steps[3].worker_selector: worker_selector on a step is only for sub-DAG steps (use the DAG-level key)',
    ]);
  });

  it('reports empty commands, a non-string list entry, a bad output name and a bad call name', () => {
    expect(
      errors(
        yaml(
          'steps:',
          '  - name: a',
          '    command: "  "',
          '  - name: b',
          '    command: []',
          '  - name: c',
          '    command: [ok, 5]',
          '    output: my-var',
          '  - name: d',
          '    call: ../up',
        ),
      ),
    ).toEqual([
      'dags/etl.yaml:3:14: steps[0].command: must not be empty',
      'dags/etl.yaml:5:14: steps[1].command: must hold at least one command',
      'dags/etl.yaml:8:13: steps[2].output: "my-var" is not a valid variable name',
      'dags/etl.yaml:10:11: steps[3].call: "../up" is not a valid DAG name or path',
    ]);
  });

  it('reports a dependency on a step that does not exist, at the dependency', () => {
    expect(
      errors(
        yaml(
          'steps:',
          '  - name: a',
          '    command: x',
          '  - name: b',
          '    command: x',
          '    depends:',
          '      - a',
          '      - x',
          '  - name: c',
          '    command: x',
          '    depends: y',
        ),
      ),
    ).toEqual([
      'dags/etl.yaml:8:9: steps[1].depends: step "x" does not exist',
      'dags/etl.yaml:11:14: steps[2].depends: step "y" does not exist',
    ]);
  });

  it('reports a dependency cycle with its steps, at the line of the first step in it', () => {
    expect(
      errors(
        yaml(
          'steps:',
          '  - name: start',
          '    command: x',
          '  - name: a',
          '    command: x',
          '    depends: [start, c]',
          '  - name: b',
          '    command: x',
          '    depends: a',
          '  - name: c',
          '    command: x',
          '    depends: b',
        ),
      ),
    ).toEqual([
      'dags/etl.yaml:4:5: steps[1].depends: dependency cycle: a depends on c, which depends on b, which depends on a',
    ]);
  });

  it('lets validate pass a dependency cycle with a warning, as Dagu finds it only at start', () => {
    const r = parseDag(
      yaml('steps:', '  - {name: a, run: x, depends: b}', '  - {name: b, run: x, depends: a}'),
      {
        file: FILE,
        defaultName: 'etl',
        strict: true,
      },
    );
    expect(r.ok && r.warnings).toEqual([
      'steps[0].depends: dependency cycle: a depends on b, which depends on a; the run fails when it starts',
    ]);
  });

  it('reports a step that depends on itself', () => {
    expect(errors(yaml('steps:', '  - {name: a, command: x, depends: a}'))).toEqual([
      'dags/etl.yaml:2:5: steps[0].depends: dependency cycle: a depends on itself',
    ]);
  });

  it('ignores depends on a handler, as Dagu does, and hints abort for the old cancel handler', () => {
    expect(
      errors(
        yaml(...oneStep, 'handler_on:', '  success: {command: x, depends: s}', '  cancel: {command: y}'),
      ),
    ).toEqual([
      'dags/etl.yaml:6:3: handler_on.cancel: key "cancel" was removed from Dagu\'s DAG language; the handler is now called abort',
    ]);
  });

  it('reports a handler named like a step', () => {
    expect(
      errors(yaml('steps:', '  - {name: onExit, command: x}', 'handler_on:', '  exit: {command: y}')),
    ).toEqual(['dags/etl.yaml:4:9: handler_on.exit: "onExit" is already the name of a step']);
  });

  it('reports unknown keys that a << merge brings in, at the line where they are written', () => {
    expect(
      errors(
        yaml(
          'steps:',
          '  - &base',
          '    name: a',
          '    command: x',
          '  - <<: [*base, {nme: b}]',
          '    name: b',
        ),
      ),
    ).toEqual(['dags/etl.yaml:5:18: steps[1].nme: unknown key "nme" (did you mean name?)']);
    expect(errors(yaml('steps:', '  - <<: 5', '    name: a', '    command: x'))).toEqual([
      'dags/etl.yaml:2:9: steps[0]: a << merge needs a map or a list of maps',
    ]);
  });

  it('follows aliases inside lists, such as a shared list of dependencies', () => {
    const dag = parse(
      yaml(
        'steps:',
        '  - {name: a, command: x}',
        '  - {name: b, command: x, depends: &deps [a]}',
        '  - {name: c, command: x, depends: *deps}',
      ),
    );
    expect(dag.steps[2].depends).toEqual(['a']);
  });

  it('reports bad env and param names, and env list entries without "="', () => {
    expect(
      errors(
        yaml('env:', '  - 1BAD=x', '  - NOEQUALS', '  - {bad-name: 1}', 'params: {"9x": 1}', ...oneStep),
      ),
    ).toEqual([
      'dags/etl.yaml:2:5: env[0]: "1BAD" is not a valid variable name (use letters, digits and _, not starting with a digit)',
      'dags/etl.yaml:3:5: env[1]: must be KEY=value, got "NOEQUALS"',
      'dags/etl.yaml:4:6: env[2].bad-name: "bad-name" is not a valid variable name (use letters, digits and _, not starting with a digit)',
      'dags/etl.yaml:5:10: params.9x: "9x" is not a valid parameter name (start with a letter; then letters, digits and _)',
    ]);
  });

  it('reads a lone quote in the params string as an ordinary character, as Dagu does', () => {
    expect(parse(yaml(`params: "a 'b"`, ...oneStep)).params).toEqual([
      { name: null, value: 'a' },
      { name: null, value: "'b" },
    ]);
  });

  it('reports a worker_selector that is not a map, or a label without a value', () => {
    expect(errors(yaml('worker_selector: remote', ...oneStep))).toEqual([
      'dags/etl.yaml:1:18: worker_selector: must be a map of labels or the string "local", got "remote"',
    ]);
    expect(errors(yaml('worker_selector:', '  zone:', ...oneStep))).toEqual([
      'dags/etl.yaml:2:3: worker_selector.zone: needs a value',
    ]);
  });

  it('reports an invalid DAG name and queue name', () => {
    expect(errors(yaml('name: ../etc', 'queue: a/b', ...oneStep))).toEqual([
      expect.stringMatching(/^dags\/etl\.yaml:1:7: name: invalid DAG name "\.\.\/etc": /),
      expect.stringMatching(/^dags\/etl\.yaml:2:8: queue: invalid queue name "a\/b": /),
    ]);
  });

  it('reports a file name that does not make a valid DAG name, without a line', () => {
    expect(errors(yaml(...oneStep), 'my dag')).toEqual([
      expect.stringMatching(
        /^dags\/etl\.yaml: name: the file name gives invalid DAG name "my dag": .*; set name in the file$/,
      ),
    ]);
    expect(parseDag(yaml('name: ok', ...oneStep), { file: FILE, defaultName: 'my dag' }).ok).toBe(true);
  });

  it('reports every error of a file at once, in file order', () => {
    const all = errors(
      yaml(
        'schedule: "99 * * * *"',
        'steps:',
        '  - name: a',
        '    command: x',
        '    timeout_sec: "10"',
        '  - name: b',
        '    command: y',
        '    depends: [ghost]',
        'overlapPolicy: skip',
      ),
    );
    expect(all.map((e) => e.split(': ')[0])).toEqual([
      'dags/etl.yaml:1:11',
      'dags/etl.yaml:5:18',
      'dags/etl.yaml:8:15',
      'dags/etl.yaml:9:1',
    ]);
  });
});

describe('formatDagError', () => {
  it('writes file:line:column: field: message', () => {
    expect(
      formatDagError({
        file: 'dags/etl.yaml',
        line: 12,
        column: 5,
        field: 'steps[1].depends',
        message: 'step "x" does not exist',
      }),
    ).toBe('dags/etl.yaml:12:5: steps[1].depends: step "x" does not exist');
  });

  it('leaves out what it does not know', () => {
    expect(formatDagError({ file: null, line: 3, column: null, field: '', message: 'bad' })).toBe(
      '<input>:3: bad',
    );
    expect(formatDagError({ file: 'a.yaml', line: null, column: null, field: 'name', message: 'bad' })).toBe(
      'a.yaml: name: bad',
    );
  });
});

describe('dagNameFromFile', () => {
  it('takes the file name without its .yaml or .yml extension', () => {
    expect(dagNameFromFile('etl.yaml')).toBe('etl');
    expect(dagNameFromFile('/srv/dagu/dags/nightly.report.yml')).toBe('nightly.report');
    expect(dagNameFromFile('dags/plain')).toBe('plain');
  });
});

describe('a DAG read from a copy of the file it was written in', () => {
  const text =
    'working_dir: out\nsteps:\n  - run: echo x\n---\nname: child\nworking_dir: ../side\nsteps:\n  - run: x\n';

  it('takes a relative working_dir from the source file and keeps it in source_file', () => {
    const r = parseDag(text, {
      file: '/tmp/copy-1/etl.yaml',
      defaultName: 'etl',
      sourceFile: '/srv/dags/etl.yaml',
    });
    if (!r.ok) throw new Error('expected the DAG to parse');
    expect(r.dag).toMatchObject({
      file: '/tmp/copy-1/etl.yaml',
      source_file: '/srv/dags/etl.yaml',
      working_dir: '/srv/dags/out',
    });
    expect(r.dag.local_dags?.child).toMatchObject({
      working_dir: '/srv/side',
      source_file: '/srv/dags/etl.yaml',
    });
  });

  it('without one, the file read is the source and no source_file is set', () => {
    const r = parseDag(text, { file: '/srv/dags/etl.yaml', defaultName: 'etl' });
    if (!r.ok) throw new Error('expected the DAG to parse');
    expect(r.dag.working_dir).toBe('/srv/dags/out');
    expect('source_file' in r.dag).toBe(false);
  });
});

describe('router steps', () => {
  it('turns each route into preconditions, a dependency and continue_on.skipped of its targets', () => {
    const dag = parse(
      yaml(
        'steps:',
        '  - name: route',
        '    action: router.route',
        '    with: {value: "${MODE}", routes: {"re:.*": [c], b: [b], a: [a]}}',
        '  - {name: a, run: echo a}',
        '  - {name: b, run: echo b, depends: [route], continue_on: {failure: true}}',
        '  - {name: c, run: echo c, preconditions: [{condition: "1", expected: "1"}]}',
      ),
    );
    const [route, a, b, c] = dag.steps;
    expect(route.action).toEqual({
      kind: 'router',
      value: '${MODE}',
      routes: [
        { pattern: 'a', targets: ['a'] },
        { pattern: 'b', targets: ['b'] },
        { pattern: 're:.*', targets: ['c'] },
      ],
    });
    expect(route.continue_on.skipped).toBe(true);
    expect(a.depends).toEqual(['route']);
    expect(a.preconditions).toEqual([{ condition: '${MODE}', eval: null, expected: 'a', negate: false }]);
    expect(a.continue_on.skipped).toBe(true);
    // A dependency written already is not added twice; the step's own continue_on stays.
    expect(b.depends).toEqual(['route']);
    expect(b.continue_on).toMatchObject({ failure: true, skipped: true });
    // The route's precondition comes after the step's own.
    expect(c.preconditions?.map((p) => p.expected)).toEqual(['1', 're:.*']);
  });

  it('reports a bad router with a clear error and nothing run', () => {
    const step = (w: string) =>
      errors(yaml('steps:', '  - name: r', '    action: router.route', `    with: ${w}`));
    expect(step('{value: x, routes: [a]}')).toEqual([
      'dags/etl.yaml:4:30: steps[0].with.routes: routes must be a map, got a list',
    ]);
    expect(step('{value: x, routes: {x: a}}')).toEqual([
      'dags/etl.yaml:4:34: steps[0].with.routes.x: route pattern "x" needs a list of step names',
    ]);
    expect(step('{value: x, routes: {x: []}}')).toEqual([
      'dags/etl.yaml:4:34: steps[0].with.routes.x: route pattern "x" has no targets',
    ]);
    expect(step('{value: x, routes: {}}')).toEqual([
      'dags/etl.yaml:4:30: steps[0].with.routes: router step requires at least one route',
    ]);
    expect(step('{value: x, routes: {x: [a]}, target: y}')).toContain(
      'dags/etl.yaml:4:40: steps[0].with.target: unknown key "target" (allowed: value, routes)',
    );
    expect(errors(yaml('steps:', '  - name: r', '    action: router.route'))).toEqual([
      'dags/etl.yaml:3:13: steps[0].action: router.route needs with.value and with.routes',
    ]);
  });
});

describe('outputs.write steps', () => {
  it('keeps the values to publish, and reports bad values with a clear error', () => {
    const dag = parse(
      yaml('steps:', '  - id: p', '    action: outputs.write', '    with: {values: {a: "${X}", n: 2}}'),
    );
    expect(dag.steps[0].action).toEqual({ kind: 'outputs', with: { values: { a: '${X}', n: 2 } } });
    expect(dag.steps[0].name).toBe('p');
    const bad = (w: string) =>
      errors(yaml('steps:', '  - id: p', '    action: outputs.write', `    with: ${w}`));
    expect(bad('{values: [a]}')[0]).toMatch(/values must be a map, got a list/);
    expect(bad('{values: {}}')[0]).toMatch(/values must not be empty/);
    expect(bad('{values: {" ": a}}')[0]).toMatch(/values contains an empty key/);
    expect(bad('{}')[0]).toMatch(/outputs.write needs with.values/);
    expect(errors(yaml('steps:', '  - id: p', '    action: outputs.write'))[0]).toMatch(
      /outputs.write needs with.values/,
    );
    expect(
      errors(
        yaml(
          'steps:',
          '  - id: p',
          '    action: outputs.write',
          '    with: {values: {a: b}}',
          '    command: x',
        ),
      )[0],
    ).toMatch(/does not take a command/);
  });
});
