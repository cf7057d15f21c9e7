// The legacy spellings Dagu 2.x still loads, and the deprecation warning `dagu validate` prints for each.

import type { Entry } from './dagReader';
import { isNull, writtenKey } from './dagReader';

/** Legacy step keys and what replaces them, in the order their warnings are given. */
const DEPRECATED_STEP_KEYS: ReadonlyArray<{ key: string; advice: string }> = [
  { key: 'call', advice: 'use action: dag.run with with.dag' },
  { key: 'command', advice: 'use run' },
  { key: 'config', advice: 'use with' },
  { key: 'exec', advice: 'use action: exec' },
  { key: 'params', advice: 'use action: dag.run with with.params' },
  { key: 'routes', advice: 'use action: router.route with with.routes' },
  { key: 'script', advice: 'use run' },
  { key: 'shell', advice: 'use run with with.shell' },
  { key: 'shell_args', advice: 'use run with with.shell_args' },
  { key: 'type', advice: 'use action' },
  { key: 'value', advice: 'use action: router.route with with.value' },
];

/** One warning line, in the form `dagu validate` prints. */
export function deprecation(path: string, advice: string): string {
  return `Deprecated DAG syntax: ${path} is deprecated; ${advice}`;
}

/**
 * The warnings for one step at `path`: a string shorthand step (`map` null) or a step map. Dagu looks for the
 * legacy keys in lower case only: `Command:` is loaded (keys ignore case) without a warning.
 */
export function stepDeprecations(path: string, map: ReadonlyMap<string, Entry> | null): string[] {
  if (map === null) return [deprecation(`${path} string shorthand`, 'use run')];
  const out: string[] = [];
  // An indexed loop: this runs for every step of a file, mostly in V8's interpreter (a cold `dagu validate`),
  // where a for-of loop allocates an iterator result on every turn.
  for (let i = 0; i < DEPRECATED_STEP_KEYS.length; i++) {
    const { key, advice } = DEPRECATED_STEP_KEYS[i];
    const e = map.get(key);
    if (e && !isNull(e.value) && writtenKey(e) === key) out.push(deprecation(`${path}.${key}`, advice));
  }
  return out;
}
