// docs/dag-reference.md documents exactly the keys the DAG parser accepts: a key added to the parser, or a
// documented key the parser no longer knows, fails CI.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDagError, parseDag } from '../core/dag/parseDag';
import { dagSchemaKeys, documentedDagKeys } from './dagKeys';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PAGE = 'docs/dag-reference.md';
const documented = documentedDagKeys(readFileSync(path.join(ROOT, PAGE), 'utf8'));
const accepted = dagSchemaKeys();

describe('the DAG file reference', () => {
  it('documents every key the DAG parser accepts', () => {
    const missing = accepted.filter((k) => !documented.includes(k));
    expect(missing, `keys the parser accepts but ${PAGE} has no table row for`).toEqual([]);
  });

  it('documents no key the DAG parser would reject', () => {
    const unknown = documented.filter((k) => !accepted.includes(k));
    expect(unknown, `keys ${PAGE} documents but the parser rejects`).toEqual([]);
  });
});

describe('the example DAGs of the docs', () => {
  const examples = ['README.md', PAGE].flatMap((file) =>
    [...readFileSync(path.join(ROOT, file), 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)]
      .map((m) => m[1])
      .filter((yaml) => /^steps:/m.test(yaml))
      .map((yaml, i) => ({ name: `${file}, DAG example ${i + 1}`, yaml })),
  );

  it('are there to check', () => {
    expect(examples.length).toBeGreaterThanOrEqual(3);
  });

  it.each(examples.map((e) => [e.name, e.yaml]))('%s is a valid DAG', (_name, yaml) => {
    const result = parseDag(yaml, { file: 'example.yaml', defaultName: 'example' });
    expect(result.ok ? [] : result.errors.map(formatDagError)).toEqual([]);
  });
});

describe('the key probe', () => {
  it('finds keys at the DAG level, in steps, handlers, retry policies and continue_on', () => {
    expect(accepted).toEqual(
      expect.arrayContaining([
        'schedule',
        'steps[].command',
        'handler_on.exit',
        'retry_policy.max_interval_sec',
        'steps[].continue_on.failure',
        'signal_handling.enable_propagation',
      ]),
    );
  });

  it('reads key paths only from the first cell of table rows', () => {
    const page = [
      '| Key | Meaning |',
      '| `steps[].dir` | where |',
      '| `retry_policy.limit` | how many |',
      '| `unknown key "x" (use y)` | an error message, not a key |',
      'Prose mentioning `not_a_row` is ignored.',
    ].join('\n');
    expect(documentedDagKeys(page)).toEqual(['retry_policy.limit', 'steps[].dir']);
  });
});
