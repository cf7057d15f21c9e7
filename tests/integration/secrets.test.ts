// A run's `secrets:` never show on any surface: not in what `dagu start`, `dagu status` and `dagu history` print,
// nor in any file the run leaves in DAGU_HOME (status, run log, step logs), while its steps get the real values.

import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { dagu, filesUnder, tempHome, type TempHome } from './harness';

const SECRET = 'it-secret-value-5fd1c2';
let h: TempHome;
beforeEach(() => {
  h = tempHome({ IT_SECRET_SOURCE: SECRET });
});
afterEach(() => h.cleanup());

it('masks a secret in the records, logs and outputs of a run, and in every command that shows them', async () => {
  h.writeDag(
    'leaky',
    [
      'secrets:',
      '  - name: TOKEN',
      '    provider: env',
      '    key: IT_SECRET_SOURCE',
      'params:',
      '  - GREETING: hello',
      'steps:',
      '  - id: produce',
      '    run: echo "value ${TOKEN}"',
      '    output: OUT',
      '  - id: check',
      '    depends: produce',
      // The later step gets the real value (not the mask): it fails with the secret in its error otherwise.
      '    run: test "${OUT}" = "value $TOKEN" && echo "fails with $TOKEN" >&2 && exit 7',
      '',
    ].join('\n'),
  );
  const run = await dagu(['start', 'leaky'], h.env);
  expect(run.code, run.stderr).toBe(1);
  expect(run.stdout + run.stderr).toContain('fails with *******');
  const status = await dagu(['status', 'leaky'], h.env);
  const history = await dagu(['history', 'leaky', '--format', 'json'], h.env);
  expect(status.code).toBe(0);
  expect(history.code).toBe(0);
  expect(status.stdout).toContain('*******');
  for (const r of [run, status, history]) expect(r.stdout + r.stderr).not.toContain(SECRET);
  const dirs = readdirSync(h.home).filter((d) => d !== 'dags');
  const written = filesUnder(h.home, dirs);
  expect(written.size).toBeGreaterThan(3);
  for (const [file, text] of written) expect(text, file).not.toContain(SECRET);
  const out = [...written.entries()].find(([f]) => path.basename(f) === 'produce.out');
  expect(out?.[1].trim()).toBe('value *******');
});
