// A Vitest reporter for `npm test`: records what Vitest's JSON report leaves out, the errors of suites
// outside their tests (a module that failed to load, a beforeAll or afterAll that threw, with the describe
// block it belongs to) and the unhandled errors, as JSON in the file named by TEST_ALL_RUN_ERRORS.
// scripts/testCounts.mjs counts each of them as a failure.

import { writeFileSync } from 'node:fs';

export default class VitestRunErrorsReporter {
  /**
   * @param {ReadonlyArray<any>} testModules
   * @param {ReadonlyArray<any>} unhandledErrors
   * @param {string} reason
   */
  onTestRunEnd(testModules, unhandledErrors, reason) {
    const file = process.env.TEST_ALL_RUN_ERRORS;
    if (!file) return;
    const suiteErrors = [];
    for (const module of testModules) {
      for (const e of module.errors())
        suiteErrors.push({ file: module.moduleId, suite: '', message: e.message });
      for (const suite of module.children.allSuites())
        for (const e of suite.errors())
          suiteErrors.push({ file: module.moduleId, suite: suite.fullName, message: e.message });
    }
    const unhandled = unhandledErrors.map((e) => ({
      type: e.type ?? e.name ?? 'Error',
      message: e.message ?? String(e),
      // Vitest names the test (and its file) that was running when the error was thrown, when it knows.
      file: e.VITEST_TEST_PATH ?? '',
      test: e.VITEST_TEST_NAME ?? '',
    }));
    writeFileSync(file, JSON.stringify({ reason, suiteErrors, unhandledErrors: unhandled }, null, 2));
  }
}
