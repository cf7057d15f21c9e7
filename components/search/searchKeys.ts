// When the "/" key focuses the console's search box: not while the user types into a field, and not with a
// modifier (Ctrl+/ and the like belong to the browser).

/** What the key handler needs of the event's target. */
export interface KeyTarget {
  tagName?: string;
  isContentEditable?: boolean;
}

const TYPING_TAGS = new Set(['INPUT', 'TEXTAREA', 'SELECT']);

export function focusesSearch(
  key: { key: string; ctrlKey: boolean; metaKey: boolean; altKey: boolean },
  target: KeyTarget | null,
): boolean {
  if (key.key !== '/' || key.ctrlKey || key.metaKey || key.altKey) return false;
  if (!target) return true;
  if (target.isContentEditable) return false;
  return !TYPING_TAGS.has((target.tagName ?? '').toUpperCase());
}

/** The URL of the results page for `q`. */
export function searchHref(q: string): string {
  return `/search?q=${encodeURIComponent(q.trim())}`;
}
