import { yamlLanguage } from '@codemirror/lang-yaml';
import { describe, expect, it } from 'vitest';
import { keyPathAt } from './keyPath';

const TEXT = `description: nightly
steps:
  - name: a
    run: echo a
    retry_policy:
      limit: 3
  - {name: b, depends: [a]}
"handler_on":
  failure:
    run: echo failed
`;

/** The path at the first occurrence of `marker` (plus `offset` characters into it). */
function at(marker: string, offset = 0): string[] {
  const pos = TEXT.indexOf(marker) + offset;
  return keyPathAt(yamlLanguage.parser.parse(TEXT), TEXT, pos);
}

describe('keyPathAt', () => {
  it('names a top-level key, on its name and on its value', () => {
    expect(at('description')).toEqual(['description']);
    expect(at('nightly', 3)).toEqual(['description']);
  });

  it('goes through list items as [] and nested maps', () => {
    expect(at('run: echo a', 1)).toEqual(['steps', '[]', 'run']);
    expect(at('limit', 2)).toEqual(['steps', '[]', 'retry_policy', 'limit']);
    expect(at('retry_policy', 0)).toEqual(['steps', '[]', 'retry_policy']);
  });

  it('reads flow maps and lists, and quoted keys without their quotes', () => {
    expect(at('depends', 1)).toEqual(['steps', '[]', 'depends']);
    expect(at('[a]', 1)).toEqual(['steps', '[]', 'depends', '[]']);
    expect(at('run: echo failed', 1)).toEqual(['handler_on', 'failure', 'run']);
  });

  it('is empty outside any key', () => {
    expect(keyPathAt(yamlLanguage.parser.parse(''), '', 0)).toEqual([]);
  });
});
