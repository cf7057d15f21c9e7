// Hostile and broken command lines, through the real `bin/dagu`: each ends with exit 2 (1 where Dagu's own
// form answers 1, as `dequeue` does for nothing to dequeue) and one line naming the argument (commander's own `error:` line for a malformed command line), and the data directory is untouched:
// the existing run, the lock and the instance record are as they were, no run or queue item was made.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dagu } from '../integration/harness';
import { snapshotTree, tempFilesUnder } from './dataDirSnapshot';
import { seededHome, type SeededHome } from './seededHome';

const RUN_ID_RULE = 'use 1 to 64 letters, digits, "_" or "-"';

interface ArgCase {
  what: string;
  args: string[];
  /** The first line on stderr; `<dags>` stands for the DAGs directory. */
  error: string;
  /** Whether commander printed usage after its error line (a malformed command line). */
  usage?: boolean;
  /** The exit code when it is not 2: Dagu's 1 for a well-formed command that finds nothing to act on. */
  code?: number;
}

const CASES: ArgCase[] = [
  {
    what: 'an unknown command',
    args: ['bogus'],
    error: "error: unknown command 'bogus'",
    usage: true,
  },
  {
    what: 'a missing run ID',
    args: ['status'],
    error: "error: missing required argument 'run-id|dag'",
    usage: true,
  },
  {
    what: 'an unknown option',
    args: ['start', '--bogus', 'good'],
    error: "error: unknown option '--bogus'",
    usage: true,
  },
  {
    what: 'one argument too many',
    args: ['retry', 'good-run', 'extra'],
    error: "error: too many arguments for 'retry'. Expected 1 argument but got 2.",
    usage: true,
  },
  {
    what: 'a trigger type that is not one of the choices',
    args: ['start', '--trigger-type', 'weird', 'good'],
    error:
      "error: option '--trigger-type <type>' argument 'weird' is invalid. Allowed choices are manual, " +
      'scheduler, catchup, retry, subdag, queue.',
    usage: true,
  },
  {
    what: 'a run ID that climbs out of the runs directory',
    args: ['status', '../../etc'],
    error: `dagu: invalid run ID "../../etc": ${RUN_ID_RULE}`,
  },
  {
    what: 'a run ID of 65 characters',
    args: ['stop', 'r'.repeat(65)],
    error: `dagu: invalid run ID "${'r'.repeat(65)}": ${RUN_ID_RULE}`,
  },
  {
    what: 'an empty run ID for a new run',
    args: ['start', '--run-id', '', 'good'],
    error: `dagu: invalid run ID "": ${RUN_ID_RULE}`,
  },
  {
    what: 'a run ID with "/" for a queued run',
    args: ['enqueue', '--run-id', 'a/b', 'good'],
    error: `dagu: invalid run ID "a/b": ${RUN_ID_RULE}`,
  },
  {
    what: 'a DAG name with ".."',
    args: ['enqueue', 'a..b'],
    error:
      'dagu: invalid DAG name "a..b": use 1 to 64 letters, digits, "_", "-" or "." (not leading, no "..")',
  },
  {
    what: 'a DAG that does not exist',
    args: ['start', 'nope'],
    error: 'dagu: DAG "nope" not found in <dags>',
  },
  {
    what: 'dequeuing a run that does not exist',
    args: ['dequeue', 'no-such-run'],
    error: 'dagu: no run with ID "no-such-run" and no queued run in a queue of that name',
    code: 1,
  },
  {
    what: 'a new run under the ID of a finished one',
    args: ['start', '--quiet', '--run-id', 'good-run', 'good'],
    error: 'dagu: run good-run is already succeeded',
  },
  {
    what: 'queuing under the ID of a finished run',
    args: ['enqueue', '--run-id', 'good-run', 'good'],
    error: 'dagu: run good-run already exists',
  },
  {
    what: 'a schedule time that is not a time',
    args: ['start', '--schedule-time', 'yesterday-ish', 'good'],
    error: 'dagu: --schedule-time: "yesterday-ish" is not an RFC 3339 time',
  },
  {
    what: 'a health port that is not a number',
    args: ['scheduler', '--scheduler-port', 'abc'],
    error:
      'dagu: --scheduler-port (scheduler.port): "abc" is not a valid port (use 0 to 65535; 0 disables it)',
  },
  {
    what: 'a web port above 65535',
    args: ['server', '--port', '99999'],
    error: 'dagu: --port (port): "99999" is not a valid port (use 1 to 65535)',
  },
  {
    what: 'a coordinator port above 65535',
    args: ['coordinator', '--coordinator-port', '70000'],
    error: 'dagu: --coordinator-port (coordinator.port): "70000" is not a valid port (use 1 to 65535)',
  },
  {
    what: 'worker labels without "="',
    args: ['worker', '--labels', 'zone'],
    error:
      'dagu: --labels (worker.labels): "zone" is not a label (use key=value, keys of letters, digits, _ . / -)',
  },
  {
    what: 'a worker capacity of 0',
    args: ['worker', '--max-active-runs', '0'],
    error: 'dagu: --max-active-runs (worker.max_active_runs): "0" must be at least 1',
  },
  {
    what: 'a worker ID with spaces',
    args: ['worker', '--id', 'my worker'],
    error:
      'dagu: --id (worker.id): "my worker" is not valid (use 1 to 128 letters, digits, "_", ".", "@" or "-")',
  },
  {
    what: 'a coordinator URL that is not http(s)',
    args: ['worker', '--coordinator', 'ftp://coord.example'],
    error: 'dagu: --coordinator (coordinator.url): "ftp://coord.example" is not an http:// or https:// URL',
  },
];

let home: SeededHome;
beforeAll(async () => {
  home = await seededHome();
});
afterAll(() => home.cleanup());

describe('a hostile or broken command line', () => {
  it.each(CASES)('$what: a clear exit naming it, and nothing written', async (c) => {
    const before = snapshotTree(home.home);
    // A command line accepted by mistake may start a service: killed after 8 s, failing the case.
    const r = await dagu(c.args, home.env, 8_000);
    const [first, ...rest] = r.stderr.split('\n');
    expect(first).toBe(c.error.replace('<dags>', home.dags));
    if (c.usage) expect(rest.join('\n')).toMatch(/^\nUsage: dagu /);
    else expect(rest).toEqual(['']);
    expect(r.code).toBe(c.code ?? 2);
    expect(r.stdout).toBe('');
    expect(snapshotTree(home.home)).toEqual(before);
  });

  it('leaves the finished run readable and no temp file anywhere', async () => {
    const r = await dagu(['status', '--json', home.runId], home.env);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ run_id: home.runId, dag_name: 'good', status: 'succeeded' });
    expect(tempFilesUnder(home.home)).toEqual([]);
  });
});
