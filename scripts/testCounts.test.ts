// The counting of `npm test` over the reports of real runs: each fixture in scripts/countFixtures/ is run by
// Vitest or Playwright in a temp dir with the reporters test-all uses, and every way a test can fail or not
// run must come out as a failure.

import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addCounts,
  countMissingPackages,
  countPlaywright,
  countVitest,
  parseAllowedSkips,
  summaryLine,
  type Counts,
} from './testCounts.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const FIXTURES = path.join(import.meta.dirname, 'countFixtures');
const VITEST_FIXTURES = [
  'passes',
  'throwingBeforeAll',
  'throwingAfterAll',
  'unhandledRejection',
  'skipped',
  'todo',
  'failsToLoad',
] as const;
const PLAYWRIGHT_FIXTURES = [
  'passes',
  'skipped',
  'throwingBeforeAll',
  'outlivesGlobalTimeout',
  'failsToLoad',
] as const;

interface FixtureRun {
  dir: string;
  report: unknown;
  runErrors: unknown;
  exit: { status: number | null; signal: string | null };
}

const dirs: string[] = [];
const vitestRuns = new Map<string, FixtureRun>();
const playwrightRuns = new Map<string, FixtureRun>();

/** Vitest's and Playwright's own variables would make a nested run think it is a worker of ours. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: Record<string, string | undefined> = { NO_COLOR: '1', FORCE_COLOR: '0' };
  for (const [k, v] of Object.entries(process.env))
    if (!/^(VITEST|TEST$|NODE_ENV$|PW_|PLAYWRIGHT_)/.test(k) && !k.startsWith('npm_')) env[k] = v;
  return { ...env, ...extra } as NodeJS.ProcessEnv;
}

function spawnExit(argv: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<FixtureRun['exit']> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { cwd, env, stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', (status, signal) => resolve({ status, signal }));
  });
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch {
    return null;
  }
}

/** A temp dir that resolves `vitest` and `@playwright/test` from the project's node_modules. */
function fixtureDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'dagu-counts-'));
  dirs.push(dir);
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

/** Runs one Vitest fixture as `<name>.test.ts` with the reporters and variables scripts/test-all.mjs uses. */
async function runVitestFixture(name: string): Promise<FixtureRun> {
  const dir = fixtureDir();
  copyFileSync(path.join(FIXTURES, 'vitest', `${name}.ts`), path.join(dir, `${name}.test.ts`));
  writeFileSync(
    path.join(dir, 'vitest.config.mjs'),
    `export default { cacheDir: ${JSON.stringify(path.join(dir, '.vite'))}, test: { include: ['*.test.ts'] } };\n`,
  );
  const json = path.join(dir, 'vitest.json');
  const runErrors = path.join(dir, 'run-errors.json');
  const exit = await spawnExit(
    [
      process.execPath,
      path.join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'),
      'run',
      '--root',
      dir,
      '--reporter=json',
      `--reporter=${path.join(ROOT, 'scripts', 'vitestRunErrors.mjs')}`,
      `--outputFile.json=${json}`,
    ],
    dir,
    cleanEnv({ TEST_ALL_RUN_ERRORS: runErrors }),
  );
  return { dir, report: readJson(json), runErrors: readJson(runErrors), exit };
}

/** Runs one Playwright fixture as `<name>.spec.ts` (no browser: the fixtures use no page). */
async function runPlaywrightFixture(name: string): Promise<FixtureRun> {
  const dir = fixtureDir();
  copyFileSync(path.join(FIXTURES, 'playwright', `${name}.ts`), path.join(dir, `${name}.spec.ts`));
  const globalTimeout = name === 'outlivesGlobalTimeout' ? 'globalTimeout: 1500, ' : '';
  writeFileSync(
    path.join(dir, 'playwright.config.mjs'),
    `export default { testDir: '.', workers: 1, ${globalTimeout}reporter: [['json']] };\n`,
  );
  const json = path.join(dir, 'playwright.json');
  const exit = await spawnExit(
    [process.execPath, path.join(ROOT, 'node_modules', '@playwright', 'test', 'cli.js'), 'test'],
    dir,
    cleanEnv({ PLAYWRIGHT_JSON_OUTPUT_NAME: json }),
  );
  return { dir, report: readJson(json), runErrors: null, exit };
}

/** Runs `jobs` two at a time: this machine has two cores and other tests run beside this one. */
async function twoAtATime(jobs: Array<() => Promise<void>>): Promise<void> {
  const queue = [...jobs];
  const lane = async () => {
    for (let job = queue.shift(); job; job = queue.shift()) await job();
  };
  await Promise.all([lane(), lane()]);
}

beforeAll(async () => {
  await twoAtATime([
    ...VITEST_FIXTURES.map((name) => async () => void vitestRuns.set(name, await runVitestFixture(name))),
    ...PLAYWRIGHT_FIXTURES.map(
      (name) => async () => void playwrightRuns.set(name, await runPlaywrightFixture(name)),
    ),
  ]);
}, 120_000);

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function vitestCounts(name: string, opts: { allowed?: string; withoutRunErrors?: boolean } = {}): Counts {
  const run = vitestRuns.get(name)!;
  expect(run.report, `vitest wrote a report for ${name}`).not.toBeNull();
  return countVitest({
    report: run.report,
    runErrors: opts.withoutRunErrors ? null : (run.runErrors as never),
    exit: run.exit,
    allowedSkips: opts.allowed ? [{ file: `${name}.test.ts`, test: opts.allowed, reason: 'fixture' }] : [],
    root: run.dir,
  });
}

function playwrightCounts(name: string, allowed: string[] = []): Counts {
  const run = playwrightRuns.get(name)!;
  expect(run.report, `playwright wrote a report for ${name}`).not.toBeNull();
  return countPlaywright({
    report: run.report,
    exit: run.exit,
    allowedSkips: allowed.map((test) => ({ file: `${name}.spec.ts`, test, reason: 'fixture' })),
  });
}

describe('counting a Vitest run', () => {
  it('counts a file whose tests all pass as passed, with nothing failed or skipped', () => {
    const counts = vitestCounts('passes');
    expect(counts).toMatchObject({ passed: 1, failed: 0, skipped: 0, problems: [] });
  });

  it('fails a describe block whose beforeAll throws, and each test it left out', () => {
    const counts = vitestCounts('throwingBeforeAll');
    expect(counts.passed).toBe(0);
    expect(counts.problems).toEqual([
      'did not run (skipped): throwingBeforeAll.test.ts > needs a tool > uses the tool',
      'did not run (skipped): throwingBeforeAll.test.ts > needs a tool > uses the tool again',
      expect.stringMatching(
        /suite failed .*: throwingBeforeAll\.test\.ts > needs a tool: the tool is missing$/,
      ),
      'vitest ran no test (2 collected)',
    ]);
    expect(counts.failed).toBe(counts.problems.length);
  });

  it('fails a file whose afterAll throws although its test passed', () => {
    const counts = vitestCounts('throwingAfterAll');
    expect(counts).toMatchObject({ passed: 1, failed: 1 });
    expect(counts.problems).toEqual([expect.stringMatching(/suite failed .*: teardown broke/)]);
  });

  it('fails an unhandled rejection although every test passed', () => {
    const counts = vitestCounts('unhandledRejection');
    expect(counts).toMatchObject({ passed: 1, failed: 1 });
    expect(counts.problems).toEqual([
      expect.stringMatching(/unhandled error \(Unhandled Rejection\).*unhandledRejection.*nobody awaited/),
    ]);
  });

  it('fails a run whose record of unhandled errors and failed suites is missing', () => {
    const counts = vitestCounts('unhandledRejection', { withoutRunErrors: true });
    expect(counts).toMatchObject({ passed: 1, failed: 1 });
    expect(counts.problems).toEqual([expect.stringMatching(/no record of unhandled errors/)]);
  });

  it('fails a skipped test that is not in the allowed skips', () => {
    const counts = vitestCounts('skipped');
    expect(counts).toMatchObject({ passed: 1, failed: 1, skipped: 0 });
    expect(counts.problems).toEqual(['did not run (skipped): skipped.test.ts > is skipped']);
  });

  it('counts a skipped test listed in the allowed skips as skipped, with its reason', () => {
    const counts = vitestCounts('skipped', { allowed: 'is skipped' });
    expect(counts).toMatchObject({ passed: 1, failed: 0, skipped: 1, problems: [] });
    expect(counts.notes).toEqual(['skipped skipped.test.ts > is skipped: fixture']);
  });

  it('fails a todo test that is not in the allowed skips', () => {
    const counts = vitestCounts('todo');
    expect(counts).toMatchObject({ passed: 1, failed: 1 });
    expect(counts.problems).toEqual(['did not run (todo): todo.test.ts > is still to be written']);
  });

  it('fails a file that cannot load, which has no test at all', () => {
    const counts = vitestCounts('failsToLoad');
    expect(counts.passed).toBe(0);
    expect(counts.problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/suite failed .*failsToLoad\.test\.ts: .*JSON/),
        'vitest ran no test (0 collected)',
      ]),
    );
  });

  it('fails a run without a report', () => {
    const counts = countVitest({ report: null, runErrors: null, exit: { status: 1 }, root: ROOT });
    expect(counts).toMatchObject({ passed: 0, failed: 1 });
  });

  it('fails a run that exited non-zero although its report shows nothing wrong', () => {
    const run = vitestRuns.get('passes')!;
    const counts = countVitest({
      report: run.report,
      runErrors: run.runErrors as never,
      exit: { status: 1 },
      root: run.dir,
    });
    expect(counts).toMatchObject({ passed: 1, failed: 1 });
  });
});

describe('counting a Playwright run', () => {
  it('counts a spec whose tests all pass as passed, with nothing failed or skipped', () => {
    expect(playwrightCounts('passes')).toMatchObject({ passed: 1, failed: 0, skipped: 0, problems: [] });
  });

  it('fails skipped, self-skipping and fixme tests that are not in the allowed skips', () => {
    const counts = playwrightCounts('skipped');
    expect(counts).toMatchObject({ passed: 1, failed: 3, skipped: 0 });
  });

  it('counts skips listed in the allowed skips as skipped', () => {
    const counts = playwrightCounts('skipped', ['is skipped', 'skips itself', 'is broken']);
    expect(counts).toMatchObject({ passed: 1, failed: 0, skipped: 3 });
  });

  it('fails the tests a throwing beforeAll left out, even when they are allowed to be skipped', () => {
    const counts = playwrightCounts('throwingBeforeAll', ['second']);
    expect(counts).toMatchObject({ passed: 0, failed: 2, skipped: 0 });
    expect(counts.problems).toContain('did not run: throwingBeforeAll.spec.ts > second');
  });

  it('fails a run stopped by its global timeout', () => {
    const counts = playwrightCounts('outlivesGlobalTimeout');
    expect(counts.passed).toBe(0);
    expect(counts.problems).toEqual(
      expect.arrayContaining([
        'did not run: outlivesGlobalTimeout.spec.ts > takes long',
        'did not run: outlivesGlobalTimeout.spec.ts > never starts',
        expect.stringMatching(/playwright: Timed out waiting/),
      ]),
    );
  });

  it('fails a spec that cannot load', () => {
    const counts = playwrightCounts('failsToLoad');
    expect(counts.problems).toEqual(
      expect.arrayContaining([expect.stringMatching(/playwright: .*JSON/), 'playwright ran no test']),
    );
  });

  it('fails a test interrupted by a signal', () => {
    const report = {
      errors: [],
      suites: [
        {
          title: 'a.spec.ts',
          file: 'a.spec.ts',
          specs: [
            {
              title: 'waits',
              file: 'a.spec.ts',
              tests: [{ status: 'skipped', expectedStatus: 'passed', results: [{ status: 'interrupted' }] }],
            },
          ],
        },
      ],
    };
    const counts = countPlaywright({ report, exit: { status: 130 } });
    expect(counts.problems).toContain('interrupted: a.spec.ts > waits');
  });

  it('fails a run without a report', () => {
    expect(countPlaywright({ report: null, exit: { status: 0 } }).failed).toBe(1);
  });
});

describe('the rest of the count', () => {
  it('fails every missing system package, whether or not we are root', () => {
    expect(countMissingPackages(['faketime', 'fuse3'], { root: false }).failed).toBe(2);
    expect(countMissingPackages(['faketime'], { root: true }).failed).toBe(1);
    expect(countMissingPackages([], { root: false }).failed).toBe(0);
  });

  it('fails an allowed skip without a reason', () => {
    const { skips, counts } = parseAllowedSkips(
      JSON.stringify({
        skips: [
          { file: 'a.test.ts', test: 'x' },
          { file: 'b.test.ts', test: 'y', reason: 'z' },
        ],
      }),
    );
    expect(skips).toEqual([{ file: 'b.test.ts', test: 'y', reason: 'z' }]);
    expect(counts.failed).toBe(1);
  });

  it('keeps the project allow list of skips valid', () => {
    const { counts } = parseAllowedSkips(
      readFileSync(path.join(ROOT, 'tests', 'allowed-skips.json'), 'utf8'),
    );
    expect(counts.problems).toEqual([]);
  });

  it('ends with one line of passed, failed and skipped counts', () => {
    const total = addCounts(
      { passed: 3, failed: 1, skipped: 0, problems: ['x'], notes: [] },
      { passed: 2, failed: 0, skipped: 1, problems: [], notes: ['y'] },
    );
    expect(summaryLine(total)).toBe('5 passed, 1 failed, 1 skipped');
  });
});
