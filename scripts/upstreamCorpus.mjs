#!/usr/bin/env node
// Runs our real `bin/dagu` over every DAG file of an upstream Dagu checkout: its examples, the DAGs in its
// Markdown docs, its conformance specs' testdata, other test DAG files and (unless --no-go) the DAG texts
// embedded in its Go integration tests. It says, file by file, whether `dagu validate` accepts each one,
// refuses it as an unsupported Dagu feature, or rejects it, and compares that with what upstream expects.
// With --run it also starts the conformance cases whose outcome upstream's tests state
// (scripts/upstreamCorpusExpectations.mjs) and compares exit codes and the files the steps wrote.
//
//   npm run build:cli            # bin/dagu runs dist/cli.cjs: build it after changing the sources
//   node scripts/upstreamCorpus.mjs <upstream-checkout> [--run] [--only <text>] [--no-go] [--jobs <n>]
//                                   [--json <file>] [--md <file>]
//
// Each file is checked in a temp project: a copy of its folder (the whole testdata folder for conformance
// files, as upstream's harness does), with its own DAGU_HOME, so relative references work and nothing is
// shared. Exit status: 1 when a file upstream loads is rejected, a file upstream rejects is accepted, or a
// --run case differs; 0 otherwise.

import { execFileSync, spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { clearTimeout, setTimeout } from 'node:timers';
import path from 'node:path';
import { INVALID, RUNS, START_FAILS } from './upstreamCorpusExpectations.mjs';
import {
  classifyValidate,
  compareRun,
  upstreamParserRefusesToo,
  upstreamLoaderRefusesToo,
  onlyCycleWarning,
  errorLinesOf,
  globPaths,
  goRawDagsOf,
  parseWorktreeList,
  UNSUPPORTED_MARK,
  judge,
  startArgs,
  withoutEntrypointName,
  yamlBlocksOf,
} from './upstreamCorpusLib.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const DAGU = path.join(ROOT, 'bin', 'dagu');
const COMMAND_TIMEOUT_MS = 60_000;

/**
 * One DAG file of the corpus.
 * @typedef {object} Entry
 * @property {string} id where it comes from: a path, with `:<line>` for a DAG inside another file
 * @property {string} group examples, docs, conformance, testdata or go-tests
 * @property {string | null} folder folder to copy into the temp project (null: the DAG text alone)
 * @property {string} file the DAG file's path inside the temp project
 * @property {string | null} text the DAG text, for DAGs found inside another file
 * @property {import('./upstreamCorpusLib.mjs').Expectation} expect
 */

function usage(message) {
  if (message) console.error(`upstreamCorpus: ${message}`);
  console.error(
    'usage: node scripts/upstreamCorpus.mjs <upstream-checkout> [--run] [--only <text>] [--no-go] [--jobs <n>] [--json <file>] [--md <file>]',
  );
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { upstream: '', run: false, only: '', go: true, jobs: 2, json: '', md: '' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--run') opts.run = true;
    else if (a === '--no-go') opts.go = false;
    else if (a === '--only') opts.only = argv[++i] ?? usage('--only needs a value');
    else if (a === '--jobs') opts.jobs = Number(argv[++i]);
    else if (a === '--json') opts.json = argv[++i] ?? usage('--json needs a file');
    else if (a === '--md') opts.md = argv[++i] ?? usage('--md needs a file');
    else if (a.startsWith('-')) usage(`unknown option ${a}`);
    else if (!opts.upstream) opts.upstream = path.resolve(a);
    else usage(`unexpected argument ${a}`);
  }
  if (!opts.upstream) usage('the path of an upstream Dagu checkout is required');
  if (!existsSync(path.join(opts.upstream, 'conformance'))) {
    usage(`${opts.upstream} has no conformance/ folder: is it a checkout of dagucloud/dagu?`);
  }
  if (!Number.isInteger(opts.jobs) || opts.jobs < 1) usage('--jobs must be a positive integer');
  return opts;
}

/** Refuses to run a missing build and warns about a stale one: bin/dagu runs dist/cli.cjs, not the sources. */
function checkBuild() {
  const bundle = path.join(ROOT, 'dist', 'cli.cjs');
  if (!existsSync(bundle)) {
    console.error('upstreamCorpus: dist/cli.cjs is missing; build it first with `npm run build:cli`');
    process.exit(2);
  }
  const built = statSync(bundle).mtimeMs;
  let newest = { file: '', mtime: 0 };
  const walk = (dir) => {
    for (const d of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, d.name);
      if (d.isDirectory()) walk(p);
      else if (/\.tsx?$/.test(d.name) && !d.name.endsWith('.test.ts')) {
        const m = statSync(p).mtimeMs;
        if (m > newest.mtime) newest = { file: p, mtime: m };
      }
    }
  };
  walk(path.join(ROOT, 'server'));
  if (newest.mtime > built) {
    console.error(
      `upstreamCorpus: warning: dist/cli.cjs is older than ${path.relative(ROOT, newest.file)}; run \`npm run build:cli\` to check the current sources`,
    );
  }
}

/** Every file under dir (relative paths), skipping node_modules and dot folders. */
function filesUnder(dir) {
  const out = [];
  const walk = (d, rel) => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(d, e.name), r);
      else out.push(r);
    }
  };
  walk(dir, '');
  return out.sort();
}

const isYaml = (f) => /\.ya?ml$/.test(f);
/** Non-DAG YAML of the repository (CI, Helm, Kubernetes, Compose, configs) is left out by its top-level keys. */
const isDagText = (text) => /^steps:/m.test(text);

/**
 * The corpus of an upstream checkout.
 * @param {string} up
 * @param {{ go: boolean }} opts
 * @returns {Entry[]}
 */
function collect(up, opts) {
  /** @type {Entry[]} */
  const entries = [];
  const all = filesUnder(up);
  // Conformance specs: every YAML file of each testdata folder, checked inside a copy of that folder.
  for (const spec of readdirSync(path.join(up, 'conformance')).sort()) {
    const td = path.join(up, 'conformance', spec, 'testdata');
    if (!/^spec\d+/.test(spec) || !existsSync(td)) continue;
    const invalid = new Set(INVALID[spec] ?? []);
    const startFails = new Set(START_FAILS[spec] ?? []);
    for (const rel of filesUnder(td).filter(isYaml)) {
      entries.push({
        id: `conformance/${spec}/testdata/${rel}`,
        group: 'conformance',
        folder: td,
        file: rel,
        text: null,
        expect: invalid.has(rel) ? 'invalid' : startFails.has(rel) ? 'start-fails' : 'valid',
      });
    }
  }
  // Example DAG files and other test DAG folders outside conformance/.
  for (const rel of all.filter(isYaml)) {
    if (rel.startsWith('conformance/') || rel.startsWith('charts/') || rel.startsWith('.github/')) continue;
    const text = readFileSync(path.join(up, rel), 'utf8');
    if (!isDagText(text)) continue;
    const group = rel.startsWith('examples/') || rel.startsWith('deploy/') ? 'examples' : 'testdata';
    entries.push({
      id: rel,
      group,
      folder: path.join(up, path.dirname(rel)),
      file: path.basename(rel),
      text: null,
      expect: 'valid',
    });
  }
  // DAGs in the Markdown docs.
  for (const rel of all.filter((f) => f.endsWith('.md') && !f.startsWith('ui/'))) {
    for (const block of yamlBlocksOf(readFileSync(path.join(up, rel), 'utf8'))) {
      entries.push(embedded(`${rel}:${block.line}`, 'docs', block, block.invalid ? 'invalid' : 'valid'));
    }
  }
  // DAG texts embedded in Go integration tests: their expectation is not tabled here.
  if (opts.go) {
    for (const rel of all.filter((f) => /^internal\/intg\/.*_test\.go$/.test(f))) {
      for (const dag of goRawDagsOf(readFileSync(path.join(up, rel), 'utf8'))) {
        entries.push(embedded(`${rel}:${dag.line}`, 'go-tests', dag, 'unknown'));
      }
    }
  }
  return entries;
}

/** @returns {Entry} */
function embedded(id, group, dag, expect) {
  const [source, line] = id.split(':');
  const stem = path
    .basename(source)
    .replace(/\.[^.]+$/, '')
    .replace(/[^A-Za-z0-9_-]/g, '_');
  return { id, group, folder: null, file: `${stem}_L${line}.yaml`, text: dag.text, expect };
}

/** A temp project holding the entry's folder (or its DAG text alone). */
function makeProject(entry) {
  const dir = mkdtempSync(path.join(tmpdir(), 'upstream-corpus-'));
  const project = path.join(dir, 'project');
  if (entry.folder) cpSync(entry.folder, project, { recursive: true });
  else mkdirSync(project);
  if (entry.text !== null) writeFileSync(path.join(project, entry.file), entry.text);
  return { dir, project };
}

/** Runs bin/dagu in a project with its own DAGU_HOME and a small environment. */
function dagu(args, project, home, extraEnv = {}) {
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    LANG: 'C.UTF-8',
    DAGU_HOME: path.join(home, 'dagu'),
    PWD: project,
    ...extraEnv,
  };
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [DAGU, ...args], {
      cwd: project,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b) => (stdout += b));
    child.stderr.on('data', (b) => (stderr += b));
    const timer = setTimeout(() => child.kill('SIGKILL'), COMMAND_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code: signal ? null : code,
        stdout,
        stderr: signal ? `${stderr}\n(killed: ${signal} after ${COMMAND_TIMEOUT_MS} ms)` : stderr,
      });
    });
  });
}

/** stderr lines worth reporting, with the temp project's path taken out. */
function reportLines(stderr, project) {
  const errors = errorLinesOf(stderr);
  const lines = errors.length > 0 ? errors : stderr.split('\n').filter((l) => l.trim() !== '');
  return lines.map((l) => l.split(project + path.sep).join('')).slice(0, 6);
}

/**
 * Validates one entry. A file whose first document has a top-level `name:` is validated twice: as it is
 * (upstream's validate rejects it, so ours must too) and without that line (the rest must pass).
 */
async function validate(entry) {
  const { dir, project } = makeProject(entry);
  try {
    const home = path.join(dir, 'home');
    mkdirSync(home);
    const filePath = path.join(project, entry.file);
    const original = readFileSync(filePath, 'utf8');
    const stripped = entry.expect === 'invalid' ? null : withoutEntrypointName(original);
    /** @type {string | undefined} */
    let entrypointName;
    if (stripped !== null) {
      const asIs = await dagu(['validate', entry.file], project, home);
      entrypointName = asIs.code === 0 ? 'accepted (upstream validate rejects it)' : 'rejected as upstream';
      writeFileSync(filePath, stripped);
    }
    const res = await dagu(['validate', entry.file], project, home);
    const cls = classifyValidate(res);
    let { verdict, failed } = judge(cls, entry.expect);
    if (entrypointName?.startsWith('accepted')) failed = true;
    const lines = reportLines(res.stderr, project);
    if (verdict === 'error' && entry.group === 'docs' && upstreamParserRefusesToo(lines)) {
      // The doc's YAML is refused by upstream's parser as well: what upstream would do, not a difference.
      verdict = 'rejected';
      failed = false;
    }
    if (verdict === 'error' && entry.group !== 'conformance' && upstreamLoaderRefusesToo(lines)) {
      // A fragment of a DAG in a doc, or an example older than upstream's loader: upstream rejects it too.
      verdict = 'rejected';
      failed = false;
    }
    if (verdict === 'accepted' && entry.group === 'docs' && onlyCycleWarning(lines)) {
      // Upstream loads a cycle and fails it at start, as its conformance test of the same DAG says.
      verdict = 'ok';
      failed = false;
    }
    return {
      id: entry.id,
      group: entry.group,
      expect: entry.expect,
      cls,
      verdict,
      failed,
      code: res.code,
      entrypointName,
      lines,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Whether a command is on this machine's PATH (a case whose steps run it needs it). */
function onPath(command) {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .some((dir) => dir !== '' && existsSync(path.join(dir, command)));
}

async function runCase(up, rc) {
  const label = `${rc.spec}/${rc.file}${rc.params ? ` (params ${rc.params})` : ''}`;
  const missing = (rc.tools ?? []).filter((t) => !onPath(t));
  if (missing.length > 0) return { label, diffs: [], missing, unsupported: false, feature: '', tail: [] };
  const folder = path.join(up, 'conformance', rc.spec, 'testdata');
  const { dir, project } = makeProject({ folder, text: null, file: rc.file });
  try {
    const home = path.join(dir, 'home');
    mkdirSync(home);
    for (const d of rc.setup?.dirs ?? []) mkdirSync(path.join(project, d), { recursive: true });
    for (const [f, content] of Object.entries(rc.setup?.files ?? {})) {
      mkdirSync(path.dirname(path.join(project, f)), { recursive: true });
      writeFileSync(path.join(project, f), content);
    }
    // The harness's WriteExecutable: a script a step runs by its path, so it needs the execute bit.
    for (const [f, content] of Object.entries(rc.setup?.executables ?? {})) {
      mkdirSync(path.dirname(path.join(project, f)), { recursive: true });
      writeFileSync(path.join(project, f), content, { mode: 0o755 });
    }
    /** @type {Map<string, string>} each repository's first commit, for `linked` */
    const baseCommits = new Map();
    for (const r of rc.setup?.repos ?? []) baseCommits.set(r, initRepository(path.join(project, r)));
    // `{project}` in a value is the case's project folder (upstream's harness gives it as ProjectPath).
    const env = Object.fromEntries(
      Object.entries(rc.env ?? {}).map(([k, v]) => [k, v.split('{project}').join(project)]),
    );
    // Earlier starts of the test, in the same project: each must succeed, as the test asserts before it
    // goes on; `remove` clears the files it wrote that the case's own start writes again.
    const setupDiffs = [];
    for (const before of rc.setup?.starts ?? []) {
      const res = await dagu(startArgs(before.file, before), project, home, env);
      if (res.code !== 0) {
        setupDiffs.push(`setup start ${before.file} exit ${res.code}, expected 0`);
        for (const line of reportLines(res.stderr, project).slice(0, 2))
          setupDiffs.push(`setup stderr: ${line}`);
      }
      for (const f of before.remove ?? []) rmSync(path.join(project, f), { force: true });
    }
    const res = await dagu(startArgs(rc.file, rc), project, home, env);
    const read = (name) => {
      const p = path.join(project, name);
      if (!existsSync(p)) return null;
      return statSync(p).isDirectory() ? '' : readFileSync(p, 'utf8');
    };
    /** @type {import('./upstreamCorpusLib.mjs').ProjectProbe} */
    const probe = {
      glob: (pattern) =>
        globPaths(pattern, (d) => {
          const p = path.join(project, d);
          return existsSync(p) && statSync(p).isDirectory() ? readdirSync(p) : [];
        }),
      worktree: (repo, rel) => {
        let listed = '';
        try {
          listed = execFileSync('git', ['-C', path.join(project, repo), 'worktree', 'list', '--porcelain'], {
            encoding: 'utf8',
            stdio: ['ignore', 'pipe', 'ignore'],
          });
        } catch {
          // Not a repository (any more): it lists nothing.
        }
        const want = canonicalPath(path.join(project, rel));
        const entry = parseWorktreeList(listed).find((e) => canonicalPath(e.path) === want) ?? null;
        return { entry, base: baseCommits.get(repo) ?? '' };
      },
    };
    // A file refused as an unsupported Dagu feature is not a run difference: the validate list reports it.
    const unsupported = res.code === 2 && res.stderr.includes(UNSUPPORTED_MARK);
    // A file upstream's loader refuses exits 1 there and 2 here, as every refused file does.
    const expect = withProject(
      rc.refusedAtLoad && rc.expect.exit === 1 ? { ...rc.expect, exit: 2 } : rc.expect,
      project,
    );
    const diffs = unsupported ? [] : [...setupDiffs, ...compareRun(expect, res, read, probe)];
    const tail = res.stderr
      .split('\n')
      .filter((l) => /error|fail|invalid|not supported/i.test(l))
      .slice(0, 2);
    const feature = unsupported
      ? (errorLinesOf(res.stderr)[0] ?? '').replace(/^.*?: (?=\S+: Dagu's)/, '')
      : '';
    return { label, diffs, unsupported, feature, code: res.code, tail };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The expectation with `{project}` in its strings (not in file names, not in RegExps) replaced by the
 * project folder, as a test compares a value with ProjectPath(...).
 * @template T
 * @param {T} value
 * @param {string} project
 * @returns {T}
 */
function withProject(value, project) {
  if (typeof value === 'string') return /** @type {T} */ (value.split('{project}').join(project));
  if (Array.isArray(value)) return /** @type {T} */ (value.map((v) => withProject(v, project)));
  if (value !== null && typeof value === 'object' && !(value instanceof RegExp)) {
    return /** @type {T} */ (
      Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withProject(v, project)]))
    );
  }
  return value;
}

/**
 * A path with its existing ancestor's symlinks resolved and the missing rest kept, as spec030's
 * canonicalPath makes both sides of a worktree comparison (a removed worktree's path may be gone).
 */
function canonicalPath(p) {
  let existing = path.resolve(p);
  const rest = [];
  while (!existsSync(existing) && path.dirname(existing) !== existing) {
    rest.unshift(path.basename(existing));
    existing = path.dirname(existing);
  }
  return path.join(realpathSync(existing), ...rest);
}

/**
 * A git repository on `main` with one commit of base.txt, as spec030's initRepository makes it.
 * @returns {string} that commit
 */
function initRepository(dir) {
  const env = {
    ...process.env,
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'Dagu Conformance',
    GIT_AUTHOR_EMAIL: 'dagu-conformance@example.com',
    GIT_COMMITTER_NAME: 'Dagu Conformance',
    GIT_COMMITTER_EMAIL: 'dagu-conformance@example.com',
  };
  const git = (...args) => execFileSync('git', args, { cwd: dir, env, stdio: 'ignore' });
  mkdirSync(dir, { recursive: true });
  git('init', '-q');
  git('symbolic-ref', 'HEAD', 'refs/heads/main');
  writeFileSync(path.join(dir, 'base.txt'), 'base\n');
  git('add', '--', 'base.txt');
  git('commit', '-q', '-m', 'initial');
  return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir, env, encoding: 'utf8' }).trim();
}

/** Runs fn over items, at most `jobs` at a time, keeping the order of items in the results. */
async function pool(items, jobs, fn) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, items.length) }, worker));
  return results;
}

function summaryTable(results) {
  const verdicts = [
    'ok',
    'unsupported',
    'unsupported+',
    'error',
    'rejected',
    'accepted',
    'early',
    'rejected?',
  ];
  const groups = [...new Set(results.map((r) => r.group))];
  const lines = [
    `| group | files | ${verdicts.join(' | ')} |`,
    `|---|---|${verdicts.map(() => '---').join('|')}|`,
  ];
  for (const g of [...groups, 'total']) {
    const rs = g === 'total' ? results : results.filter((r) => r.group === g);
    const counts = verdicts.map((v) => rs.filter((r) => r.verdict === v).length);
    lines.push(`| ${g} | ${rs.length} | ${counts.join(' | ')} |`);
  }
  return lines.join('\n');
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  checkBuild();
  let entries = collect(opts.upstream, opts);
  if (opts.only) entries = entries.filter((e) => e.id.includes(opts.only));
  console.error(`upstreamCorpus: validating ${entries.length} DAG files with ${opts.jobs} at a time`);
  const results = await pool(entries, opts.jobs, validate);

  const out = [];
  out.push('## dagu validate over the upstream corpus', '');
  out.push(
    'Verdicts: ok (accepted), unsupported (refused as a Dagu feature not supported here), unsupported+ (refused as unsupported, with other errors too), error (rejected though upstream loads it), rejected (rejected, as upstream does), accepted (accepted though upstream rejects it), early (rejected at validate; upstream fails it at start), rejected? (rejected; upstream expectation not tabled).',
    '',
  );
  out.push(summaryTable(results), '');
  const named = results.filter((r) => r.entrypointName !== undefined);
  out.push(
    `Files whose first document sets \`name:\` (upstream's validate rejects that; the verdict is for the file without it): ${named.length}, ours ${named.every((r) => r.entrypointName === 'rejected as upstream') ? 'rejects every one as upstream does' : 'ACCEPTS some (see below)'}.`,
    '',
  );
  out.push('### Per file', '');
  for (const r of results) {
    const mark = r.entrypointName?.startsWith('accepted') ? ' [entrypoint name accepted]' : '';
    out.push(`- ${r.verdict.padEnd(12)} ${r.id}${mark}`);
    if (r.verdict !== 'ok' && r.verdict !== 'rejected') {
      for (const l of r.lines.length > 0 ? r.lines : [`(exit ${r.code}, no stderr)`])
        out.push(`      ${l.slice(0, 400)}`);
    }
  }

  let runResults = [];
  if (opts.run) {
    const cases = opts.only ? RUNS.filter((c) => `${c.spec}/${c.file}`.includes(opts.only)) : RUNS;
    console.error(`upstreamCorpus: starting ${cases.length} conformance cases`);
    runResults = await pool(cases, opts.jobs, (c) => runCase(opts.upstream, c));
    const differ = runResults.filter((r) => r.diffs.length > 0);
    const blocked = runResults.filter((r) => r.unsupported);
    const notRun = runResults.filter((r) => r.missing);
    const matched = runResults.length - differ.length - blocked.length - notRun.length;
    out.push('', '## dagu start against upstream conformance expectations', '');
    out.push(
      `${matched} of ${runResults.length} cases match; ${differ.length} differ; ${blocked.length} are refused as unsupported; ${notRun.length} not run (a tool their steps run is not on this machine).`,
      '',
    );
    for (const r of runResults) {
      if (r.missing) out.push(`- NOT RUN ${r.label}: needs ${r.missing.join(', ')} on PATH`);
      else if (r.unsupported) out.push(`- unsupported ${r.label}: ${r.feature.slice(0, 200)}`);
      else if (r.diffs.length === 0) out.push(`- match  ${r.label}`);
      else {
        out.push(`- DIFFER ${r.label}: ${r.diffs.join('; ').slice(0, 600)}`);
        for (const t of r.tail) out.push(`    stderr: ${t.trim().slice(0, 300)}`);
      }
    }
  }

  const text = out.join('\n');
  console.log(text);
  if (opts.md) writeFileSync(opts.md, `${text}\n`);
  if (opts.json) writeFileSync(opts.json, JSON.stringify({ validate: results, run: runResults }, null, 2));
  const failed = results.some((r) => r.failed) || runResults.some((r) => r.diffs.length > 0);
  process.exit(failed ? 1 : 0);
}

await main();
