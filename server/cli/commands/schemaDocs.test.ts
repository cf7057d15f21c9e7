import { describe, expect, it } from 'vitest';
import { describeSchemaPath, readDocKeys, splitRow } from './schemaDocs';

const PAGE = [
  '# Reference',
  '',
  '| Key | Status | Meaning |',
  '| --- | --- | --- |',
  '| `steps` | supported | The steps; see [Steps](#steps). |',
  '| `type` | supported, differs | `graph` or `chain` (a `a|b` stays whole) |',
  '',
  '| Key | Status | Meaning |',
  '| --- | --- | --- |',
  '| `steps[].retry_policy` | supported | Retries. |',
  '| `steps[].retry_policy.limit` | supported | How many. |',
  '| `DAG_NAME` | set | An environment variable, not a key. |',
  '| `run with.shell` | supported | Not a key path. |',
].join('\n');

describe('the reference tables as dagu schema reads them', () => {
  it('splits rows on bars outside backticks', () => {
    expect(splitRow('| `a|b` | x \\| y | z |')).toEqual(['`a|b`', 'x | y', 'z']);
  });

  it('lists the lower-case top-level keys with their status', () => {
    expect(describeSchemaPath(readDocKeys(PAGE), undefined)).toEqual([
      expect.stringMatching(/^Top-level keys/),
      '  steps  (supported)',
      '  type  (supported, differs)',
    ]);
  });

  it('shows a key in full, links as text, with the keys one level under it', () => {
    expect(describeSchemaPath(readDocKeys(PAGE), 'steps')).toEqual([
      'steps',
      '  Status: supported',
      '  Meaning: The steps; see Steps.',
      '',
      'Keys under steps:',
      '  steps[].retry_policy  (supported)',
    ]);
    expect(describeSchemaPath(readDocKeys(PAGE), 'steps[].retry_policy.limit')?.[0]).toBe(
      'steps[].retry_policy.limit',
    );
  });

  it('returns null for a key the page does not document', () => {
    expect(describeSchemaPath(readDocKeys(PAGE), 'steps.nope')).toBeNull();
  });
});
