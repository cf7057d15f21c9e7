// The files of the CLI's build in dist/ (scripts/build-cli.mjs): the bundles with an entry of their own and
// the parts some commands load. bin/dagu, a CommonJS launcher that reads nothing before it runs, names the same
// files itself; a test checks that the two agree.

/** The bundles with an entry of their own: the main one, and `dagu validate`'s (server/cli/validateMain.ts). */
export const ENTRIES = { cli: 'server/cli/main.ts', validate: 'server/cli/validateMain.ts' };

/**
 * Libraries that only some commands need are built as parts of their own (scripts/bundle-parts/), each
 * compiled with its own code cache when first required (bin/dagu): the main bundle, which every `dagu start`
 * reads and compiles, stays smaller, and a command that uses a part gets it from a warm cache. Our sources
 * keep requiring the package names; the build redirects those requires to the parts.
 */
export const PARTS = {
  'cron-parser': 'cron',
  luxon: 'cron',
  pino: 'pino',
  yaml: 'yaml',
  'js-yaml': 'jsyaml',
  nodemailer: 'mail',
  'ajv/dist/2020': 'jsonschema',
  pg: 'pg',
  pgpass: 'pgpass',
  tar: 'archive',
  yauzl: 'archive',
  yazl: 'archive',
};

/** Every `dist/<name>.cjs` of a complete build. */
export const CLI_BUNDLES = [...Object.keys(ENTRIES), ...new Set(Object.values(PARTS))];
