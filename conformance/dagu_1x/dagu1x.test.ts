// The Dagu 1.x conformance suite (issue 15): every case runs through the real `bin/dagu` and must end as Dagu
// 1.30.2 ended (the `expect:` blocks, recorded from 1.30.2 by scripts/dagu1Expectations.mjs), or as the case's
// `differs:` says where this product answers differently on purpose. Then the `dagu migrate` round trip: each
// file, migrated with `--write`, must run to the same outcome and load without the 1.x warning.
// Build the CLI first (`npm run build:cli`).

import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dagu, ROOT, tempHome, type Result } from '../../tests/integration/harness';
import { concurrencyLimit, runCase, type Feature } from '../dagu_dag_language/harness';
import { startServices, type Started } from '../dagu_dag_language/services';
import { discover1x, type Case1x } from './suite';

/** Cases run at once: each is a `dagu start` plus its steps, on a 2-core machine. */
const limited = concurrencyLimit(4);

/** The warning a file read with Dagu 1.x's meaning gets (and a file whose meaning would differ under 1.x). */
const WARNS_1X = /\b1\.x\b/;

let services: Started;
const scratch: string[] = [];
beforeAll(async () => {
  if (!existsSync(path.join(ROOT, 'dist', 'cli.cjs')))
    throw new Error('the CLI is not built: run `npm run build:cli` first');
  services = await startServices();
});
afterAll(async () => {
  await services?.close();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
});

/** The case as this product must answer it: 1.30.2's outcome, or the `differs` one. */
const asRun = (c: Case1x): Case1x => (c.differs ? { ...c, expect: c.differs.expect } : c);

/** Whether 1.30.2 loaded the file at all (a refused file has no 1.x meaning to keep). */
const loads1x = (c: Case1x) => !c.expect.no_run && !c.differs?.expect.no_run;

/** A DAG file's text with the suite's service addresses filled in, as the harness fills them in. */
const filled = (file: string) =>
  readFileSync(file, 'utf8')
    .replaceAll('{{http}}', services.httpUrl)
    .replaceAll('{{smtp_port}}', String(services.smtpPort));

/** `dagu validate` of a filled-in copy of FILE in a fresh home. */
async function validate(file: string): Promise<Result> {
  const home = tempHome();
  try {
    const copy = path.join(home.dags, path.basename(file));
    writeFileSync(copy, filled(file));
    return await dagu(['validate', copy], home.env);
  } finally {
    home.cleanup();
  }
}

const show = (r: Result) => `exit ${r.code}\n-- stdout:\n${r.stdout}\n-- stderr:\n${r.stderr}`;

interface Migrated {
  dir: string;
  result: Result;
}

/**
 * A copy of the feature folder (all its DAG files, sub-DAGs included, without cases.yaml) after
 * `dagu migrate --write` on it; made once per feature.
 */
const migrations = new Map<string, Promise<Migrated>>();
function migrated(feature: Feature<Case1x>): Promise<Migrated> {
  let p = migrations.get(feature.name);
  if (!p) {
    p = (async () => {
      const dir = mkdtempSync(path.join(tmpdir(), `dagu-migrate-${feature.name}-`));
      scratch.push(dir);
      cpSync(feature.dir, dir, { recursive: true, filter: (src) => path.basename(src) !== 'cases.yaml' });
      for (const f of readdirSync(dir).filter((n) => /\.ya?ml$/.test(n)))
        writeFileSync(path.join(dir, f), filled(path.join(dir, f)));
      const home = tempHome();
      try {
        return { dir, result: await dagu(['migrate', '--write', dir], home.env, 60_000) };
      } finally {
        home.cleanup();
      }
    })();
    migrations.set(feature.name, p);
  }
  return p;
}

/** The stderr lines `dagu migrate` wrote about one file. */
const linesAbout = (r: Result, file: string) =>
  r.stderr.split('\n').filter((l) => l.includes(`${path.sep}${path.basename(file)}:`));

/** The reason of a `FILE: not migrated: REASON` line, or null. */
const refusal = (line: string) => {
  const at = line.indexOf(': not migrated: ');
  return at < 0 ? null : line.slice(at + ': not migrated: '.length);
};

const features = discover1x();
const only = process.env.DAGU_CONFORMANCE_ONLY;
const selected = features.filter((f) => !only || f.name.includes(only));

describe.concurrent('Dagu 1.x files', () => {
  for (const feature of selected) {
    for (const c of feature.cases) {
      it(`${feature.name} / ${c.name}`, { timeout: 180_000 }, () =>
        limited(() => runCase(feature, asRun(c), services)),
      );
      if (loads1x(c))
        it(`${feature.name} / ${c.name}: validate names the 1.x reading`, { timeout: 60_000 }, async () => {
          const r = await limited(() => validate(path.join(feature.dir, c.dag)));
          expect(r.code, show(r)).toBe(0);
          expect(r.stderr, show(r)).toMatch(WARNS_1X);
        });
    }
  }
});

describe.concurrent('dagu migrate round trip', () => {
  for (const feature of selected) {
    for (const c of feature.cases) {
      const title = `${feature.name} / ${c.name}`;
      const m = c.migrate;
      if (m && 'refused' in m) {
        it(`${title}: migrate refuses it (${m.refused})`, { timeout: 120_000 }, async () => {
          const { dir, result } = await migrated(feature);
          expect(result.code, show(result)).toBe(1);
          const lines = linesAbout(result, c.dag);
          expect(
            lines.some((l) => refusal(l)?.includes(m.refused)),
            `expected "${c.dag}: not migrated: …${m.refused}…"\n${show(result)}`,
          ).toBe(true);
          // A refused file is left exactly as it was.
          expect(readFileSync(path.join(dir, c.dag), 'utf8')).toBe(filled(path.join(feature.dir, c.dag)));
        });
        continue;
      }
      if (m && 'noted' in m) {
        it(`${title}: migrated with a note (${m.noted})`, { timeout: 120_000 }, async () => {
          const { dir, result } = await migrated(feature);
          const lines = linesAbout(result, c.dag);
          expect(
            lines.some((l) => l.includes('note:') && l.includes(m.noted)),
            `expected "${c.dag}: note: …${m.noted}…"\n${show(result)}`,
          ).toBe(true);
          const v = await limited(() => validate(path.join(dir, c.dag)));
          expect(v.code, show(v)).toBe(0);
          expect(v.stderr, `the migrated file still warns about 1.x:\n${show(v)}`).not.toMatch(WARNS_1X);
        });
        continue;
      }
      it(`${title}: migrated, same outcome, no 1.x warning`, { timeout: 180_000 }, async () => {
        const { dir, result } = await migrated(feature);
        expect([0, 1], show(result)).toContain(result.code);
        const lines = linesAbout(result, c.dag);
        expect(
          lines.filter((l) => refusal(l) !== null),
          show(result),
        ).toEqual([]);
        const file = path.join(dir, c.dag);
        if (m && 'already_2x' in m) {
          expect(
            lines.some((l) => l.includes('already 2.x')),
            show(result),
          ).toBe(true);
          expect(readFileSync(file, 'utf8')).toBe(filled(path.join(feature.dir, c.dag)));
        } else {
          expect(result.stdout, `a diff of ${c.dag}\n${show(result)}`).toContain(path.basename(c.dag));
          const v = await limited(() => validate(file));
          expect(v.code, show(v)).toBe(0);
          expect(v.stderr, `the migrated file still warns about 1.x:\n${show(v)}`).not.toMatch(WARNS_1X);
        }
        // Migration may add steps (a backtick env value can become an explicit step): the outcome is the
        // run's status and exit code, the original steps and the files, not the exact list of step names.
        const run = asRun(c);
        const { step_names: _names, ...outcome } = run.expect;
        await limited(() => runCase({ ...feature, dir }, { ...run, expect: outcome }, services));
      });
    }
  }
});
