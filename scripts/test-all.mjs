// `npm test`: builds, then runs every suite (checks, unit, integration, conformance, Playwright) and ends
// with one plain line `N passed, N failed, N skipped` counted over all of them (scripts/testCounts.mjs says
// what counts as a failure). It exits non-zero when anything failed or did not run.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import {
  addCounts,
  countMissingPackages,
  countPlaywright,
  countVitest,
  failures,
  noCounts,
  parseAllowedSkips,
  summaryLine,
} from './testCounts.mjs';

const root = process.cwd();
const out = path.resolve('test-results');
mkdirSync(out, { recursive: true });
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NO_COLOR: '1', FORCE_COLOR: '0' };
const ALLOWED_SKIPS = 'tests/allowed-skips.json';

/** Runs a command with inherited output; returns its exit status as spawnSync reports it. */
function run(label, cmd, args, extraEnv = {}) {
  process.stdout.write(`\n== ${label}: ${cmd} ${args.join(' ')}\n`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...env, ...extraEnv } });
  return { status: r.status, signal: r.signal };
}

/**
 * Runs npm scripts at once, each one's output kept and printed in one piece when it ends; true when every one
 * exited 0.
 */
async function runScriptsTogether(label, scripts) {
  process.stdout.write(`\n== ${label}: ${scripts.map((x) => `npm run ${x}`).join(' & ')}\n`);
  const ends = scripts.map(
    (script) =>
      new Promise((resolve) => {
        const child = spawn('npm', ['run', '--silent', script], { env });
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (t) => (out += t));
        child.stderr.setEncoding('utf8').on('data', (t) => (out += t));
        child.on('error', (err) => (out += `${err.message}\n`));
        child.on('close', (code, signal) => {
          const how = code === 0 ? 'passed' : `failed (${signal ?? `exit ${code}`})`;
          process.stdout.write(`\n-- ${script}: ${how}\n${out}`);
          resolve(code === 0);
        });
      }),
  );
  return (await Promise.all(ends)).every(Boolean);
}

/**
 * The npm scripts that `npm run check` chains with `&&` (`npm run a && npm run b ...`), or null when it is
 * written some other way.
 */
function checkScripts() {
  const check = readJson('package.json')?.scripts?.check;
  if (typeof check !== 'string') return null;
  const parts = check.split('&&').map((x) => /^\s*npm run ([\w:-]+)\s*$/.exec(x)?.[1]);
  return parts.every(Boolean) ? parts : null;
}

/** A JSON file a runner wrote, or null when it is missing or unreadable (the counting says so). */
function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/** The Debian packages the browser, fault and deploy tests need that are not installed. */
function missingSystemPackages() {
  const has = (cmd) => spawnSync('sh', ['-c', cmd], { stdio: 'ignore' }).status === 0;
  const need = [];
  if (!existsSync('/usr/bin/chromium')) need.push('chromium');
  if (!has('command -v fusermount3')) need.push('fuse3');
  // conformance/support/faultfs.py imports Debian's `fusepy` with the system interpreter.
  if (!has("/usr/bin/python3 -c 'import fusepy'")) need.push('python3-fusepy');
  if (!has('command -v faketime')) need.push('faketime');
  if (!has('command -v openssl')) need.push('openssl'); // self-signed certificates for the TLS tests
  if (!has('command -v systemd-analyze')) need.push('systemd'); // `systemd-analyze verify` of deploy/systemd
  if (!has('command -v promtool')) need.push('prometheus'); // `promtool check rules|metrics` of deploy/prometheus
  // initdb and pg_ctl for the PostgreSQL store tests' throwaway clusters (server/testing/postgresCluster.ts).
  if (!has('ls /usr/lib/postgresql/*/bin/initdb')) need.push('postgresql');
  return need;
}

/** Installs missing packages when we are root; every package still missing afterwards is a failure. */
function ensureSystemPackages() {
  const rootUser = process.getuid?.() === 0;
  let missing = missingSystemPackages();
  if (missing.length > 0 && rootUser) {
    run('install system packages', 'bash', [
      '-c',
      `apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${missing.join(' ')}`,
    ]);
    missing = missingSystemPackages();
  }
  return countMissingPackages(missing, { root: rootUser });
}

const results = [ensureSystemPackages()];
const allowed = existsSync(ALLOWED_SKIPS)
  ? parseAllowedSkips(readFileSync(ALLOWED_SKIPS, 'utf8'))
  : { skips: [], counts: failures([`${ALLOWED_SKIPS} is missing`]) };
results.push(allowed.counts);

// 1. Build what the tests run: the bundled CLI and the console.
if (run('build', 'npm', ['run', '--silent', 'build']).status !== 0) results.push(failures(['build failed']));

// 2. Static checks count as one test. The scripts `npm run check` chains (types, lint, format) run at once:
// ESLint alone takes a core for about two minutes, and tsc and Prettier fit beside it on the other.
const checks = checkScripts();
const checked = checks
  ? await runScriptsTogether('check', checks)
  : run('check', 'npm', ['run', '--silent', 'check']).status === 0;
if (checked) results.push({ ...noCounts(), passed: 1 });
else results.push(failures(['npm run check failed (types, lint or format)']));

// 3. Vitest: unit, integration and conformance projects.
const vitestJson = path.join(out, 'vitest.json');
const vitestRunErrors = path.join(out, 'vitest-run-errors.json');
rmSync(vitestJson, { force: true });
rmSync(vitestRunErrors, { force: true });
const vitestExit = run(
  'vitest',
  'npx',
  [
    'vitest',
    'run',
    '--reporter=default',
    '--reporter=json',
    '--reporter=./scripts/vitestRunErrors.mjs',
    `--outputFile.json=${vitestJson}`,
  ],
  { TEST_ALL_RUN_ERRORS: vitestRunErrors },
);
results.push(
  countVitest({
    report: readJson(vitestJson),
    runErrors: readJson(vitestRunErrors),
    exit: vitestExit,
    allowedSkips: allowed.skips,
    root,
  }),
);

// 4. Playwright in Debian's Chromium against the real processes.
const pwJson = path.join(out, 'playwright.json');
rmSync(pwJson, { force: true });
const pwExit = run('playwright', 'npx', ['playwright', 'test', '--reporter=list,json'], {
  PLAYWRIGHT_JSON_OUTPUT_NAME: pwJson,
});
results.push(countPlaywright({ report: readJson(pwJson), exit: pwExit, allowedSkips: allowed.skips }));

const total = addCounts(...results);
for (const n of total.notes) process.stdout.write(`allowed skip: ${n}\n`);
for (const p of total.problems) process.stdout.write(`problem: ${p}\n`);
process.stdout.write(`\n${summaryLine(total)}\n`);
process.exit(total.failed > 0 ? 1 : 0);
