// A step action's `with:` keys that must be text, read the same way by every action family that has them.

import type { DagReader, Entry } from './dagReader';
import { isNull } from './dagReader';

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
