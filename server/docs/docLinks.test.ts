// Every relative link of the docs and the README leads to a file that exists, and to a heading that exists.

import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { deadLinks, headingSlug, pageAnchors, relativeLinks } from './docLinks';

const ROOT = path.resolve(import.meta.dirname, '../..');
const pages = [
  path.join(ROOT, 'README.md'),
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join(ROOT, 'docs', f)),
];

describe('the links of the docs', () => {
  it.each(pages.map((p) => [path.relative(ROOT, p), p]))('%s has no dead relative link', (_name, page) => {
    expect(deadLinks(page)).toEqual([]);
  });
});

describe('reading links and headings', () => {
  it('makes anchors the way GitHub does', () => {
    expect(headingSlug('Why `KillMode=process`')).toBe('why-killmodeprocess');
    expect(headingSlug('Set-up with systemd')).toBe('set-up-with-systemd');
    expect(headingSlug('Held runs and the wait timeout')).toBe('held-runs-and-the-wait-timeout');
    expect([...pageAnchors('# A\n## Notes\n```\n# not a heading\n```\n## Notes')]).toEqual([
      'a',
      'notes',
      'notes-1',
    ]);
    // An explicit anchor counts; one inside a code block does not.
    expect([...pageAnchors('<a id="live"></a>**Live.**\n```\n<a id="code"></a>\n```')]).toEqual(['live']);
  });

  it('takes relative links only, outside code', () => {
    const page = [
      'See [the guide](docs/README.md) and [alerts](metrics.md#alerts), [site](https://example.com).',
      '`[not](a-link.md)`',
      '```',
      '[nor](this.md)',
      '```',
    ].join('\n');
    expect(relativeLinks(page)).toEqual(['docs/README.md', 'metrics.md#alerts']);
  });
});
