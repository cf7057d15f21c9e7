import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { snakeCase } from './dagu1';
import { migrateDagText } from './migrate';
import { repeatCondition } from './outcome';
import { parseDag } from './parseDag';

const read = (text: string, strict = false) => {
  const r = parseDag(text, { file: '/dags/old.yaml', defaultName: 'old', strict });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r;
};

describe('snakeCase', () => {
  it.each([
    ['handlerOn', 'handler_on'],
    ['maxCleanUpTimeSec', 'max_clean_up_time_sec'],
    ['skipTLSVerify', 'skip_tls_verify'],
    ['baseURL', 'base_url'],
    ['disableRunIdEdit', 'disable_run_id_edit'],
  ])('%s -> %s', (from, to) => expect(snakeCase(from)).toBe(to));
});

describe('reading a Dagu 1.x file', () => {
  it('renames root camelCase keys and gives one warning naming each spelling', () => {
    const r = read(`
histRetentionDays: 3
maxActiveRuns: 1
maxActiveSteps: 4
timeoutSec: 60
delaySec: 1
maxCleanUpTimeSec: 9
restartWaitSec: 5
skipIfSuccessful: true
logDir: /tmp/logs
mailOn: {failure: true}
errorMail: {from: a@b.c, to: d@e.f, attachLogs: true}
steps:
  - command: echo hi
`);
    const d = r.dag;
    expect([d.hist_retention_days, d.max_active_runs, d.max_active_steps, d.timeout_sec]).toEqual([
      3, 1, 4, 60,
    ]);
    expect([d.delay_sec, d.max_clean_up_time_sec, d.restart_wait_sec, d.skip_if_successful]).toEqual([
      1,
      9,
      5,
      true,
    ]);
    expect(d.log_dir).toBe('/tmp/logs');
    expect(d.mail_on?.failure).toBe(true);
    expect(d.error_mail?.attach_logs).toBe(true);
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toMatch(
      /^Dagu 1\.x spelling read with 1\.x meaning: histRetentionDays -> hist_retention_days, maxActiveRuns -> max_active_runs/,
    );
    expect(r.warnings[0]).toContain('attachLogs -> attach_logs');
    expect(r.warnings[0]).toMatch(/run "dagu migrate \/dags\/old\.yaml" to rewrite it$/);
  });

  it('reads step keys, dir, executor, precondition, run and policies with their 1.x meaning', () => {
    const r = read(`
handlerOn:
  cancel: {command: echo c}
steps:
  - name: a
    dir: /tmp
    command: echo a
    continueOn: {failure: true, exitCode: [3], markSuccess: true}
    retryPolicy: {limit: 2, intervalSec: 1, exitCode: [1]}
    repeatPolicy: {repeat: while, intervalSec: 1, limit: 2, exitCode: [0]}
    signalOnStop: SIGINT
    timeoutSec: 7
    mailOnError: true
  - name: h
    executor: {type: http, config: {skipTLSVerify: true, silent: true}}
    command: GET https://example.com
  - name: j
    executor: jq
    command: .a
    script: '{"a": 1}'
  - name: s
    run: child
    params: "X=1"
    precondition:
      - condition: "\`echo yes\`"
        expected: "yes"
      - command: "test -d /"
`);
    const [a, h, j, s] = r.dag.steps;
    expect(a.dir).toBe('/tmp');
    expect(a.continue_on).toMatchObject({ failure: true, exit_code: [3], mark_success: true });
    expect(a.retry_policy).toMatchObject({ limit: 2, interval_sec: 1 });
    expect(a.retry_exit_codes).toEqual([1]);
    expect(a.repeat_policy).toBeTruthy();
    expect([a.signal_on_stop, a.timeout_sec, a.mail_on_error]).toEqual(['SIGINT', 7, true]);
    expect(h.action).toMatchObject({
      kind: 'http',
      with: { skip_tls_verify: true, silent: true, method: 'GET' },
    });
    expect(j.action).toMatchObject({ kind: 'jq', with: { filter: '.a' } });
    expect(s.call).toBe('child');
    // The backtick condition is a command check that runs `echo yes` and compares its output with "yes".
    expect(s.preconditions).toEqual([
      {
        condition: expect.stringMatching(/^_dagu_out1=\$\(echo yes\) \|\| exit 1\n/),
        eval: null,
        expected: null,
        negate: false,
      },
      { condition: 'test -d /', eval: null, expected: null, negate: false },
    ]);
    expect(s.preconditions?.[0]?.condition).toMatch(/grep -qxF -e 'yes'$/);
    expect(r.dag.handler_on.abort?.command).toEqual(['echo c']);
    expect(r.warnings[0]).toContain('cancel -> abort');
    expect(r.warnings[0]).toContain('executor -> type + with');
    expect(r.warnings[0]).toContain('run -> call');
  });

  it('applies both precondition and preconditions, as 1.x does, the old key first', () => {
    const r = read(`
precondition: test -d /
preconditions:
  - condition: "$HOME"
    expected: "re:^/"
steps:
  - command: echo a
    preconditions: [test -e /]
    precondition: {condition: "1", expected: "1"}
`);
    expect((r.dag.preconditions ?? []).map((c) => c.condition)).toEqual(['test -d /', '$HOME']);
    expect((r.dag.steps[0].preconditions ?? []).map((c) => c.condition)).toEqual(['1', 'test -e /']);
    expect(r.warnings[0]).toContain('precondition -> preconditions');
  });

  it('orders steps as a chain when no step has depends, and runs them in the file directory', () => {
    const r = read(
      'workingDir: ""\nsteps:\n  - command: echo a\n  - command: echo b\n'.replace(
        'workingDir: ""\n',
        'maxActiveRuns: 1\n',
      ),
    );
    expect(r.dag.type).toBe('chain');
    expect(r.dag.steps.map((s) => s.depends)).toEqual([[], ['cmd_1']]);
    expect(r.dag.working_dir).toBe('/dags');
    expect(r.warnings[0]).toContain('type: chain (1.x default)');
  });

  it('adds the step before to each depends, as a 1.x chain does; depends: [] alone removes it', () => {
    const r = read(`
maxActiveRuns: 1
steps:
  - name: a
    command: echo a
  - name: b
    command: echo b
  - name: c
    depends: [a]
    command: echo c
  - name: d
    depends: []
    command: echo d
  - command: echo e
`);
    expect(r.dag.type).toBe('graph');
    expect(Object.fromEntries(r.dag.steps.map((s) => [s.name, s.depends]))).toEqual({
      a: [],
      b: ['a'],
      c: ['a', 'b'],
      d: [],
      cmd_5: ['d'],
    });
  });

  it('marks backtick env values to be run, and turns backtick params into eval', () => {
    const r = read(`
maxActiveRuns: 1
env:
  - NOW: "\`date\`"
  - PLAIN: x
params:
  - P: "\`echo p\`"
  - Q: plain
steps:
  - command: echo hi
    env:
      - S: "a-\`echo s\`"
`);
    expect(r.dag.env_eval).toEqual(['NOW']);
    expect(r.dag.steps[0].env_eval).toEqual(['S']);
    expect(r.dag.params[0]).toMatchObject({ name: 'P', rich: { eval: '`echo p`', unbounded: true } });
    expect(r.dag.params[1]).toEqual({ name: 'Q', value: 'plain' });
  });

  it('runs backtick conditions as 1.x does: repeat conditions too, and with no time limit', () => {
    const r = read(`
maxActiveRuns: 1
steps:
  - command: echo hi
    preconditions:
      - condition: "\`cat flag\`"
        expected: "on"
    repeatPolicy:
      condition: "\`wc -l < runs.txt\`"
      expected: "3"
`);
    const step = r.dag.steps[0];
    // A precondition: a command check (no time limit; a failing command is not met, negated or not).
    expect(step.preconditions?.[0]).toMatchObject({ eval: null, expected: null, negate: false });
    expect(step.preconditions?.[0]?.condition).toMatch(/^_dagu_out1=\$\(cat flag\) \|\| exit 1\n/);
    const negated = read(
      'maxActiveRuns: 1\nsteps:\n  - command: echo\n    preconditions:\n      - condition: "`cat f`"\n        expected: "on"\n        negate: true\n',
    ).dag.steps[0].preconditions?.[0];
    expect(negated).toMatchObject({ negate: true, expected: null });
    expect(negated?.condition).toMatch(/^_dagu_out1=\$\(cat f\) \|\| exit 0\n/);
    // A shell that is not POSIX cannot run the check: an eval, without 2.x's time limit.
    const python = read(
      'maxActiveRuns: 1\nshell: python3\nsteps:\n  - command: print(1)\n    preconditions:\n      - condition: "`cat f`"\n        expected: "on"\n',
    ).dag.steps[0].preconditions?.[0];
    expect(python).toEqual({
      condition: null,
      eval: '`cat f`',
      expected: 'on',
      negate: false,
      unbounded: true,
    });
    // A repeat condition: an eval without a time limit whose output is compared.
    expect(step.repeat_policy).toMatchObject({ condition: '`wc -l < runs.txt`', condition_eval: true });
    expect(repeatCondition(step.repeat_policy!)).toMatchObject({
      eval: '`wc -l < runs.txt`',
      unbounded: true,
    });
    // The same keys in a 2.x file: the eval keeps 2.x's limit, the repeat condition is compared as text.
    const v2 = read(`
steps:
  - command: echo hi
    preconditions:
      - eval: "\`cat flag\`"
        expected: "on"
    repeat_policy:
      condition: "\`wc -l < runs.txt\`"
      expected: "3"
`);
    expect(v2.dag.steps[0].preconditions?.[0]?.unbounded).toBeUndefined();
    expect(repeatCondition(v2.dag.steps[0].repeat_policy!)).toMatchObject({
      condition: '`wc -l < runs.txt`',
      eval: null,
    });
  });

  it('keeps reading a 2.x file as 2.x, and validate names where 1.x would differ', () => {
    const text = `
env:
  - NOW: "\`date\`"
steps:
  - run: echo a
  - run: echo b
    depends: [cmd_1]
  - run: echo c
`;
    const r = read(text, true);
    expect(r.dag.type).toBe('graph');
    expect(r.dag.env_eval).toBeUndefined();
    expect(r.warnings.some((w) => w.startsWith('Dagu 1.x'))).toBe(false);
    expect(r.warnings).toContainEqual(expect.stringMatching(/^type: steps without depends start at once/));
    expect(r.warnings).toContainEqual(expect.stringMatching(/^env\.NOW: backticks are kept as text/));
    // Outside validate, no such warnings.
    expect(read(text).warnings).toEqual([]);
  });

  it('reports errors in a 1.x file at the places of the file', () => {
    const r = parseDag('maxActiveRuns: 1\nsteps:\n  - command: echo\n    timeoutSec: nope\n', {
      file: 'x.yaml',
      defaultName: 'x',
    });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]).toMatchObject({ line: 4, field: 'steps[0].timeout_sec' });
  });
});

describe('migrating a Dagu 1.x file', () => {
  it('rewrites keys in place, keeping comments and order, and the result loads with no 1.x warning', () => {
    const text = `# nightly
name: nightly # the name
handlerOn:
  failure:
    command: echo failed
env:
  - DAY: "\`date +%F\`"
  - OUT: /tmp/\${DAY}
steps:
  # first
  - name: a
    command: echo a
    continueOn:
      failure: true
  - name: b
    command: echo b
`;
    const m = migrateDagText(text);
    expect(m.kind).toBe('migrated');
    if (m.kind !== 'migrated') return;
    expect(m.text).toBe(`# nightly
name: nightly # the name
handler_on:
  failure:
    command: echo failed
params:
  - name: DAY
    eval: "\`date +%F\`"
env:
  - OUT: /tmp/\${DAY}
type: chain
working_dir: .
steps:
  # first
  - name: a
    command: echo a
    continue_on:
      failure: true
  - name: b
    command: echo b
`);
    const again = read(m.text);
    expect(again.warnings.filter((w) => w.startsWith('Dagu 1.x'))).toEqual([]);
    expect(migrateDagText(m.text).kind).toBe('already');
  });

  it('says a 2.x file is already 2.x, naming where 1.x would read it otherwise', () => {
    expect(migrateDagText('steps:\n  - run: echo a\n')).toEqual({ kind: 'already', differences: [] });
    // Steps without depends: 2.x starts them together, 1.x ran them one after another.
    const parallel = migrateDagText('steps:\n  - echo a\n  - command: echo b\n');
    expect(parallel).toMatchObject({
      kind: 'already',
      differences: [expect.stringMatching(/^type: steps without depends start at once/)],
    });
    // Every step after the first naming its dependencies means the same in both.
    const explicit = 'steps:\n  - name: a\n    run: echo a\n  - name: b\n    run: echo b\n    depends: [a]\n';
    expect(migrateDagText(explicit)).toEqual({ kind: 'already', differences: [] });
    expect(migrateDagText(`type: graph\n${'steps:\n  - echo a\n  - echo b\n'}`)).toEqual({
      kind: 'already',
      differences: [],
    });
  });

  it('refuses what 2.x cannot say with the same meaning', () => {
    const stepEnv = migrateDagText(
      'maxActiveRuns: 1\nsteps:\n  - command: echo\n    env:\n      - X: "`date`"\n',
    );
    expect(stepEnv).toMatchObject({ kind: 'refused' });
    if (stepEnv.kind === 'refused')
      expect(stepEnv.reasons[0]).toMatch(/steps\[0\]\.env\.X runs a command in backticks/);
    const envRef = migrateDagText(
      'maxActiveRuns: 1\nenv:\n  - A: x\n  - B: "`echo $A`"\nsteps:\n  - command: echo\n',
    );
    expect(envRef).toMatchObject({
      kind: 'refused',
      reasons: [expect.stringMatching(/env\.B .*uses env A/)],
    });
    const paren = migrateDagText('maxActiveRuns: 1\nenv:\n  - B: "`echo` $(x)"\nsteps:\n  - command: echo\n');
    expect(paren).toMatchObject({ kind: 'refused', reasons: [expect.stringMatching(/\$\( \)/)] });
  });

  it('turns a backtick repeat condition into a command check, with the mode 1.x inferred', () => {
    const m = migrateDagText(`maxActiveRuns: 1
steps:
  - command: echo hi
    repeatPolicy:
      condition: "\`wc -l < runs.txt\`"
      expected: 3
      intervalSec: 1
`);
    expect(m.kind).toBe('migrated');
    if (m.kind !== 'migrated') return;
    expect(m.text).toContain('# Dagu 1.x ran the backticks of "`wc -l < runs.txt`" and compared with "3"');
    const step = read(m.text).dag.steps[0];
    expect(step.repeat_policy).toMatchObject({ mode: 'until', expected: null, interval_sec: 1 });
    expect(step.repeat_policy?.condition).toMatch(/^_dagu_out1=\$\(wc -l < runs\.txt\) \|\| exit 1\n/);
    expect(step.repeat_policy?.condition_eval).toBeUndefined();
    // A while loop keeps its mode.
    const kept = migrateDagText(
      'maxActiveRuns: 1\nsteps:\n  - command: echo\n    repeatPolicy:\n      repeat: while\n      condition: "`cat f`"\n      expected: go\n',
    );
    expect(kept.kind === 'migrated' && read(kept.text).dag.steps[0].repeat_policy?.mode).toBe('while');
  });

  it('refuses a backtick repeat condition it cannot write as a command check', () => {
    const python = migrateDagText(
      'maxActiveRuns: 1\nshell: python3\nsteps:\n  - command: print(1)\n    repeatPolicy:\n      condition: "`cat f`"\n      expected: go\n',
    );
    expect(python).toMatchObject({
      kind: 'refused',
      reasons: [expect.stringMatching(/steps\[0\]\.repeat_policy\.condition .*the shell python3/)],
    });
    const digits = migrateDagText(
      'maxActiveRuns: 1\nsteps:\n  - command: echo\n    repeatPolicy:\n      condition: "`cat f`"\n      expected: "re:\\\\d"\n',
    );
    expect(digits).toMatchObject({ kind: 'refused', reasons: [expect.stringMatching(/grep -E/)] });
  });

  it('leaves a file with a YAML error alone', () => {
    expect(migrateDagText('steps: [\n').kind).toBe('refused');
  });

  it('keeps multi-document files as several documents', () => {
    const m = migrateDagText(
      'maxActiveRuns: 1\nsteps:\n  - run: child\n---\nname: child\nsteps:\n  - command: echo c\n',
    );
    expect(m.kind).toBe('migrated');
    if (m.kind === 'migrated') expect(parseAllDocuments(m.text)).toHaveLength(2);
  });
});
