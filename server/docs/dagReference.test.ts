// docs/dag-reference.md lists every key of Dagu 2.x's DAG language with its status here: a key missing from
// the page, a key the parser accepts but the page leaves out, or a refused key the page calls supported fails CI.
// Its example DAGs must pass `dagu validate`.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDagError, parseDag } from '../core/dag/parseDag';
import { ROOT_KEYS } from '../core/dag/readDag';
import { STEP_KEYS } from '../core/dag/readStep';
import { UNSUPPORTED_ROOT_KEYS, UNSUPPORTED_STEP_KEYS } from '../core/dag/unsupported';
import { DAGU_HANDLER_KEYS, DAGU_ROOT_KEYS, DAGU_STEP_KEYS, EXTRA_ROOT_KEYS, keyRows } from './dagKeys';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PAGE = 'docs/dag-reference.md';
const rows = keyRows(readFileSync(path.join(ROOT, PAGE), 'utf8'));

const missing = (keys: readonly string[], row: (k: string) => string) =>
  keys.filter((k) => !rows.has(row(k)));
const stepRow = (k: string) => `steps[].${k}`;

describe('the DAG file reference', () => {
  it("has a row for every root key of Dagu's schema", () => {
    expect(
      missing(DAGU_ROOT_KEYS, (k) => k),
      `root keys ${PAGE} has no row for`,
    ).toEqual([]);
  });

  it("has a row for every step key of Dagu's schema, as steps[].<key>", () => {
    expect(missing(DAGU_STEP_KEYS, stepRow), `step keys ${PAGE} has no row for`).toEqual([]);
  });

  it('has a row for every handler of handler_on', () => {
    expect(missing(DAGU_HANDLER_KEYS, (k) => `handler_on.${k}`)).toEqual([]);
  });

  it('documents every key the parser accepts', () => {
    expect(
      missing(ROOT_KEYS, (k) => k),
      'root keys',
    ).toEqual([]);
    expect(missing(STEP_KEYS, stepRow), 'step keys').toEqual([]);
  });

  it('says "not supported" in the row of every key the parser refuses as a Dagu feature', () => {
    const wrong = [
      ...Object.keys(UNSUPPORTED_ROOT_KEYS),
      ...Object.keys(UNSUPPORTED_STEP_KEYS).map(stepRow),
    ].filter((k) => !(rows.get(k) ?? '').includes('not supported'));
    expect(wrong, `rows of ${PAGE} that do not say "not supported"`).toEqual([]);
  });

  it("documents no root or step key that is neither Dagu's nor listed as this product's own", () => {
    const known = new Set([...DAGU_ROOT_KEYS, ...EXTRA_ROOT_KEYS, ...DAGU_STEP_KEYS.map(stepRow)]);
    // Plain names and steps[].<name> are key rows; dotted sub-keys (retry_policy.limit) are described below them.
    const stray = [...rows.keys()].filter((k) => /^(steps\[\]\.)?[a-z_0-9]+$/.test(k) && !known.has(k));
    expect(stray).toEqual([]);
  });
});

describe('the example DAGs of the docs', () => {
  const examples = ['README.md', PAGE, 'docs/coming-from-dagu.md'].flatMap((file) =>
    [...readFileSync(path.join(ROOT, file), 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)]
      .map((m) => m[1])
      .filter((yaml) => /^steps:/m.test(yaml))
      .map((yaml, i) => ({ name: `${file}, DAG example ${i + 1}`, yaml })),
  );

  it('are there to check', () => {
    expect(examples.length).toBeGreaterThanOrEqual(3);
  });

  it.each(examples.map((e) => [e.name, e.yaml]))('%s passes dagu validate', (_name, yaml) => {
    const result = parseDag(yaml, { file: 'example.yaml', defaultName: 'example', strict: true });
    expect(result.ok ? [] : result.errors.map(formatDagError)).toEqual([]);
  });
});

describe('the key rows of a page', () => {
  it('are the first cells of table rows that are one code span, with the rest of the row', () => {
    const page = [
      '| Key | Status |',
      '| `steps[].run` | supported |',
      '| `retry_policy.limit` | supported, differs |',
      'Prose mentioning `not_a_row` is ignored.',
    ].join('\n');
    expect([...keyRows(page)]).toEqual([
      ['steps[].run', ' supported |'],
      ['retry_policy.limit', ' supported, differs |'],
    ]);
  });
});
