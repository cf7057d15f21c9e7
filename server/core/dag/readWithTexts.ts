// A step action's `with:` keys that must be text, read the same way by every action family that has them.

import { isScalar } from 'yaml';
import type { DagReader, Entry } from './dagReader';
import { describe, isNull } from './dagReader';

/** Copies each of `keys` present in `fields` into `w` when it is text; a null or a non-text is an error. */
export function readTextKeys(
  r: DagReader,
  fields: Map<string, Entry>,
  keys: readonly string[],
  w: Record<string, unknown>,
): void {
  for (const key of keys) {
    const e = fields.get(key);
    if (!e) continue;
    if (isNull(e.value)) {
      r.errorAt(e, 'must be a string, got nothing');
      continue;
    }
    const text = r.string(e);
    if (text !== undefined) w[key] = text;
  }
}

/**
 * Copies each of `keys` present in `fields` into `w` when it is written as a string (a number or a boolean is
 * an error, not text); `check` may refuse a value with a message.
 */
export function readStrictTextKeys(
  r: DagReader,
  fields: Map<string, Entry>,
  keys: readonly string[],
  w: Record<string, unknown>,
  check: (key: string, value: string) => string | null = () => null,
): void {
  for (const key of keys) {
    const e = fields.get(key);
    if (!e) continue;
    const v = isScalar(e.value) ? e.value.value : undefined;
    if (typeof v !== 'string') {
      r.errorAt(e, `must be a string, got ${describe(e.value)}`);
      continue;
    }
    const refused = check(key, v);
    if (refused !== null) {
      r.errorAt(e, refused);
      continue;
    }
    const text = r.string(e);
    if (text !== undefined) w[key] = text;
  }
}

/** Copies each of `keys` present in `fields` into `w` as a boolean; a null or a non-boolean is an error. */
export function readBooleanKeys(
  r: DagReader,
  fields: Map<string, Entry>,
  keys: readonly string[],
  w: Record<string, unknown>,
): void {
  for (const key of keys) {
    const e = fields.get(key);
    if (!e) continue;
    if (isNull(e.value)) r.errorAt(e, 'must be true or false, got nothing');
    const b = r.boolean(e);
    if (b !== undefined) w[key] = b;
  }
}
