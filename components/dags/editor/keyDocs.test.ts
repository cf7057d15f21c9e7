import { describe, expect, it } from 'vitest';
import { generateKeyDocs, KEY_DOCS_FILE } from '../../../scripts/gen-dag-key-docs.mjs';
import table from './dagKeyDocs.json';
import { keyDocFor, pathText, type KeyDocTable } from './keyDocs';

const docs = table as KeyDocTable;

describe('the key documentation table', () => {
  it(`is what ${KEY_DOCS_FILE} was generated from docs/dag-reference.md (run npm run gen:keydocs)`, async () => {
    expect(JSON.parse(await generateKeyDocs())).toEqual(table);
  });
});

describe('keyDocFor', () => {
  it('finds a key by its path, list items left out', () => {
    const m = keyDocFor(docs, ['steps', '[]', 'retry_policy', 'limit'])!;
    expect(m).toMatchObject({
      path: 'steps[].retry_policy.limit',
      documented: 'steps.retry_policy.limit',
      exact: true,
    });
    expect(m.rows[0].key).toBe('steps[].retry_policy.limit');
    expect(m.rows[0].meaning).not.toBe('');
  });

  it('documents the step keys of a handler and of defaults as step keys', () => {
    expect(keyDocFor(docs, ['handler_on', 'failure', 'run'])).toMatchObject({
      documented: 'steps.run',
      exact: true,
    });
    expect(keyDocFor(docs, ['handler_on', 'failure'])).toMatchObject({ documented: 'handler_on.failure' });
    expect(keyDocFor(docs, ['defaults', 'timeout_sec'])).toMatchObject({ documented: 'steps.timeout_sec' });
  });

  it('falls back to the nearest documented parent, and to nothing outside any key', () => {
    expect(keyDocFor(docs, ['env', '[]', 'MY_VAR'])).toMatchObject({ documented: 'env', exact: false });
    expect(keyDocFor(docs, ['no_such_key'])).toBeNull();
    expect(keyDocFor(docs, [])).toBeNull();
  });

  it('writes paths as the reference does', () => {
    expect(pathText(['steps', '[]', 'depends', '[]'])).toBe('steps[].depends[]');
    expect(pathText(['[]'])).toBe('[]');
  });
});
