import { describe, expect, it } from 'vitest';
import { focusesSearch, searchHref } from './searchKeys';

const slash = { key: '/', ctrlKey: false, metaKey: false, altKey: false };

describe('the "/" shortcut', () => {
  it('focuses the search from the page, a link or a button', () => {
    expect(focusesSearch(slash, null)).toBe(true);
    expect(focusesSearch(slash, { tagName: 'BODY' })).toBe(true);
    expect(focusesSearch(slash, { tagName: 'a' })).toBe(true);
    expect(focusesSearch(slash, { tagName: 'BUTTON' })).toBe(true);
  });

  it('types a slash while the user is in a field', () => {
    for (const tagName of ['INPUT', 'textarea', 'SELECT'])
      expect(focusesSearch(slash, { tagName })).toBe(false);
    expect(focusesSearch(slash, { tagName: 'DIV', isContentEditable: true })).toBe(false);
  });

  it('ignores other keys and "/" with a modifier', () => {
    expect(focusesSearch({ ...slash, key: '?' }, null)).toBe(false);
    expect(focusesSearch({ ...slash, ctrlKey: true }, null)).toBe(false);
    expect(focusesSearch({ ...slash, metaKey: true }, null)).toBe(false);
    expect(focusesSearch({ ...slash, altKey: true }, null)).toBe(false);
  });
});

describe('searchHref', () => {
  it('puts the trimmed query in the URL', () => {
    expect(searchHref('  etl nightly ')).toBe('/search?q=etl%20nightly');
    expect(searchHref('a&b=c')).toBe('/search?q=a%26b%3Dc');
  });
});
