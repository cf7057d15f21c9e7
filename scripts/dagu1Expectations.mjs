// Derives the expectations of the Dagu 1.x conformance suite (conformance/dagu_1x/) from Dagu 1.30.2 itself:
// runs every case with the 1.30.2 binary in a temp DAGU_HOME, reads the run's status file from that home's
// data/ folder, and turns exit code, run and step statuses, step stdout, output variables, handlers, observed
// files and mails into the case's `expect:` block. The test only reads what this script recorded, so CI never
// needs the binary.
//
// Usage (from the repository root):
//   node --import tsx scripts/dagu1Expectations.mjs [--write | --check] [--only TEXT] [--dagu1 PATH]
//     (no mode)  print the derived expectations
//     --write    write them into the cases.yaml files (comments and hand-written keys are kept)
//     --check    compare them with the recorded ones; exit 1 on any difference
//   The binary: --dagu1 PATH, else $DAGU1_BIN; install it with
//   `npm install --no-save --ignore-scripts @dagu-org/dagu-linux-x64@1.30.2` in a temp folder.

import { spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { clearInterval, clearTimeout, setInterval, setTimeout } from 'node:timers';
import path from 'node:path';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { isMap, isScalar, isSeq, parseDocument } from 'yaml';
import { z } from 'zod';
import { startServices } from '../conformance/dagu_dag_language/services.ts';
import { Case1x, DAGU1_SOURCE, SUITE_1X_DIR } from '../conformance/dagu_1x/suite.ts';

const RUN_STATUS = [
  'not_started',
  'running',
  'failed',
  'aborted',
  'succeeded',
  'queued',
  'partially_succeeded',
  'waiting',
  'rejected',
];
const NODE_STATUS = [
  'not_started',
  'running',
  'failed',
  'aborted',
  'succeeded',
  'skipped',
  'partially_succeeded',
  'waiting',
  'rejected',
];
/** 1.30.2's handler fields and the names this product's run record uses for them. */
const HANDLERS = {
  onInit: 'init',
  onSuccess: 'success',
  onFailure: 'failure',
  onCancel: 'abort',
  onExit: 'exit',
};
const CONCURRENCY = 4;

/** A case before its first `--write`: `source` and `expect` may be missing. */
const Draft = Case1x.partial({ source: true, expect: true });
const CasesFile = z.object({ cases: z.array(Draft).min(1) }).strict();

function usage(message) {
  process.stderr.write(
    `${message}\nusage: node --import tsx scripts/dagu1Expectations.mjs [--write | --check] [--only TEXT] [--dagu1 PATH]\n`,
  );
  process.exit(2);
}

function options() {
  let parsed;
  try {
    parsed = parseArgs({
      options: {
        write: { type: 'boolean', default: false },
        check: { type: 'boolean', default: false },
        only: { type: 'string' },
        dagu1: { type: 'string' },
      },
    });
  } catch (err) {
    usage(err.message);
  }
  const o = parsed.values;
  if (o.write && o.check) usage('--write and --check exclude each other');
  const bin = o.dagu1 ?? process.env.DAGU1_BIN;
  if (!bin) usage('no Dagu 1.30.2 binary: pass --dagu1 PATH or set DAGU1_BIN');
  if (!existsSync(bin)) usage(`no Dagu 1.30.2 binary at ${bin}`);
  return { ...o, bin };
}

/** Runs the binary; resolves with exit code and output (killed after timeoutMs). */
function run(bin, args, env, timeoutMs, interrupt) {
  return new Promise((resolve) => {
    const child = spawn(bin, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d.toString()));
    child.stderr.on('data', (d) => (stderr += d.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    let poll;
    if (interrupt) {
      poll = setInterval(() => {
        if (!existsSync(interrupt.flag)) return;
        clearInterval(poll);
        if (interrupt.by === 'stop') void interrupt.stop();
        else child.kill(interrupt.by);
      }, 50);
    }
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      clearInterval(poll);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Every file under `dir` whose name passes `test`. */
function walk(dir, test, out = []) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) walk(p, test, out);
    else if (test(p)) out.push(p);
  }
  return out;
}

/** The last status record of a run ID in a 1.30.2 home (its latest attempt), or null. */
function readStatus(home, runId) {
  // A run's attempts sit in `dag-run_<time>_<id>/attempt_*/` (a root run) or `child_<id>/attempt_*/` (a sub-DAG run).
  const ownDir = (dir) =>
    dir === `child_${runId}` || (dir.startsWith('dag-run_') && dir.endsWith(`_${runId}`));
  const files = walk(
    path.join(home, 'data'),
    (p) => path.basename(p) === 'status.jsonl' && ownDir(path.basename(path.dirname(path.dirname(p)))),
  );
  if (files.length === 0) return null;
  const file = files.sort().at(-1);
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  return JSON.parse(lines.at(-1));
}

/** The run statuses of a step's sub-DAG runs, by their run IDs. */
function childStatuses(home, node) {
  return (node.children ?? []).map((c) => {
    const st = readStatus(home, c.dagRunId);
    return st ? RUN_STATUS[st.status] : 'unknown';
  });
}

function readText(file) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** A text naming a sub-DAG run's generated ID becomes a pattern that accepts any ID there. */
function withoutIds(text, ids) {
  if (!ids.some((id) => text.includes(id))) return text;
  let pattern = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  for (const id of ids) pattern = pattern.replaceAll(id, '[A-Za-z0-9_-]+');
  return { match: pattern };
}

function stepExpect(home, node, skipStdout) {
  const e = { status: NODE_STATUS[node.status] ?? `unknown(${node.status})` };
  // A skipped step never ran: an "exit status" in its error is its precondition command's, not its own.
  const exit = e.status === 'skipped' ? null : /exit status (\d+)/.exec(node.error ?? '');
  if (exit) e.exit_code = Number(exit[1]);
  const ids = (node.children ?? []).map((c) => c.dagRunId).filter(Boolean);
  const out = readText(node.stdout).trimEnd();
  if (out && !skipStdout.includes(node.step?.name)) e.stdout = withoutIds(out, ids);
  // `DAGU_*` entries are 1.30.2's own bookkeeping (e.g. DAGU_CONTINUE_ON.<step>), not the step's output.
  const vars = Object.entries(node.outputVariables ?? {}).filter(([k]) => !k.startsWith('DAGU_'));
  if (vars.length > 0)
    e.output = Object.fromEntries(
      vars.map(([k, v]) => [
        k,
        withoutIds(String(v).startsWith(`${k}=`) ? String(v).slice(k.length + 1) : String(v), ids),
      ]),
    );
  if (node.retryCount) e.retry_count = node.retryCount;
  if (node.step?.repeatPolicy && node.doneCount) e.repeat_count = node.doneCount - 1;
  if (node.children?.length) {
    e.sub_runs = node.children.length;
    const statuses = [...new Set(childStatuses(home, node))];
    if (statuses.length === 1) e.sub_run_status = statuses[0];
  }
  return Object.keys(e).length === 1 ? e.status : e;
}

/** 1.30.2's `Error:` message and its continuation lines, with the temp home's path replaced. */
function errorText(stderr, home) {
  const lines = stderr.split('\n').map((l) => l.trim());
  const at = lines.findLastIndex((l) => l.startsWith('Error:'));
  const picked = at < 0 ? lines.filter(Boolean).slice(-1) : lines.slice(at, at + 4).filter(Boolean);
  return picked.join(' ').replaceAll(home, '$DAGU_HOME');
}

function substitute(text, svc) {
  return text.replaceAll('{{http}}', svc.httpUrl).replaceAll('{{smtp_port}}', String(svc.smtpPort));
}

let seq = 0;

/** Runs one case with 1.30.2; resolves with the derived `expect` and 1.30.2's error line. */
async function derive(bin, featureDir, c, svc) {
  const home = mkdtempSync(path.join(tmpdir(), 'dagu1-exp-'));
  try {
    const caseDir = path.join(home, 'dags');
    mkdirSync(caseDir, { recursive: true });
    cpSync(featureDir, caseDir, { recursive: true, filter: (src) => path.basename(src) !== 'cases.yaml' });
    for (const f of readdirSync(caseDir)) {
      const p = path.join(caseDir, f);
      if (statSync(p).isFile() && /\.(ya?ml|env)$|^\.env/.test(f))
        writeFileSync(p, substitute(readFileSync(p, 'utf8'), svc));
    }
    for (const [rel, content] of Object.entries(c.setup_files ?? {}))
      writeFileSync(path.join(caseDir, rel), substitute(content, svc));
    const env = {
      ...process.env,
      DAGU_HOME: home,
      ...Object.fromEntries(Object.entries(c.env ?? {}).map(([k, v]) => [k, substitute(v, svc)])),
    };
    const runId = `conf1x-${process.pid}-${++seq}`;
    const dagFile = path.join(caseDir, c.dag);
    const command = c.command ?? 'start';
    const args =
      command === 'validate'
        ? ['validate', ...(c.flags ?? []), dagFile]
        : [
            'start',
            '--run-id',
            runId,
            ...(c.flags ?? []),
            dagFile,
            ...(c.raw_args ?? []),
            ...(c.args?.length ? ['--', ...c.args.map((a) => substitute(a, svc))] : []),
          ];
    const interrupt = c.interrupt && {
      flag: path.join(caseDir, c.interrupt.after_file),
      by: c.interrupt.by,
      stop: () => run(bin, ['stop', '--run-id', runId, dagFile], env, 20_000),
    };
    const r = await run(bin, args, env, c.timeout_ms ?? 30_000, interrupt);

    const expect = { exit: r.code ?? -1 };
    if (command === 'start') {
      const st = readStatus(home, runId);
      // A file 1.30.2 refuses to load exits 1 there; this CLI exits 2 for a bad file, so any failure exit is
      // recorded as the expectation.
      if (!st) Object.assign(expect, { exit: r.code === 0 ? 0 : 'nonzero', no_run: true });
      else {
        expect.status = RUN_STATUS[st.status] ?? `unknown(${st.status})`;
        expect.step_names = st.nodes.map((n) => n.step.name);
        expect.steps = Object.fromEntries(
          st.nodes.map((n) => [n.step.name, stepExpect(home, n, c.observe?.skip_stdout ?? [])]),
        );
        const handlers = {};
        for (const [field, name] of Object.entries(HANDLERS)) {
          const node = st[field];
          if (node)
            handlers[name] =
              node.status === 0 ? 'not_run' : stepExpect(home, node, c.observe?.skip_stdout ?? []);
        }
        if (Object.keys(handlers).length > 0) expect.handlers = handlers;
      }
    }
    const files = {};
    const absent = [];
    for (const rel of c.observe?.files ?? []) {
      const p = path.join(caseDir, rel);
      if (existsSync(p)) files[rel] = readFileSync(p, 'utf8').trimEnd();
      else absent.push(rel);
    }
    if (Object.keys(files).length > 0) expect.files = files;
    if (absent.length > 0) expect.absent_files = absent;
    if (c.observe?.mail) {
      // The sink may receive the mail a moment after the run ends.
      const deadline = Date.now() + 3000;
      while (Date.now() < deadline && !svc.mails().some((m) => m.includes(c.observe.mail)))
        await new Promise((res) => setTimeout(res, 100));
      if (svc.mails().some((m) => m.includes(c.observe.mail))) expect.mail_contains = [c.observe.mail];
    }
    return {
      expect,
      says: r.code !== 0 ? errorText(r.stderr, home).replaceAll(runId, '$RUN_ID') : undefined,
    };
  } finally {
    rmSync(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  }
}

/** Flow style for each step's and handler's own expectation, as the hand-written suite writes them. */
function compact(node) {
  for (const key of ['steps', 'handlers']) {
    const m = node.get(key, true);
    if (!isMap(m)) continue;
    for (const item of m.items) {
      const v = item.value;
      const simple = (x) => isScalar(x) && !String(x.value).includes('\n');
      if (isMap(v) && v.items.every((i) => simple(i.value))) v.flow = true;
    }
  }
  for (const key of ['step_names', 'absent_files', 'mail_contains']) {
    const s = node.get(key, true);
    if (isSeq(s)) s.flow = true;
  }
}

async function main() {
  const o = options();
  process.chdir(path.resolve(import.meta.dirname, '..'));
  const svc = await startServices();
  const features = readdirSync(SUITE_1X_DIR)
    .sort()
    .map((name) => ({
      name,
      dir: path.join(SUITE_1X_DIR, name),
      file: path.join(SUITE_1X_DIR, name, 'cases.yaml'),
    }))
    .filter((f) => existsSync(f.file));
  const jobs = [];
  const docs = new Map();
  for (const f of features) {
    const doc = parseDocument(readFileSync(f.file, 'utf8'));
    const parsed = CasesFile.safeParse(doc.toJS());
    if (!parsed.success) throw new Error(`${f.file}: ${z.prettifyError(parsed.error)}`);
    docs.set(f.file, doc);
    parsed.data.cases.forEach((c, i) => {
      const title = `${f.name} / ${c.name}`;
      if (!o.only || title.includes(o.only)) jobs.push({ f, c, i, title, doc });
    });
  }
  let failures = 0;
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++];
      const { expect, says } = await derive(o.bin, job.f.dir, job.c, svc);
      if (o.check) {
        if (!isDeepStrictEqual(JSON.parse(JSON.stringify(job.c.expect ?? null)), expect)) {
          failures++;
          process.stdout.write(
            `DIFFERS ${job.title}\n  recorded: ${JSON.stringify(job.c.expect)}\n  1.30.2:   ${JSON.stringify(expect)}\n`,
          );
        } else process.stdout.write(`ok      ${job.title}\n`);
      } else if (o.write) {
        const caseNode = job.doc.get('cases').get(job.i);
        if (!caseNode.has('source')) caseNode.set('source', DAGU1_SOURCE);
        const node = job.doc.createNode(expect);
        compact(node);
        caseNode.set('expect', node);
        if (says && (job.c.differs || expect.no_run)) caseNode.set('dagu1_says', says);
        else caseNode.delete('dagu1_says');
        process.stdout.write(
          `recorded ${job.title}: exit ${expect.exit}${expect.status ? `, ${expect.status}` : ''}\n`,
        );
      } else process.stdout.write(`${job.title}\n${JSON.stringify({ expect, says }, null, 2)}\n`);
    }
  };
  try {
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  } finally {
    await svc.close();
  }
  if (o.write) for (const [file, doc] of docs) writeFileSync(file, doc.toString({ lineWidth: 0 }));
  if (o.check && failures > 0) {
    process.stdout.write(`${failures} case(s) differ from Dagu 1.30.2\n`);
    process.exit(1);
  }
}

await main();
