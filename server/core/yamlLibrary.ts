// The YAML library, loaded on first use rather than at import: a run process whose DAG comes from the DAG
// cache and that reads no config file never needs it, and loading it costs a few milliseconds of every start.
// In the bundled CLI the name leads to its `yaml` part (scripts/bundle-parts/yaml.cjs); under an ES module
// runtime (the tests) Node's require loads it.

// eslint-disable-next-line no-restricted-imports -- loading a module, not I/O: core stays pure
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

export function yamlLibrary(): typeof Yaml {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- bundled, loaded lazily
  if (typeof require === 'function') return require('yaml') as typeof Yaml;
  return createRequire(import.meta.url)('yaml') as typeof Yaml;
}
