// `npm start` helper: builds the CLI and the console when they are missing or older than the sources.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { CLI_BUNDLES } from './cliBundles.mjs';

const newest = (dir) => {
  let t = 0;
  if (!existsSync(dir)) return t;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) t = Math.max(t, newest(p));
    else t = Math.max(t, statSync(p).mtimeMs);
  }
  return t;
};
const mtime = (p) => (existsSync(p) ? statSync(p).mtimeMs : 0);
const sources = Math.max(newest('server'), newest('app'), newest('components'));
// The CLI is every bundle and part of its build.
const cliBuilt = Math.min(...CLI_BUNDLES.map((name) => mtime(`dist/${name}.cjs`)));
const cliSources = Math.max(
  sources,
  newest('scripts/bundle-parts'),
  mtime('scripts/build-cli.mjs'),
  mtime('scripts/cliBundles.mjs'),
);
const run = (script) => execFileSync('npm', ['run', '--silent', script], { stdio: 'inherit' });

if (cliBuilt < cliSources) run('build:cli');
if (mtime('.next/BUILD_ID') < sources) run('build:web');
