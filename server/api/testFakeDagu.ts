// For tests of operations that spawn `bin/dagu`: a stand-in executable (DAGU_EXECUTABLE) that only records
// the arguments and DAGU_HOME it was called with, so a test can check the call without running anything.

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { testServices, type TestServices } from './testServices';

export interface RecordedCall {
  argv: string[];
  home: string;
}

export interface FakeDagu {
  /** Waits for the stand-in to have been called and returns how. */
  recordedCall(): Promise<RecordedCall>;
  /** Puts DAGU_EXECUTABLE back as it was. */
  restore(): void;
}

/** Writes the stand-in into `dir` and points DAGU_EXECUTABLE at it until `restore()`. */
export function installFakeDagu(dir: string): FakeDagu {
  const saved = process.env.DAGU_EXECUTABLE;
  const argsFile = path.join(dir, 'args.json');
  const fake = path.join(dir, 'fake-dagu.mjs');
  writeFileSync(
    fake,
    `import { writeFileSync } from 'node:fs';\n` +
      `writeFileSync(${JSON.stringify(argsFile)}, JSON.stringify({ argv: process.argv.slice(2), home: process.env.DAGU_HOME }));\n`,
  );
  process.env.DAGU_EXECUTABLE = fake;
  return {
    async recordedCall() {
      for (;;) {
        try {
          return JSON.parse(readFileSync(argsFile, 'utf8')) as RecordedCall;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    },
    restore() {
      if (saved === undefined) delete process.env.DAGU_EXECUTABLE;
      else process.env.DAGU_EXECUTABLE = saved;
    },
  };
}

/** What a test of a spawning operation works with: services holding the DAG `hello`, and the stand-in. */
export interface SpawnTest {
  svc: TestServices;
  fakeDagu: FakeDagu;
  /** Restores DAGU_EXECUTABLE and removes the services' home. */
  done(): void;
}

export function spawnTest(): SpawnTest {
  const svc = testServices();
  svc.writeDag('hello', 'steps:\n  - name: greet\n    command: echo hi\n');
  svc.runs.logDir = (dag, runId, attempt) => path.join(svc.config.paths.log_dir, dag, runId, String(attempt));
  const fakeDagu = installFakeDagu(svc.config.home);
  return {
    svc,
    fakeDagu,
    done() {
      fakeDagu.restore();
      svc.cleanup();
    },
  };
}
