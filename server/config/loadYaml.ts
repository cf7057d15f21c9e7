// The YAML parser, loaded on first use rather than at import: a command that reads no config file and whose
// DAG comes from the DAG cache (most run processes) never loads it. In the bundled CLI the name leads to its
// `yaml` part (scripts/bundle-parts/yaml.cjs); under an ES module runtime (the tests) Node's require loads it.

import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

export function loadYaml(): typeof Yaml {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- bundled, loaded lazily
  if (typeof require === 'function') return require('yaml') as typeof Yaml;
  return createRequire(import.meta.url)('yaml') as typeof Yaml;
}
