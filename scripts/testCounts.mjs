// The counting behind `npm test` (scripts/test-all.mjs): each runner's reports and exit status become passed,
// failed and skipped counts and one line per problem. Pure (no file, process or clock), so that
// scripts/testCounts.test.ts can run it over the reports of real runs of fixture tests.
//
// The rule: "0 failed" only when every test ran and passed. A test that did not run (skipped, todo, fixme,
// interrupted, or left out by a failed beforeAll) is a failure unless tests/allowed-skips.json lists it with
// a reason; a suite that failed outside its tests, an unhandled error, a runner that ran no test or exited
// non-zero without a counted failure, and a missing system package are failures too.

import path from 'node:path';

/**
 * What one step of `npm test` adds to the final line.
 * @typedef {object} Counts
 * @property {number} passed
 * @property {number} failed
 * @property {number} skipped tests that did not run and are listed in the allowed skips
 * @property {string[]} problems one line per failure, printed before the final line
 * @property {string[]} notes one line per allowed skip, with its reason
 */

/**
 * A test that may be skipped: its file relative to the repository, its name with the titles of its suites
 * joined by " > ", and why it may be skipped.
 * @typedef {{ file: string, test: string, reason: string }} AllowedSkip
 */

/**
 * How a runner process ended, as spawnSync reports it.
 * @typedef {{ status: number | null, signal?: string | null }} ExitStatus
 */

/**
 * What scripts/vitestRunErrors.mjs records of a Vitest run: the errors Vitest's JSON report leaves out.
 * @typedef {object} VitestRunErrors
 * @property {string} reason 'passed', 'failed' or 'interrupted'
 * @property {Array<{ file: string, suite: string, message: string }>} suiteErrors errors of a test file or a
 *   describe block outside its tests: a module that failed to load, a beforeAll or afterAll that threw
 * @property {Array<{ type: string, message: string, file: string, test: string }>} unhandledErrors
 */

/** @returns {Counts} */
export function noCounts() {
  return { passed: 0, failed: 0, skipped: 0, problems: [], notes: [] };
}

/**
 * Sums counts.
 * @param {Counts[]} all
 * @returns {Counts}
 */
export function addCounts(...all) {
  const sum = noCounts();
  for (const c of all) {
    sum.passed += c.passed;
    sum.failed += c.failed;
    sum.skipped += c.skipped;
    sum.problems.push(...c.problems);
    sum.notes.push(...c.notes);
  }
  return sum;
}

/**
 * The last line of `npm test`.
 * @param {Counts} counts
 */
export function summaryLine(counts) {
  return `${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`;
}

/**
 * One failure per problem: for steps that either work or do not (a build, an unreadable file).
 * @param {string[]} problems
 * @returns {Counts}
 */
export function failures(problems) {
  return { ...noCounts(), failed: problems.length, problems: [...problems] };
}

/**
 * One failure per Debian package still missing after the attempt to install it. A missing package fails
 * whether or not we could have installed it: the tests that need it cannot run.
 * @param {string[]} missing
 * @param {{ root: boolean }} how whether this process is root (and so tried to install them)
 * @returns {Counts}
 */
export function countMissingPackages(missing, { root }) {
  const fix = root
    ? 'apt-get install failed to provide it'
    : `install as root: apt-get install -y ${missing.join(' ')}`;
  return failures(missing.map((name) => `missing Debian package ${name} (${fix})`));
}

/**
 * Reads tests/allowed-skips.json: `{ "skips": [{ "file", "test", "reason" }] }`. An entry without a file, a
 * test name or a reason is a problem, so that nothing is allowed to be skipped without saying why.
 * @param {string} text
 * @returns {{ skips: AllowedSkip[], counts: Counts }}
 */
export function parseAllowedSkips(text) {
  /** @type {unknown} */
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return { skips: [], counts: failures([`allowed skips: not JSON: ${errorText(err)}`]) };
  }
  const entries = /** @type {{ skips?: unknown }} */ (doc ?? {}).skips;
  if (!Array.isArray(entries))
    return { skips: [], counts: failures(['allowed skips: expected an object with a "skips" array']) };
  /** @type {AllowedSkip[]} */
  const skips = [];
  const problems = [];
  for (const [i, entry] of entries.entries()) {
    const { file, test, reason } = /** @type {Record<string, unknown>} */ (entry ?? {});
    if ([file, test, reason].every((v) => typeof v === 'string' && v.trim() !== ''))
      skips.push(/** @type {AllowedSkip} */ ({ file, test, reason }));
    else problems.push(`allowed skips: entry ${i} needs a non-empty "file", "test" and "reason"`);
  }
  return { skips, counts: failures(problems) };
}

/**
 * @param {AllowedSkip[]} skips
 * @param {string} file
 * @param {string} test
 */
function allowedSkip(skips, file, test) {
  return skips.find((s) => s.file === file && s.test === test);
}

/**
 * Counts a Vitest run from its JSON report (`--reporter=json`), what scripts/vitestRunErrors.mjs recorded,
 * and its exit status. `root` is the directory the allowed skips' file names are relative to.
 * @param {{
 *   report: any,
 *   runErrors: VitestRunErrors | null,
 *   exit: ExitStatus,
 *   allowedSkips?: AllowedSkip[],
 *   root: string,
 * }} run
 * @returns {Counts}
 */
export function countVitest({ report, runErrors, exit, allowedSkips = [], root }) {
  const counts = noCounts();
  const fail = (/** @type {string} */ problem) => {
    counts.failed++;
    counts.problems.push(problem);
  };
  const rel = (/** @type {string} */ file) => path.relative(root, file) || file;
  if (!report) {
    fail(`vitest wrote no JSON report (${describeExit(exit)})`);
    return counts;
  }

  /** Files with a failure counted against them, so the backstop below does not count them twice. */
  const accounted = new Set();
  let ran = 0;
  for (const file of report.testResults ?? []) {
    const name = rel(file.name);
    for (const t of file.assertionResults ?? []) {
      const test = [...(t.ancestorTitles ?? []), t.title].join(' > ');
      if (t.status === 'passed' || t.status === 'failed') ran++;
      if (t.status === 'passed') counts.passed++;
      else if (t.status === 'failed') {
        fail(`failed: ${name} > ${test}`);
        accounted.add(file.name);
      } else {
        // skipped (it.skip, ctx.skip, or left out by a failed beforeAll), todo, or pending
        const allowed = allowedSkip(allowedSkips, name, test);
        if (allowed) {
          counts.skipped++;
          counts.notes.push(`skipped ${name} > ${test}: ${allowed.reason}`);
        } else {
          fail(`did not run (${t.status}): ${name} > ${test}`);
          accounted.add(file.name);
        }
      }
    }
  }

  if (!runErrors) {
    fail('vitest: no record of unhandled errors and failed suites (scripts/vitestRunErrors.mjs wrote none)');
  } else {
    for (const e of runErrors.suiteErrors) {
      const where = e.suite ? `${rel(e.file)} > ${e.suite}` : rel(e.file);
      fail(`suite failed outside its tests (load, beforeAll or afterAll): ${where}: ${firstLine(e.message)}`);
      accounted.add(e.file);
    }
    for (const e of runErrors.unhandledErrors) {
      const where = e.file ? ` in ${rel(e.file)}${e.test ? ` > ${e.test}` : ''}` : '';
      fail(`unhandled error (${e.type || 'error'})${where}: ${firstLine(e.message)}`);
    }
    if (runErrors.reason === 'interrupted') fail('vitest: the run was interrupted before it ended');
  }
  // The JSON report's own view of a file that failed outside its tests (its `message` is the file's first
  // error), in case the run-errors record missed it.
  for (const file of report.testResults ?? []) {
    if (file.status === 'failed' && !accounted.has(file.name))
      fail(`file failed outside its tests: ${rel(file.name)}: ${firstLine(file.message) || '(no message)'}`);
  }

  if (ran === 0) fail(`vitest ran no test (${report.numTotalTests ?? 0} collected)`);
  // Whatever Vitest saw that the counting above missed still fails the run.
  if (counts.failed === 0 && (report.success !== true || exit.status !== 0))
    fail(
      `vitest reported success: ${report.success} and ${describeExit(exit)}, though no failure was counted`,
    );
  return counts;
}

/**
 * Counts a Playwright run from its JSON report (`--reporter=json`) and its exit status.
 * @param {{ report: any, exit: ExitStatus, allowedSkips?: AllowedSkip[] }} run
 * @returns {Counts}
 */
export function countPlaywright({ report, exit, allowedSkips = [] }) {
  const counts = noCounts();
  const fail = (/** @type {string} */ problem) => {
    counts.failed++;
    counts.problems.push(problem);
  };
  let ran = 0;
  if (!report) {
    fail(`playwright wrote no JSON report (${describeExit(exit)})`);
    return counts;
  }

  /**
   * @param {any} suite
   * @param {string[]} titles
   */
  const visit = (suite, titles) => {
    for (const spec of suite.specs ?? []) {
      const test = [...titles, spec.title].join(' > ');
      const where = `${spec.file} > ${test}`;
      for (const t of spec.tests ?? []) {
        const results = /** @type {Array<{ status?: string }>} */ (t.results ?? []);
        if (t.status === 'expected' || t.status === 'flaky' || t.status === 'unexpected') ran++;
        if (t.status === 'expected') counts.passed++;
        else if (t.status === 'flaky') fail(`flaky (failed, then passed on a retry): ${where}`);
        else if (t.status === 'unexpected') fail(`failed: ${where}`);
        else if (results.some((r) => r.status === 'interrupted')) fail(`interrupted: ${where}`);
        else if (t.expectedStatus !== 'skipped')
          // Playwright's "skipped" also covers a test that never started: after a failed beforeAll in its
          // file, or when the run was stopped (global timeout, max failures, a signal).
          fail(`did not run: ${where}`);
        else {
          const allowed = allowedSkip(allowedSkips, spec.file, test);
          if (allowed) {
            counts.skipped++;
            counts.notes.push(`skipped ${where}: ${allowed.reason}`);
          } else fail(`did not run (skipped): ${where}`);
        }
      }
    }
    for (const child of suite.suites ?? []) visit(child, [...titles, child.title]);
  };
  // A file's own suite is titled with its file name, which `where` already shows.
  for (const fileSuite of report.suites ?? []) visit(fileSuite, []);

  // Errors outside any test: a spec that failed to load, a global setup or timeout.
  for (const e of report.errors ?? []) fail(`playwright: ${firstLine(e.message)}`);
  if (ran === 0) fail('playwright ran no test');
  if (counts.failed === 0 && exit.status !== 0)
    fail(`playwright ${describeExit(exit)}, though no failure was counted`);
  return counts;
}

/** @param {ExitStatus} exit */
function describeExit(exit) {
  if (exit.status === null) return `killed by ${exit.signal ?? 'a signal'}`;
  return `exited with status ${exit.status}`;
}

/** @param {unknown} err */
function errorText(err) {
  return err instanceof Error ? err.message : String(err);
}

/** Terminal colour codes, which Playwright leaves in some error messages. */
// eslint-disable-next-line no-control-regex
const COLOUR_CODE = /\x1b\[[0-9;]*m/g;

/** The first line of a message, without terminal colours. @param {unknown} message */
function firstLine(message) {
  return String(message ?? '')
    .replace(COLOUR_CODE, '')
    .split('\n')[0]
    .trim();
}
