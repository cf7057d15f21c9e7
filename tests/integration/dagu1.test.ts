// Dagu 1.x files through the real `bin/dagu`: `dagu start` reads them with 1.x meaning, `dagu validate` says
// so once, and `dagu migrate` rewrites them (diff, --write, refusals, exit codes) into files that run the same.

import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dagu, tempHome, type TempHome } from './harness';

let h: TempHome;
beforeEach(() => {
  h = tempHome();
});
afterEach(() => h.cleanup());

/** A 1.x file: chain by default, backticks in env run, steps in the file's directory. */
const legacy = (out: string) => `histRetentionDays: 3
env:
  - GREETING: "\`echo hello\`"
steps:
  - name: slow
    command: sh -c 'sleep 0.5; echo slow >> ${out}'
  - name: fast
    command: sh -c 'echo "fast $GREETING $(pwd)" >> ${out}'
    continueOn:
      failure: true
`;

describe('Dagu 1.x files', () => {
  it('runs a 1.x file with its 1.x meaning, and validate names the spellings once', async () => {
    const out = path.join(h.home, 'out.txt');
    const file = h.writeDag('legacy', legacy(out));
    const r = await dagu(['start', 'legacy'], h.env);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(`slow\nfast hello ${path.dirname(file)}\n`);
    const v = await dagu(['validate', 'legacy'], h.env);
    expect(v.code, v.stderr).toBe(0);
    const warnings = v.stderr.split('\n').filter((l) => l.includes('warning:'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(
      'Dagu 1.x spelling read with 1.x meaning: histRetentionDays -> hist_retention_days, continueOn -> continue_on',
    );
    expect(warnings[0]).toContain(`run "dagu migrate ${file}" to rewrite it`);
  });

  it('migrates a folder: diff on stdout, --write in place with the mode kept, and the same outcome', async () => {
    const out = path.join(h.home, 'out.txt');
    const file = h.writeDag('legacy', legacy(out));
    chmodSync(file, 0o640);
    h.writeDag('modern', 'steps:\n  - run: echo hi\n');
    const dry = await dagu(['migrate', h.dags], h.env);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`--- ${file}`);
    expect(dry.stdout).toContain('\n-histRetentionDays: 3\n');
    expect(dry.stdout).toContain('\n+hist_retention_days: 3\n');
    expect(dry.stderr).toContain(`${path.join(h.dags, 'modern.yaml')}: already 2.x`);
    expect(readFileSync(file, 'utf8')).toBe(legacy(out));

    const w = await dagu(['migrate', '--write', h.dags], h.env);
    expect(w.code, w.stderr).toBe(0);
    const migrated = readFileSync(file, 'utf8');
    expect(migrated).toContain('hist_retention_days: 3');
    expect(migrated).toContain('type: chain');
    expect(migrated).toContain('eval: "`echo hello`"');
    expect(statSync(file).mode & 0o777).toBe(0o640);

    const v = await dagu(['validate', file], h.env);
    expect(v.stderr).not.toContain('Dagu 1.x spelling');
    const r = await dagu(['start', 'legacy'], h.env);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(`slow\nfast hello ${path.dirname(file)}\n`);
    const again = await dagu(['migrate', file], h.env);
    expect([again.code, again.stdout, again.stderr]).toEqual([0, '', `${file}: already 2.x\n`]);
  });

  it('never touches a file it cannot migrate, exits 1, and exits 2 for a missing path', async () => {
    const text = 'timeoutSec: 5\nsteps:\n  - command: echo "$X"\n    env:\n      - X: "`date`"\n';
    const file = h.writeDag('stepenv', text);
    const r = await dagu(['migrate', '--write', file], h.env);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      new RegExp(`^${file.replace(/[.]/g, '\\.')}: not migrated: steps\\[0\\]\\.env\\.X runs a command`),
    );
    expect(readFileSync(file, 'utf8')).toBe(text);
    const missing = await dagu(['migrate', path.join(h.home, 'nope')], h.env);
    expect(missing.code).toBe(2);
    writeFileSync(path.join(h.dags, 'notes.txt'), 'not a DAG');
    expect((await dagu(['migrate', h.dags], h.env)).code).toBe(1);
  });
});
