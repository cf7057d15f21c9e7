// `npm test`: builds, then runs every suite (checks, unit, integration, conformance, Playwright) and ends
// with one plain line `N passed, N failed` counted over all of them.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';

const out = path.resolve('test-results');
mkdirSync(out, { recursive: true });
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NO_COLOR: '1', FORCE_COLOR: '0' };
let passed = 0;
let failed = 0;
const problems = [];

function run(label, cmd, args, extraEnv = {}) {
  process.stdout.write(`\n== ${label}: ${cmd} ${args.join(' ')}\n`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...env, ...extraEnv } });
  return r.status ?? 1;
}

/** Installs Debian packages the browser and fault tests need, when missing and when we are root. */
function ensureSystemPackages() {
  const need = [];
  const has = (cmd) => spawnSync('sh', ['-c', cmd], { stdio: 'ignore' }).status === 0;
  if (!existsSync('/usr/bin/chromium')) need.push('chromium');
  if (!has('command -v fusermount3')) need.push('fuse3');
  if (!has("/usr/bin/python3 -c 'import fusepy' || /usr/bin/python3 -c 'import fuse'"))
    need.push('python3-fusepy');
  if (!has('command -v faketime')) need.push('faketime');
  if (!has('command -v openssl')) need.push('openssl'); // self-signed certificates for the TLS tests
  if (!has('command -v systemd-analyze')) need.push('systemd'); // `systemd-analyze verify` of deploy/systemd
  if (need.length === 0) return;
  if (process.getuid?.() !== 0) {
    problems.push(`missing Debian packages (install as root): apt-get install -y ${need.join(' ')}`);
    return;
  }
  run('install system packages', 'bash', [
    '-c',
    `apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${need.join(' ')}`,
  ]);
}

ensureSystemPackages();

// 1. Build what the tests run: the bundled CLI and the console.
if (run('build', 'npm', ['run', '--silent', 'build']) !== 0) {
  failed++;
  problems.push('build failed');
}

// 2. Static checks count as one test.
if (run('check', 'npm', ['run', '--silent', 'check']) === 0) passed++;
else {
  failed++;
  problems.push('npm run check failed (types, lint or format)');
}

// 3. Vitest: unit, integration and conformance projects.
const vitestJson = path.join(out, 'vitest.json');
rmSync(vitestJson, { force: true });
run('vitest', 'npx', [
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${vitestJson}`,
]);
if (existsSync(vitestJson)) {
  const v = JSON.parse(readFileSync(vitestJson, 'utf8'));
  passed += v.numPassedTests;
  failed += v.numFailedTests;
  if (v.numTotalTests === 0) problems.push('vitest ran no test');
  // A suite that failed to load counts as a failure even if it had no tests.
  for (const f of v.testResults ?? []) {
    if (f.status === 'failed' && (f.assertionResults ?? []).length === 0) {
      failed++;
      problems.push(`test file failed to load: ${f.name}`);
    }
  }
} else {
  failed++;
  problems.push('vitest produced no report');
}

// 4. Playwright in Debian's Chromium against the real processes.
const pwJson = path.join(out, 'playwright.json');
rmSync(pwJson, { force: true });
run('playwright', 'npx', ['playwright', 'test', '--reporter=list,json'], {
  PLAYWRIGHT_JSON_OUTPUT_NAME: pwJson,
});
if (existsSync(pwJson)) {
  const p = JSON.parse(readFileSync(pwJson, 'utf8'));
  passed += p.stats.expected;
  failed += p.stats.unexpected + p.stats.flaky;
  for (const e of p.errors ?? []) {
    failed++;
    problems.push(`playwright: ${String(e.message).split('\n')[0]}`);
  }
} else {
  failed++;
  problems.push('playwright produced no report');
}

for (const p of problems) process.stdout.write(`problem: ${p}\n`);
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
