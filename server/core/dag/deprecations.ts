// The legacy spellings Dagu 2.x still loads, and the deprecation warning `dagu validate` prints for each.

import type { Entry } from './dagReader';
import { isNull, writtenKey } from './dagReader';

/** Legacy step keys and what replaces them. */
const DEPRECATED_STEP_KEYS: ReadonlyArray<[string, string]> = [
  ['call', 'use action: dag.run with with.dag'],
  ['command', 'use run'],
  ['config', 'use with'],
  ['exec', 'use action: exec'],
  ['params', 'use action: dag.run with with.params'],
  ['routes', 'use action: router.route with with.routes'],
  ['script', 'use run'],
  ['shell', 'use run with with.shell'],
  ['shell_args', 'use run with with.shell_args'],
  ['type', 'use action'],
  ['value', 'use action: router.route with with.value'],
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
  for (const [key, advice] of DEPRECATED_STEP_KEYS) {
    const e = map.get(key);
    if (e && !isNull(e.value) && writtenKey(e) === key) out.push(deprecation(`${path}.${key}`, advice));
  }
  return out;
}
