// The Dagu DAG language conformance suite (issue 14): every case of every feature folder, run through the
// real `bin/dagu` with its own DAGU_HOME. Build the CLI first (`npm run build:cli`).

import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ROOT } from '../../tests/integration/harness';
import { concurrencyLimit, discoverFeatures, runCase } from './harness';
import { startServices, type Started } from './services';

/** Cases run at once: each is a `dagu start` plus its steps, on a 2-core machine. */
const limited = concurrencyLimit(4);

let services: Started;
beforeAll(async () => {
  if (!existsSync(path.join(ROOT, 'dist', 'cli.cjs')))
    throw new Error('the CLI is not built: run `npm run build:cli` first');
  services = await startServices();
});
afterAll(async () => {
  await services?.close();
});

const features = discoverFeatures();
const only = process.env.DAGU_CONFORMANCE_ONLY;

describe.concurrent('dagu DAG language', () => {
  for (const feature of features) {
    if (only && !feature.name.includes(only)) continue;
    for (const c of feature.cases) {
      it(`${feature.name} / ${c.name}`, { timeout: 180_000 }, () =>
        limited(() => runCase(feature, c, services)),
      );
    }
  }
});
