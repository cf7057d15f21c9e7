// The key tables of our reference pages (docs/dag-reference.md, docs/configuration.md), read for
// `dagu schema`: every table row whose first cell is a `key`, with the table's column names. Pure: the page's
// text comes in.

/** One documented key: its name as the page writes it, the path it is looked up by, and its cells. */
export interface DocKey {
  key: string;
  /** Dot path without list markers: `steps[].retry_policy.limit` is `steps.retry_policy.limit`. */
  path: string;
  /** Column name and cell, after the key column, in the table's order. */
  fields: Array<[string, string]>;
}

/** Splits a table row into cells; a `|` inside backticks or escaped as `\|` stays in its cell. */
export function splitRow(line: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let code = false;
  const body = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '\\' && body[i + 1] === '|') {
      cell += '|';
      i++;
    } else if (c === '`') {
      code = !code;
      cell += c;
    } else if (c === '|' && !code) {
      cells.push(cell.trim());
      cell = '';
    } else cell += c;
  }
  cells.push(cell.trim());
  return cells;
}

/** Markdown of a cell as plain text: links become their text. */
function plain(text: string): string {
  return text.replace(/\[([^\]]+)\]\([^)]*\)/g, '$1');
}

/** Every documented key of a page, in page order. */
export function readDocKeys(markdown: string): DocKey[] {
  const keys: DocKey[] = [];
  const lines = markdown.split('\n');
  let headers: string[] | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line.startsWith('|')) {
      headers = null;
      continue;
    }
    if (headers === null) {
      // A header row is followed by the `| --- |` row.
      if (/^\|\s*:?-{3,}/.test(lines[i + 1] ?? '')) headers = splitRow(line);
      continue;
    }
    if (/^\|\s*:?-{3,}/.test(line)) continue;
    const cells = splitRow(line);
    const m = /^`([^`]+)`$/.exec(cells[0] ?? '');
    if (!m || /\s/.test(m[1])) continue;
    keys.push({
      key: m[1],
      path: m[1].replaceAll('[]', ''),
      fields: cells
        .slice(1)
        .map((c, j): [string, string] => [headers![j + 1] ?? `column ${j + 2}`, plain(c)]),
    });
  }
  return keys;
}

/**
 * What `dagu schema <page> [path]` prints: without a path, the top-level keys (one line each with the first
 * field, the status on the DAG page); with one, every row of that path in full and the keys under it.
 * Null when the path is not documented.
 */
export function describeSchemaPath(keys: readonly DocKey[], path: string | undefined): string[] | null {
  const summary = (k: DocKey) => `  ${k.key}${k.fields[0] ? `  (${k.fields[0][1]})` : ''}`;
  const lowerCaseKey = (k: DocKey) => /^[a-z]/.test(k.key);
  if (path === undefined || path === '') {
    const top = unique(keys.filter((k) => lowerCaseKey(k) && !k.path.includes('.')));
    return [
      'Top-level keys (dagu schema <dag|config> <key> shows one, with what is under it):',
      ...top.map(summary),
    ];
  }
  const want = path.replaceAll('[]', '');
  const rows = keys.filter((k) => k.path === want);
  const children = unique(
    keys.filter((k) => k.path.startsWith(`${want}.`) && !k.path.slice(want.length + 1).includes('.')),
  );
  if (rows.length === 0 && children.length === 0) return null;
  const out: string[] = [];
  for (const row of rows) {
    if (out.length > 0) out.push('');
    out.push(row.key, ...row.fields.map(([name, value]) => `  ${name}: ${value}`));
  }
  if (children.length > 0) {
    if (out.length > 0) out.push('');
    out.push(`Keys under ${want}:`, ...children.map(summary));
  }
  return out;
}

function unique(keys: readonly DocKey[]): DocKey[] {
  const seen = new Set<string>();
  return keys.filter((k) => !seen.has(k.path) && seen.add(k.path) !== undefined);
}
