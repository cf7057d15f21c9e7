// Hostile and broken DAG files, through the real `bin/dagu`: `dagu validate` prints every error exactly, `dagu
// start` refuses with the first one and exit 2, and neither leaves anything behind in DAGU_HOME.

import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dagu, tempHome, type TempHome } from '../integration/harness';
import { snapshotTree } from './dataDirSnapshot';

const STEP = 'steps:\n  - name: s\n    command: echo\n';
const NAME_RULE = 'use 1 to 64 letters, digits, "_", "-" or "." (not leading, no "..")';
const ROOT_KEYS =
  'name, group, description, type, labels, tags, params, consts, env, dotenv, secrets, shell, shell_args, ' +
  'working_dir, steps, defaults, handler_on, step_types, actions, preconditions, timeout_sec, delay_sec, ' +
  'restart_wait_sec, max_clean_up_time_sec, schedule, skip_if_successful, catchup_window, overlap_policy, queue, max_active_runs, max_active_steps, ' +
  'worker_selector, retry_policy, log_dir, log_output, artifacts, hist_retention_days, hist_retention_runs, ' +
  'max_output_size, smtp, mail_on, error_mail, info_mail, wait_mail, run_config, signal_handling';
/** What `dagu validate` adds for a file whose first document sets `name` (Dagu's validate rule). */
const ENTRYPOINT_NAME =
  ':1:1: name: the entrypoint document (the first of the file) must not define name: its name is the file ' +
  'name (dagu validate follows Dagu here; dagu start accepts it)';

/** Ten levels of aliases, each ten times the one before: 10^10 strings if anything expanded them. */
function aliasBomb(): string {
  const lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < 10; i++)
    lines.push(
      `a${i}: &a${i} [${Array(10)
        .fill(`*a${i - 1}`)
        .join(',')}]`,
    );
  return `${lines.join('\n')}\n`;
}

const hugeFile = `description: "${'x'.repeat(1_100_000)}"\n${STEP}`;
const longStem = 'd'.repeat(70);

interface DagCase {
  what: string;
  /** File name without `.yaml`. */
  file: string;
  yaml: string;
  /** Each line `dagu validate` prints, after the file's path (`:line:column: field: message`). */
  errors: Array<string | RegExp>;
  /** Lines only `dagu validate` prints, before `errors` (its stricter document rules). */
  validateOnly?: string[];
}

const CASES: DagCase[] = [
  {
    what: 'an unclosed flow list (malformed YAML)',
    file: 'unclosed',
    yaml: 'steps: [\n',
    errors: [
      ':2:1: invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]',
    ],
  },
  {
    what: 'tabs used for indentation (malformed YAML)',
    file: 'tabs',
    yaml: 'steps:\n\t- name: a\n',
    errors: [':2:1: invalid YAML: Tabs are not allowed as indentation'],
  },
  {
    what: 'a second YAML document (a local DAG) without a name',
    file: 'two-docs',
    yaml: `${STEP}---\n${STEP}`,
    errors: [':5:1: name: a local DAG (a later document of the file) needs a name'],
  },
  {
    what: 'a key written twice',
    file: 'dup-key',
    yaml: `${STEP}${STEP}`,
    errors: [':4:1: steps: key "steps" is already defined at line 1'],
  },
  {
    what: 'an empty file',
    file: 'empty',
    yaml: '',
    errors: [':1:1: the file is empty: a DAG needs steps'],
  },
  {
    what: 'binary junk instead of YAML',
    file: 'binary',
    yaml: '\u00ff\u00fe\u0000bad',
    errors: [':1:1: a DAG document must be a map, got a string "ÿþ\\u0000bad"'],
  },
  {
    what: 'a list where the DAG map belongs (wrong type)',
    file: 'top-list',
    yaml: '- a\n- b\n',
    errors: [':1:1: a DAG document must be a map, got a list'],
  },
  {
    what: 'steps given as a number (wrong type)',
    file: 'steps-number',
    yaml: 'steps: 5\n',
    errors: [':1:8: steps: steps must be a list, got a number 5'],
  },
  {
    what: 'a command given as a map (wrong type)',
    file: 'command-map',
    yaml: 'steps:\n  - name: a\n    command: {a: 5}\n',
    errors: [':3:14: steps[0].command: must be a string or a list, got a map'],
  },
  {
    what: 'max_active_runs given as text and a negative timeout_sec (wrong types, two errors)',
    file: 'bad-numbers',
    yaml: `max_active_runs: many\ntimeout_sec: -3\n${STEP}`,
    errors: [
      ':1:18: max_active_runs: must be an integer, got a string "many"',
      ':2:14: timeout_sec: must be at least 0, got -3',
    ],
  },
  {
    what: 'a step that is a number, not a map or a command',
    file: 'step-number',
    yaml: 'steps:\n  - {name: s, command: echo}\n  - 5\n',
    errors: [':3:5: steps[1]: a step must be a map, got a number 5'],
  },
  {
    what: 'an unknown root key close to a known one',
    file: 'typo-key',
    yaml: `${STEP}schedul: "* * * * *"\n`,
    errors: [':4:1: schedul: unknown key "schedul" (did you mean schedule?)'],
  },
  {
    // A camelCase key Dagu 1.x never had either (1.x's own, like workingDir, are read with 1.x's meaning).
    what: 'a camelCase step key from another tool',
    file: 'camel-key',
    yaml: `${STEP}    shellArgs: [-e]\n`,
    errors: [':4:5: steps[0].shellArgs: unknown key "shellArgs": Dagu keys are snake_case; use shell_args'],
  },
  {
    what: 'an invalid overlap policy',
    file: 'overlap',
    yaml: `overlap_policy: sometimes\n${STEP}`,
    errors: [':1:17: overlap_policy: must be skip, all or latest, got "sometimes"'],
  },
  {
    what: 'a negative catch-up window',
    file: 'catchup',
    yaml: `catchup_window: -1h\n${STEP}`,
    errors: [':1:17: catchup_window: must be greater than 0, got "-1h"'],
  },
  {
    what: 'a cron minute out of range',
    file: 'cron-range',
    yaml: `schedule: "61 * * * *"\n${STEP}`,
    errors: [':1:11: schedule: invalid cron expression "61 * * * *": minute field: 61 is out of range 0-59'],
  },
  {
    what: 'a cron expression with four fields',
    file: 'cron-fields',
    yaml: `schedule: "* * * *"\n${STEP}`,
    errors: [
      ':1:11: schedule: invalid cron expression "* * * *": expected 5 fields (minute hour day-of-month ' +
        'month day-of-week) or 6 with a leading seconds field, got 4',
    ],
  },
  {
    what: 'a cron expression that never fires (31 February)',
    file: 'cron-never',
    yaml: `schedule: "0 0 31 2 *"\n${STEP}`,
    errors: [
      ':1:11: schedule: invalid cron expression "0 0 31 2 *": the schedule never fires ' +
        '(that day does not exist in those months)',
    ],
  },
  {
    what: 'a number in a list of schedules',
    file: 'cron-number',
    yaml: `schedule:\n  - "* * * * *"\n  - 5\n${STEP}`,
    errors: [':3:5: schedule[1]: must be a cron expression, got a number 5'],
  },
  {
    what: 'a dependency on a step that does not exist',
    file: 'missing-dep',
    yaml: 'steps:\n  - name: a\n    command: echo\n    depends: [zz]\n',
    errors: [':4:15: steps[0].depends: step "zz" does not exist'],
  },
  {
    what: 'two steps with one name',
    file: 'dup-step',
    yaml: 'steps:\n  - name: a\n    command: echo\n  - name: a\n    command: echo\n',
    errors: [':4:11: steps[1].name: step name "a" is already used by steps[0]'],
  },
  {
    what: 'a DAG name with "/"',
    file: 'slash-name',
    validateOnly: [ENTRYPOINT_NAME],
    yaml: `name: a/b\n${STEP}`,
    errors: [`:1:7: name: invalid DAG name "a/b": ${NAME_RULE}`],
  },
  {
    what: 'a DAG name ".."',
    file: 'dotdot-name',
    validateOnly: [ENTRYPOINT_NAME],
    yaml: `name: ..\n${STEP}`,
    errors: [`:1:7: name: invalid DAG name "..": ${NAME_RULE}`],
  },
  {
    what: 'a DAG name with a NUL character',
    file: 'nul-name',
    validateOnly: [ENTRYPOINT_NAME],
    yaml: `name: "a\\0b"\n${STEP}`,
    errors: [':1:7: name: must not contain a NUL character, got a string "a\\u0000b"'],
  },
  {
    what: 'a command with a NUL character, which no process can be given',
    file: 'nul-command',
    yaml: 'steps:\n  - name: a\n    command: "echo a\\0b"\n',
    errors: [':3:14: steps[0].command: must not contain a NUL character, got a string "echo a\\u0000b"'],
  },
  {
    what: 'an environment value with a NUL character',
    file: 'nul-env',
    yaml: `env:\n  - A: "x\\0y"\n${STEP}`,
    errors: [':2:8: env[0].A: must not contain a NUL character, got a string "x\\u0000y"'],
  },
  {
    what: 'a DAG name of 65 characters',
    file: 'long-name',
    validateOnly: [ENTRYPOINT_NAME],
    yaml: `name: ${'x'.repeat(65)}\n${STEP}`,
    errors: [`:1:7: name: invalid DAG name "${'x'.repeat(65)}": ${NAME_RULE}`],
  },
  {
    what: 'a file name of 70 characters and no name key',
    file: longStem,
    yaml: STEP,
    errors: [
      `: name: the file name gives invalid DAG name "${longStem}": ${NAME_RULE}; set name in the file`,
    ],
  },
  {
    what: 'a queue name that climbs out of the queue directory',
    file: 'queue-escape',
    yaml: `queue: ../q\n${STEP}`,
    errors: [`:1:8: queue: invalid queue name "../q": ${NAME_RULE.replace('DAG', 'queue')}`],
  },
  {
    what: 'a step name with a control character',
    file: 'control-step',
    yaml: 'steps:\n  - name: "a\\tb"\n    command: echo\n',
    errors: [':2:11: steps[0].name: a step name must not contain control characters'],
  },
  {
    what: 'a file over 1 MiB (huge file)',
    file: 'huge',
    yaml: hugeFile,
    errors: [`: the file has ${Buffer.byteLength(hugeFile)} bytes; a DAG file has at most 1048576 bytes`],
  },
  {
    what: 'lists nested 5,000 deep',
    file: 'deep',
    yaml: `${STEP}    env: ${'['.repeat(5_000)}${']'.repeat(5_000)}\n`,
    errors: [/^:4:\d+: invalid YAML: the document is nested too deeply$/],
  },
  {
    what: 'an alias bomb ("billion laughs"), which is never expanded',
    file: 'alias-bomb',
    yaml: `${aliasBomb()}${STEP}    env:\n      - X: *a9\n`,
    errors: [
      ...Array.from(
        { length: 10 },
        (_, i) => `:${i + 1}:1: a${i}: unknown key "a${i}" (allowed: ${ROOT_KEYS})`,
      ),
      // Located where the alias's target is defined: the alias itself is never followed further.
      ':10:9: steps[0].env[0].X: must be a string, number or boolean, got a list',
    ],
  },
];

let home: TempHome;

beforeAll(async () => {
  home = tempHome();
  home.writeDag('good', 'steps:\n  - name: hello\n    command: echo hello\n');
  const run = await dagu(['start', '--quiet', '--run-id', 'good-run', 'good'], home.env);
  expect(run.code, run.stderr).toBe(0);
});
afterAll(() => home.cleanup());

function expectLines(actual: string, expected: Array<string | RegExp>, prefix: string) {
  const lines = actual.split('\n');
  expect(lines.pop()).toBe(''); // ends with a newline
  expect(lines).toHaveLength(expected.length);
  expected.forEach((e, i) => {
    if (typeof e === 'string') expect(lines[i]).toBe(`${prefix}${e}`);
    else {
      expect(lines[i].startsWith(prefix)).toBe(true);
      expect(lines[i].slice(prefix.length)).toMatch(e);
    }
  });
}

describe('a hostile or broken DAG file', () => {
  it('leaves a valid DAG and its run to compare against', async () => {
    const r = await dagu(['status', 'good-run'], home.env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/good-run/);
  });

  it.each(CASES)('$what: validate names every error, start refuses, nothing is written', async (c) => {
    const file = path.join(home.dags, `${c.file}.yaml`);
    const before = snapshotTree(home.home);
    writeFileSync(file, c.yaml);
    const written = snapshotTree(home.home);
    try {
      // Both only read: run side by side to keep the suite short.
      const [validate, start] = await Promise.all([
        dagu(['validate', file], home.env),
        dagu(['start', file], home.env),
      ]);
      expect(validate.code).toBe(2);
      expect(validate.stdout).toBe('');
      expectLines(validate.stderr, [...(c.validateOnly ?? []), ...c.errors], file);

      expect(start.code).toBe(2);
      const more = c.errors.length > 1 ? ` (and ${c.errors.length - 1} more; see dagu validate)` : '';
      const first = c.errors[0];
      expectLines(
        start.stderr,
        [typeof first === 'string' ? `${first}${more}` : new RegExp(first.source.replace(/\$$/, `${more}$`))],
        `dagu: ${file}`,
      );

      // Nothing else was touched: no run record, no log directory, the good DAG and its run as they were.
      expect(snapshotTree(home.home)).toEqual(written);
      expect(Object.keys(written).filter((k) => !(k in before))).toEqual([`dags/${c.file}.yaml`]);
    } finally {
      rmSync(file, { force: true });
    }
  });

  it.each([
    {
      what: 'a dependency cycle through three steps',
      file: 'cycle',
      yaml: 'steps:\n  - {name: a, run: echo, depends: c}\n  - {name: b, run: echo, depends: a}\n  - {name: c, run: echo, depends: b}\n',
      at: ':2:5: ',
      cycle: 'steps[0].depends: dependency cycle: a depends on c, which depends on b, which depends on a',
    },
    {
      what: 'a step that depends on itself',
      file: 'self-cycle',
      yaml: 'steps:\n  - name: a\n    run: echo\n    depends: a\n',
      at: ':2:5: ',
      cycle: 'steps[0].depends: dependency cycle: a depends on itself',
    },
  ])('$what: validate passes it with a warning (as Dagu), start refuses, nothing is written', async (c) => {
    const file = path.join(home.dags, `${c.file}.yaml`);
    writeFileSync(file, c.yaml);
    const written = snapshotTree(home.home);
    try {
      const [validate, start] = await Promise.all([
        dagu(['validate', file], home.env),
        dagu(['start', file], home.env),
      ]);
      expect(validate.code, validate.stderr).toBe(0);
      expect(validate.stderr).toBe(`${file}: warning: ${c.cycle}; the run fails when it starts\n`);
      expect(start.code).toBe(2);
      expect(start.stderr).toBe(`dagu: ${file}${c.at}${c.cycle}\n`);
      expect(snapshotTree(home.home)).toEqual(written);
    } finally {
      rmSync(file, { force: true });
    }
  });

  it('still validates and shows the good DAG and its run after all of them', async () => {
    const validate = await dagu(['validate'], home.env);
    expect(validate.code).toBe(0);
    expect(validate.stdout).toBe(`ok  good (${path.join(home.dags, 'good.yaml')})\n`);
    const status = await dagu(['status', '--json', 'good-run'], home.env);
    expect(JSON.parse(status.stdout)).toMatchObject({ run_id: 'good-run', status: 'succeeded' });
  });
});
