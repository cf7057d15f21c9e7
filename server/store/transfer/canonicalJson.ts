// Comparing records read from the files with the same records read back from the database. The database
// returns JSON documents with their keys in any order (and numbers as they were written), so records are
// compared by a canonical text: keys sorted at every level.

/** JSON text of `value` with object keys sorted at every level; `undefined` fields are left out. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = sortKeys(v);
  }
  return out;
}

export function sameJson(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** The top-level fields whose values differ between two records, sorted; [] when they are the same. */
export function differingFields(a: object, b: object): string[] {
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ra), ...Object.keys(rb)]);
  return [...keys].filter((k) => !sameJson(ra[k], rb[k])).sort();
}

/** "fields x, y differ" for a finding's detail; a short list, or its first few and how many more. */
export function describeFields(fields: readonly string[]): string {
  const shown = fields.slice(0, 6).join(', ');
  const more = fields.length > 6 ? ` and ${fields.length - 6} more` : '';
  return `${fields.length === 1 ? 'field' : 'fields'} ${shown}${more} ${fields.length === 1 ? 'differs' : 'differ'}`;
}
