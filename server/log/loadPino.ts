// Loads pino when it is first needed. In the bundled CLI the literal `require('pino')` becomes a call into
// the bundle, run on first use; under an ES module runtime (the tests) Node's own require loads it.

import { createRequire } from 'node:module';
import type * as Pino from 'pino';

type PinoFunction = typeof Pino.default;

export function loadPino(): PinoFunction {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- esbuild bundles it, lazily
  if (typeof require === 'function') return require('pino') as PinoFunction;
  return createRequire(import.meta.url)('pino') as PinoFunction;
}
