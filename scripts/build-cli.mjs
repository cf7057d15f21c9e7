// Bundles the CLI with esbuild into one CommonJS file (dist/cli.cjs) and warms its V8 code cache, so that
// `dagu start` spends its time running steps rather than parsing JavaScript.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Libraries that only some commands need are built as parts of their own (scripts/bundle-parts/), each
 * compiled with its own code cache when first required (bin/dagu): the main bundle, which every `dagu start`
 * reads and compiles, stays smaller, and a command that uses a part gets it from a warm cache. Our sources
 * keep requiring the package names; this redirects those requires to the parts.
 */
const PARTS = { 'cron-parser': 'cron', luxon: 'cron', pino: 'pino', yaml: 'yaml' }; // bin/dagu lists the same parts
const partsPlugin = {
  name: 'dagu-parts',
  setup(b) {
    b.onResolve({ filter: /^(cron-parser|luxon|pino|yaml)$/ }, (args) =>
      args.importer.includes('node_modules')
        ? undefined
        : { path: `dagu-bundle:${PARTS[args.path]}`, external: true },
    );
  },
};

/**
 * commander requires child_process when it loads, only to run executable subcommands (dagu has none). Loading
 * child_process also loads net, dgram and the stream classes, a few milliseconds of every command's start;
 * commander gets a stand-in that loads it on first use instead.
 */
const lazyChildProcessPlugin = {
  name: 'dagu-lazy-child-process',
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      /[\\/]node_modules[\\/]commander[\\/]/.test(args.importer)
        ? { path: 'child_process', namespace: 'dagu-lazy-child-process' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'dagu-lazy-child-process' }, () => ({
      contents: "module.exports = { get spawn() { return require('node:child_process').spawn; } };",
      loader: 'js',
    }));
  },
};

/**
 * `import path from 'node:path'` in a CommonJS bundle makes every importing module copy the built-in's
 * properties into an object of its own (esbuild's interop with CommonJS), and every call then goes through a
 * getter; with some forty such imports that is measurable at each start. Our sources get these built-ins
 * from a module of the bundle instead, which exports the built-in itself as its default and each of its
 * functions by name. A property that is a getter loads code on first access (fs.promises loads
 * fs/promises with its stream and readline code): `promises` is exported as an object that reads through
 * to it on each use, and the other getters (stream classes, Dir) are not exported by name at all.
 */
const BUILTIN_MODULES = /^node:(fs|os|path)$/;
const builtinsPlugin = {
  name: 'dagu-builtins',
  setup(b) {
    b.onResolve({ filter: BUILTIN_MODULES }, (args) =>
      args.namespace === 'dagu-builtin' || /[\\/]node_modules[\\/]/.test(args.importer)
        ? undefined
        : { path: args.path, namespace: 'dagu-builtin' },
    );
    b.onLoad({ filter: /.*/, namespace: 'dagu-builtin' }, (args) => {
      // Asked of a fresh Node: in this process, a getter that was used has replaced itself with its value.
      const probe = `const m = require(${JSON.stringify(args.path)});
        JSON.stringify(Object.keys(m).filter((name) =>
          Object.getOwnPropertyDescriptor(m, name).get === undefined && /^[A-Za-z_$][\\w$]*$/.test(name)));`;
      const names = JSON.parse(execFileSync(process.execPath, ['-p', probe]).toString()).filter(
        (name) => name !== 'default' && name !== 'promises',
      );
      const lines = [
        `const m = require(${JSON.stringify(args.path)});`,
        'export default m;',
        `export const { ${names.join(', ')} } = m;`,
      ];
      if (args.path === 'node:fs') {
        lines.push('export const promises = new Proxy({}, { get: (_, key) => m.promises[key] });');
      }
      return { contents: lines.join('\n'), loader: 'js' };
    });
  },
};

// Identifies this build (server/cli/buildId.ts): what one build cached, another never reads.
const BUILD_ID = `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;

rmSync('dist', { recursive: true, force: true });
await build({
  entryPoints: ['server/cli/main.ts'],
  plugins: [partsPlugin, lazyChildProcessPlugin, builtinsPlugin],
  define: { __DAGU_BUILD_ID__: JSON.stringify(BUILD_ID) },
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // Dependencies are bundled (resolving hundreds of files from node_modules costs more than the CLI's own
  // work); only the console's stack stays external and is loaded by `dagu server` alone. zod, nearly half
  // the bundle, is only needed by the services that validate requests (coordinator, API): loaded from
  // node_modules by them, it stays out of the code every `dagu start` has to load.
  external: ['next', 'next/*', 'react', 'react-dom', '@tanstack/*', 'prom-client', 'zod'],
  outfile: 'dist/cli.cjs',
  minify: true,
  keepNames: true,
  sourcemap: 'linked',
  logLevel: 'warning',
  // server/log/loadPino.ts and server/core/cronLibrary.ts read import.meta.url only outside the bundle.
  logOverride: { 'empty-import-meta': 'silent' },
});

for (const part of new Set(Object.values(PARTS))) {
  await build({
    entryPoints: [`scripts/bundle-parts/${part}.cjs`],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile: `dist/${part}.cjs`,
    minify: true,
    keepNames: true,
    logLevel: 'warning',
  });
}

// The console's server and API router: a separate bundle that only `dagu server` and `start-all` load.
await build({
  entryPoints: ['server/api/webEntry.ts'],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['next', 'next/*', 'react', 'react-dom', '@tanstack/*', 'prom-client'],
  outfile: 'dist/web.cjs',
  keepNames: true,
  sourcemap: 'linked',
  logLevel: 'warning',
  logOverride: { 'empty-import-meta': 'silent' },
});

// bin/dagu reads the bundles as latin1, which is only the same text when every byte is ASCII (esbuild escapes
// non-ASCII characters in strings; a literal one in a regular expression or template stays as it is).
for (const name of ['cli', ...new Set(Object.values(PARTS))]) {
  const bundle = readFileSync(`dist/${name}.cjs`);
  const nonAscii = bundle.findIndex((byte) => byte > 0x7f);
  if (nonAscii !== -1) {
    const at = bundle.subarray(Math.max(0, nonAscii - 60), nonAscii + 20).toString('utf8');
    throw new Error(
      `dist/${name}.cjs has a non-ASCII byte at offset ${nonAscii}: …${at}… (escape it in the source)`,
    );
  }
}

// Warm the code caches: the parts with a scheduled run that logs, then the main bundle with the command
// whose start-up time matters most, a quiet one-step run (the last run writes the main bundle's cache). That
// run is the second of its DAG, as nearly every run is: its DAG comes from the DAG cache, so the main
// bundle's code cache holds no YAML parser, which most runs never load (a file that changed gets it compiled
// on demand).
const home = mkdtempSync(path.join(tmpdir(), 'dagu-build-'));
try {
  mkdirSync(path.join(home, 'dags'));
  writeFileSync(path.join(home, 'dags', 'warm.yaml'), 'steps:\n  - name: t\n    command: "true"\n');
  writeFileSync(
    path.join(home, 'dags', 'scheduled.yaml'),
    'schedule: "*/5 * * * *"\nsteps:\n  - name: t\n    command: "true"\n',
  );
  const env = { ...process.env, DAGU_HOME: home, DAGU_CODE_CACHE: 'write' };
  execFileSync(process.execPath, ['bin/dagu', 'start', 'scheduled'], { env, stdio: 'ignore' });
  execFileSync(process.execPath, ['bin/dagu', 'start', '-q', 'warm'], { env, stdio: 'ignore' });
  // A code cache keeps every function it was loaded with: the last run starts without one.
  rmSync('dist/cli.cache');
  execFileSync(process.execPath, ['bin/dagu', 'start', '-q', 'warm'], { env, stdio: 'ignore' });
} finally {
  rmSync(home, { recursive: true, force: true });
}
