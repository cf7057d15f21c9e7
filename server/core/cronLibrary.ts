// cron-parser (with luxon under it) is loaded on the first schedule computed, not at import: `dagu start` of
// a DAG without a schedule never needs it, and loading it costs a few milliseconds of every start. In the
// bundled CLI the literal `require('cron-parser')` becomes a call into the bundle; under an ES module
// runtime (the tests) Node's own require loads the package.

// eslint-disable-next-line no-restricted-imports -- loading a module, not I/O: core stays pure
import { createRequire } from 'node:module';
import type * as CronParser from 'cron-parser';

let parser: typeof CronParser.CronExpressionParser | null = null;

export function cronExpressionParser(): typeof CronParser.CronExpressionParser {
  if (parser === null) {
    const lib =
      typeof require === 'function'
        ? // eslint-disable-next-line @typescript-eslint/no-require-imports -- esbuild bundles it, lazily
          (require('cron-parser') as typeof CronParser)
        : (createRequire(import.meta.url)('cron-parser') as typeof CronParser);
    parser = lib.CronExpressionParser;
  }
  return parser;
}
