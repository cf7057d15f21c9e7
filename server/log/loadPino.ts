// Loads pino when it is first needed. In the bundled CLI the name leads to its `pino` part
// (scripts/bundle-parts/pino.cjs), loaded on this first call; other bundles inline or externalise the
// package; under an ES module runtime (the tests) Node's own require loads it.

import { createRequire } from 'node:module';
import type * as Pino from 'pino';

type PinoFunction = typeof Pino.default;

export function loadPino(): PinoFunction {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- bundled, loaded lazily
  if (typeof require === 'function') return require('pino') as PinoFunction;
  return createRequire(import.meta.url)('pino') as PinoFunction;
}
