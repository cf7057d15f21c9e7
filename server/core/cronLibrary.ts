// cron-parser (with luxon under it) is loaded on the first schedule computed, not at import: `dagu start` of
// a DAG without a schedule never needs it, and loading it costs a few milliseconds of every start. In the
// bundled CLI both names lead to its `cron` part (scripts/bundle-parts/cron.cjs), loaded on this first call;
// other bundles inline the packages; under an ES module runtime (the tests) Node's own require loads them.

// eslint-disable-next-line no-restricted-imports -- loading a module, not I/O: core stays pure
import { createRequire } from 'node:module';
import type * as CronParser from 'cron-parser';

/** The part of luxon used here (luxon's own types are not a dependency). */
interface Luxon {
  Settings: { defaultLocale: string };
}

let parser: typeof CronParser.CronExpressionParser | null = null;

export function cronExpressionParser(): typeof CronParser.CronExpressionParser {
  if (parser === null) {
    const load =
      typeof require === 'function'
        ? (id: 'cron-parser' | 'luxon'): unknown =>
            // eslint-disable-next-line @typescript-eslint/no-require-imports -- bundled, loaded lazily
            id === 'cron-parser' ? require('cron-parser') : require('luxon')
        : createRequire(import.meta.url);
    // Every date luxon makes carries a locale; without a default one, the first date asks ICU for the
    // system locale, which costs about 25 ms here (the whole ICU locale set-up). Slot arithmetic never
    // formats a date, so a fixed locale changes no result.
    (load('luxon') as Luxon).Settings.defaultLocale = 'en-US';
    parser = (load('cron-parser') as typeof CronParser).CronExpressionParser;
  }
  return parser;
}
