// Bundles the CLI with esbuild into CommonJS files (dist/cli.cjs, and dist/validate.cjs for `dagu validate`)
// and warms their V8 code caches, so that `dagu start` spends its time running steps rather than parsing
// JavaScript. The output depends on the sources and esbuild alone, never on the Node that runs the build; a
// code cache made by another Node is rejected by bin/dagu and made again.
//
// The build writes a new directory beside dist/ and swaps it in at the end: processes that start from dist/
// while it runs (other users of this tree, a scheduler's runs) find a complete build, old or new. Its code
// caches are warmed in place right after (see warmCodeCaches).
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CLI_BUNDLES, ENTRIES, PARTS } from './cliBundles.mjs';

/** The DAG `dagu validate` warms its code cache on: the keys and forms most DAG files use. */
const WARM_VALIDATE_DAG = `description: warms the code cache of dagu validate with the keys most DAG files use
schedule: ["0 * * * *"]
tags: [warm]
params:
  - MODE: full
env:
  - LEVEL: info
handler_on:
  failure:
    run: echo failed
steps:
  - name: extract
    run: echo "\${MODE}" && test -n "$HOME"
    output: ROWS
    env: [{ STEP: "1" }]
    retry_policy: { limit: 2, interval_sec: 1 }
    timeout_sec: 60
  - name: check
    depends: [extract]
    preconditions: [{ condition: "\${params.MODE}", expected: "re:^(full|fast)$" }]
    continue_on: { failure: true }
    run: |
      echo "$ROWS"
  - name: load
    depends: check
    action: dag.run
    with:
      dag: load
      params: "TARGET=warehouse"
---
name: load
params:
  - TARGET: ""
steps:
  - echo "loading into \${TARGET}"
`;

/** Sends our requires of the parts' packages (cliBundles.mjs) to `dagu-bundle:<part>`, which bin/dagu loads. */
const partsPlugin = {
  name: 'dagu-parts',
  setup(b) {
    b.onResolve(
      {
        filter: /^(cron-parser|luxon|pino|yaml|js-yaml|nodemailer|ajv\/dist\/2020|pg|pgpass|tar|yauzl|yazl)$/,
      },
      (args) =>
        args.importer.includes('node_modules')
          ? undefined
          : { path: `dagu-bundle:${PARTS[args.path]}`, external: true },
    );
  },
};

/**
 * Commander requires node:child_process when it loads, for subcommands run as separate executables, which
 * dagu does not use; loading that module (and node:net under it) is a noticeable part of a short command such
 * as `dagu validate`. In the bundle commander gets it when it would first spawn instead. The build fails if
 * commander's line changes, rather than bundling it unpatched.
 */
const COMMANDER_SPAWN = "const childProcess = require('node:child_process');";
const lazyChildProcessPlugin = {
  name: 'dagu-commander-lazy-child-process',
  setup(b) {
    b.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes(COMMANDER_SPAWN)) {
        throw new Error(
          `${args.path}: commander no longer has the line this build patches; update build-cli.mjs`,
        );
      }
      const lazy =
        "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };";
      return { contents: text.replace(COMMANDER_SPAWN, lazy), loader: 'js' };
    });
  },
};

// Identifies this build (server/cli/buildId.ts): what one build cached, another never reads. The first line
// of dist/cli.cjs names it too, which is how a scheduler tells that the build on disk has changed since it
// pre-started a run process (server/runner/spareRun.ts).
const BUILD_ID = `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;

// Beside dist/, so that the relative source paths in the source maps stay right once it is renamed.
const out = `dist.build-${process.pid}`;
rmSync(out, { recursive: true, force: true });
try {
  await buildInto(out);
  swapIntoDist(out);
} finally {
  rmSync(out, { recursive: true, force: true });
}
warmCodeCaches();

async function buildInto(out) {
  for (const [name, entry] of Object.entries(ENTRIES)) await buildEntry(out, name, entry);
  for (const part of new Set(Object.values(PARTS))) {
    await build({
      entryPoints: [`scripts/bundle-parts/${part}.cjs`],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      outfile: `${out}/${part}.cjs`,
      minify: true,
      keepNames: true,
      logLevel: 'warning',
    });
  }

  // bin/dagu reads the bundles as latin1, which is only the same text when every byte is ASCII (esbuild escapes
  // non-ASCII characters in strings; a literal one in a regular expression or template stays as it is).
  for (const name of CLI_BUNDLES) {
    const bundle = readFileSync(`${out}/${name}.cjs`);
    const nonAscii = bundle.findIndex((byte) => byte > 0x7f);
    if (nonAscii !== -1) {
      const at = bundle.subarray(Math.max(0, nonAscii - 60), nonAscii + 20).toString('utf8');
      throw new Error(
        `${name}.cjs has a non-ASCII byte at offset ${nonAscii}: …${at}… (escape it in the source)`,
      );
    }
  }
}

/** A bundle of the CLI's own sources, `dist/<name>.cjs` from `entry`, with the parts left out of it. */
async function buildEntry(out, name, entry) {
  await build({
    entryPoints: [entry],
    plugins: [partsPlugin, lazyChildProcessPlugin],
    define: { __DAGU_BUILD_ID__: JSON.stringify(BUILD_ID) },
    banner: { js: `// dagu build ${BUILD_ID}` },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // Dependencies are bundled (resolving hundreds of files from node_modules costs more than the CLI's own
    // work); only the console's stack stays external and is loaded by `dagu server` alone. zod, nearly half
    // the bundle, is only needed by the services that validate requests (coordinator, API): loaded from
    // node_modules by them, it stays out of the code every `dagu start` has to load.
    external: ['next', 'next/*', 'react', 'react-dom', '@tanstack/*', 'prom-client', 'zod'],
    outfile: `${out}/${name}.cjs`,
    minify: true,
    keepNames: true,
    sourcemap: 'linked',
    logLevel: 'warning',
    // server/log/loadPino.ts and server/core/cronLibrary.ts read import.meta.url only outside the bundle.
    logOverride: { 'empty-import-meta': 'silent' },
  });
}

/** Replaces dist/ with the new build; between the two renames, for a moment, there is no dist/. */
function swapIntoDist(out) {
  const old = `${out}.old`;
  if (existsSync('dist')) renameSync('dist', old);
  renameSync(out, 'dist');
  rmSync(old, { recursive: true, force: true });
}

// Warm the code caches: `dagu validate`'s bundle by validating a DAG, the parts with a scheduled run that
// logs (it parses its DAG too, and writes the YAML parts' caches last), then the main bundle with the command
// whose start-up time matters most, a quiet one-step run (the last run writes the main bundle's cache). That
// run is the second of its DAG, as nearly every run is: its DAG comes from the DAG cache, so the main
// bundle's code cache holds no YAML parser, which most runs never load (a file that changed gets it compiled
// on demand).
//
// They are warmed in dist/ itself, by this tree's bin/dagu, once the build is in place: V8 (Node 20) keeps the
// file name a script was compiled under in its code cache, and every stack trace of a process that loads the
// cache shows it. Warmed from a temporary copy, the traces of every run (a crash's included) named the
// copy's directory, deleted by then, rather than the bundle beside its source map. A process that starts in
// the moment between the swap and the warm-up runs without caches and may write its own, as after any
// rejected cache.
function warmCodeCaches() {
  const home = mkdtempSync(path.join(tmpdir(), 'dagu-build-'));
  try {
    const launcher = path.resolve('bin', 'dagu');
    mkdirSync(path.join(home, 'dags'));
    writeFileSync(path.join(home, 'dags', 'warm.yaml'), 'steps:\n  - name: t\n    command: "true"\n');
    writeFileSync(
      path.join(home, 'dags', 'scheduled.yaml'),
      'schedule: "*/5 * * * *"\nsteps:\n  - name: t\n    command: "true"\n',
    );
    const env = { ...process.env, DAGU_HOME: home, DAGU_CODE_CACHE: 'write' };
    // A cache holds the functions that ran when it was made, and a one-step DAG runs few of the readers: every
    // later `dagu validate` would compile the rest afresh (~10 ms for a 200-step DAG). So validate warms on a
    // DAG with the keys most files use.
    writeFileSync(path.join(home, 'dags', 'pipeline.yaml'), WARM_VALIDATE_DAG);
    try {
      execFileSync(process.execPath, [launcher, 'validate', 'pipeline'], { env, stdio: 'pipe' });
    } catch (err) {
      // The DAG follows the language: a change that makes it invalid has to change it too.
      throw new Error(`the DAG that warms dagu validate's code cache is invalid now:\n${err.stderr ?? err}`, {
        cause: err,
      });
    }
    execFileSync(process.execPath, [launcher, 'start', 'scheduled'], { env, stdio: 'ignore' });
    execFileSync(process.execPath, [launcher, 'start', '-q', 'warm'], { env, stdio: 'ignore' });
    // A code cache keeps every function it was loaded with: the last run starts without one.
    rmSync(path.join('dist', 'cli.cache'), { force: true });
    execFileSync(process.execPath, [launcher, 'start', '-q', 'warm'], { env, stdio: 'ignore' });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
