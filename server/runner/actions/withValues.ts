// Reads the fields of an action's `with` map the way Dagu decodes them: weakly typed, so a value that came
// out of a `${...}` reference as text ("true", "30") still counts as the boolean or number it spells.
// A value that cannot be read is reported with the field's name and the value as written.

/** A `with` field that cannot be read as the type the action needs. */
export class WithFieldError extends Error {
  constructor(
    readonly field: string,
    readonly value: unknown,
    expected: string,
  ) {
    super(`with.${field}: ${show(value)} is not ${expected}`);
    this.name = 'WithFieldError';
  }
}

function show(value: unknown): string {
  const text = typeof value === 'string' ? `'${value}'` : JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

const TRUE_WORDS = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE_WORDS = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False', '']);

/** A boolean field; absent or null is false. */
export function readBool(map: Record<string, unknown>, field: string): boolean {
  const value = map[field];
  if (value === undefined || value === null) return false;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') {
    if (TRUE_WORDS.has(value.trim())) return true;
    if (FALSE_WORDS.has(value.trim())) return false;
  }
  throw new WithFieldError(field, value, 'true or false');
}

/** A whole-number field; absent, null or empty is 0. */
export function readInt(map: Record<string, unknown>, field: string): number {
  const value = map[field];
  if (value === undefined || value === null || value === '') return 0;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number' && Number.isFinite(value)) return Math.trunc(value);
  if (typeof value === 'string' && /^\s*[-+]?\d+\s*$/.test(value)) return Number.parseInt(value, 10);
  throw new WithFieldError(field, value, 'a whole number');
}

/** A text field; absent or null is ''. Numbers and booleans are written as text. */
export function readString(map: Record<string, unknown>, field: string): string {
  const value = map[field];
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new WithFieldError(field, value, 'text');
}

/** A map of text values (headers, query, form); absent or null is empty. */
export function readStringMap(map: Record<string, unknown>, field: string): Record<string, string> {
  const value = map[field];
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new WithFieldError(field, value, 'a map');
  const out: Record<string, string> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    if (typeof item === 'object' && item !== null) throw new WithFieldError(`${field}.${key}`, item, 'text');
    out[key] = item === null || item === undefined ? '' : String(item);
  }
  return out;
}

/** A list of text values; a single text value is a list of one. Absent or null is empty. */
export function readStringList(map: Record<string, unknown>, field: string): string[] {
  const value = map[field];
  if (value === undefined || value === null) return [];
  const items = Array.isArray(value) ? value : [value];
  return items.map((item, i) => {
    if (typeof item === 'string') return item;
    if (typeof item === 'number' || typeof item === 'boolean') return String(item);
    throw new WithFieldError(Array.isArray(value) ? `${field}[${i}]` : field, item, 'text');
  });
}
