// Bundles the CLI with esbuild into one CommonJS file (dist/cli.cjs) and warms its V8 code cache, so that
// `dagu start` spends its time running steps rather than parsing JavaScript.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

rmSync('dist', { recursive: true, force: true });
await build({
  entryPoints: ['server/cli/main.ts'],
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

// bin/dagu reads the bundle as latin1, which is only the same text when every byte is ASCII (esbuild escapes
// non-ASCII characters in strings; a literal one in a regular expression or template stays as it is).
const bundle = readFileSync('dist/cli.cjs');
const nonAscii = bundle.findIndex((byte) => byte > 0x7f);
if (nonAscii !== -1) {
  const at = bundle.subarray(Math.max(0, nonAscii - 60), nonAscii + 20).toString('utf8');
  throw new Error(
    `dist/cli.cjs has a non-ASCII byte at offset ${nonAscii}: …${at}… (escape it in the source)`,
  );
}

// Warm the code cache with the commands whose start-up time matters (a one-step run, the version).
const home = mkdtempSync(path.join(tmpdir(), 'dagu-build-'));
try {
  mkdirSync(path.join(home, 'dags'));
  writeFileSync(path.join(home, 'dags', 'warm.yaml'), 'steps:\n  - name: t\n    command: "true"\n');
  const env = { ...process.env, DAGU_HOME: home, DAGU_CODE_CACHE: 'write', DAGU_LOG_LEVEL: 'error' };
  execFileSync(process.execPath, ['bin/dagu', 'start', '-q', 'warm'], { env, stdio: 'ignore' });
} finally {
  rmSync(home, { recursive: true, force: true });
}
