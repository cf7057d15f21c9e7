// Which rows of the DAG reference document a key path (keyPath.ts): the key itself, else what the reference
// says for it elsewhere (a handler or `defaults` takes step keys), else its nearest documented parent.

/** One row of docs/dag-reference.md, as scripts/gen-dag-key-docs.mjs keeps it. */
export interface KeyDoc {
  key: string;
  status: string;
  shapes: string;
  meaning: string;
}

export type KeyDocTable = Readonly<Record<string, readonly KeyDoc[]>>;

/** What the side panel shows for a cursor path: the rows found, and whether they are the key's own. */
export interface KeyDocMatch {
  /** The cursor's key path as written: `steps[].retry_policy.limit`. */
  path: string;
  /** The reference path the rows are of (the key's, or a parent's when `exact` is false). */
  documented: string;
  exact: boolean;
  rows: readonly KeyDoc[];
}

/** `['steps', '[]', 'run']` as `steps[].run`. */
export function pathText(segments: readonly string[]): string {
  return segments.reduce((out, s) => (s === '[]' ? `${out}[]` : out === '' ? s : `${out}.${s}`), '');
}

/** Reference paths to try for a key path, most specific first. */
function candidates(keys: readonly string[]): string[][] {
  const out: string[][] = [keys.slice()];
  // A handler (`handler_on.failure`) and `defaults` are written with step keys.
  if (keys[0] === 'handler_on' && keys.length > 2) out.push(['steps', ...keys.slice(2)]);
  if (keys[0] === 'defaults' && keys.length > 1) out.push(['steps', ...keys.slice(1)]);
  return out;
}

/**
 * The reference rows for the key under the cursor (`segments` from keyPathAt), or null when neither it nor
 * any parent is documented (outside any key, or a key of a map of names such as `env`).
 */
export function keyDocFor(table: KeyDocTable, segments: readonly string[]): KeyDocMatch | null {
  const keys = segments.filter((s) => s !== '[]');
  if (keys.length === 0) return null;
  const path = pathText(segments);
  for (let len = keys.length; len > 0; len--) {
    for (const c of candidates(keys)) {
      const documented = c.slice(0, len - (keys.length - c.length)).join('.');
      if (documented === '') continue;
      const rows = Object.hasOwn(table, documented) ? table[documented] : undefined;
      if (rows && rows.length > 0) return { path, documented, exact: len === keys.length, rows };
    }
  }
  return null;
}
