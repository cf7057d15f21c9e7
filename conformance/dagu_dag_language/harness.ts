// The case format of the Dagu DAG language conformance suite and the code that runs one case through the real
// `bin/dagu`. Each feature folder holds DAG files and a `cases.yaml`; every expectation in it is derived from
// upstream Dagu (its `source:` says where), never from this product's code.

import { spawn } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { DAGU, dagu, tempHome, type Result, type TempHome } from '../../tests/integration/harness';

export const SUITE_DIR = import.meta.dirname;

/** A text expectation: exact (both sides with trailing whitespace trimmed) or by parts. */
const TextExpect = z.union([
  z.string(),
  z
    .object({
      equals: z.string().optional(),
      contains: z.union([z.string(), z.array(z.string())]).optional(),
      not_contains: z.union([z.string(), z.array(z.string())]).optional(),
      match: z.string().optional(),
    })
    .strict(),
]);
type TextExpect = z.infer<typeof TextExpect>;

const StepExpect = z
  .object({
    status: z.string().optional(),
    exit_code: z.number().int().optional(),
    /** The step's stdout log content. */
    stdout: TextExpect.optional(),
    stderr: TextExpect.optional(),
    /** `output:` variables captured by the step, by name. */
    output: z.record(z.string(), TextExpect).optional(),
    /** Text that the step's recorded error must contain. */
    error: TextExpect.optional(),
    retry_count: z.number().int().optional(),
    /** Executions after the first of a `repeat_policy` step. */
    repeat_count: z.number().int().optional(),
    /** Child runs (`call`, `parallel`): how many, and the status each must have. */
    sub_runs: z.number().int().optional(),
    sub_run_status: z.string().optional(),
    /** A build DAG's step: its decision and, when given, the reason. */
    build: z.object({ decision: z.string(), reason: z.string().optional() }).strict().optional(),
    /** Declared outputs the step published (`${steps.<id>.outputs.<name>}`), by name. */
    outputs: z.record(z.string(), TextExpect).optional(),
  })
  .strict();
type StepExpect = z.infer<typeof StepExpect>;

const Expect = z
  .object({
    /** `nonzero` for "any failure exit" (Dagu exits 1 where this CLI may use 2 for a bad file). */
    exit: z.union([z.number().int(), z.literal('nonzero'), z.array(z.number().int())]),
    status: z.string().optional(),
    /** Text the run's error must contain. */
    error: TextExpect.optional(),
    /** Steps by runtime name (`status` only, as a string, or a full expectation). */
    steps: z.record(z.string(), z.union([z.string(), StepExpect])).optional(),
    /** The run has exactly these steps (by name, any order). */
    step_names: z.array(z.string()).optional(),
    handlers: z.record(z.string(), z.union([z.string(), StepExpect])).optional(),
    /** Files in the case directory (the DAGs dir, where `working_dir: .` points). */
    files: z.record(z.string(), TextExpect).optional(),
    absent_files: z.array(z.string()).optional(),
    /** Non-empty directories, relative to the case directory. */
    dirs: z.array(z.string()).optional(),
    stdout: TextExpect.optional(),
    stderr: TextExpect.optional(),
    /** Some mail the SMTP sink received contains every one of these strings (use a subject unique to the case). */
    mail_contains: z.array(z.string()).optional(),
    /** No run record exists for the case's run ID (the file was refused before anything ran). */
    no_run: z.boolean().optional(),
  })
  .strict();

/** One case; other suites may `.extend()` it with keys of their own. */
export const Case = z
  .object({
    name: z.string(),
    /** Where the expectation comes from: an upstream file/function or a section of the research note. */
    source: z.string(),
    command: z.enum(['start', 'validate', 'dry']).default('start'),
    dag: z.string(),
    /**
     * Commands run first, in the same DAGs directory and home (a build DAG's earlier runs): each with its own
     * options, the exit it must have, and the files written or removed once it ran.
     */
    before: z
      .array(
        z
          .object({
            command: z.enum(['start', 'dry']).default('start'),
            flags: z.array(z.string()).default([]),
            exit: z.number().int().default(0),
            files_after: z.record(z.string(), z.string()).default({}),
            remove_after: z.array(z.string()).default([]),
          })
          .strict(),
      )
      .default([]),
    /** Parameters after `--`. `{{http}}` and `{{smtp_port}}` are replaced. */
    args: z.array(z.string()).default([]),
    /** Words placed right after the DAG argument, without `--`. */
    raw_args: z.array(z.string()).default([]),
    /** Options placed before the DAG argument (e.g. `--params`). */
    flags: z.array(z.string()).default([]),
    /** Extra environment for the `dagu` process (the "host" environment of the run). */
    env: z.record(z.string(), z.string()).default({}),
    /** Files written into the case directory before the command. */
    setup_files: z.record(z.string(), z.string()).default({}),
    /** Interrupt a running `dagu start` once a file appears in the case directory. */
    interrupt: z
      .object({ after_file: z.string(), by: z.enum(['SIGTERM', 'SIGINT', 'stop']) })
      .strict()
      .optional(),
    /** Whole-command deadline; a case should finish far sooner. */
    timeout_ms: z.number().int().default(30_000),
    /** Needs the local HTTP server or SMTP sink the suite starts. */
    needs: z.array(z.enum(['http', 'smtp'])).default([]),
    expect: Expect,
  })
  .strict();
export type Case = z.infer<typeof Case>;

export interface Feature<C extends Case = Case> {
  name: string;
  dir: string;
  cases: C[];
}

/**
 * Every feature folder with a `cases.yaml` under `root` (this suite's folder by default), in name order, its
 * cases read with `caseSchema` (an extension of `Case`). A malformed cases file throws, naming it.
 */
export function discoverFeatures<C extends Case = Case>(
  root: string = SUITE_DIR,
  caseSchema: z.ZodType<C> = Case as unknown as z.ZodType<C>,
): Array<Feature<C>> {
  const CasesFile = z.object({ cases: z.array(caseSchema).min(1) }).strict();
  const features: Array<Feature<C>> = [];
  for (const name of readdirSync(root).sort()) {
    const dir = path.join(root, name);
    const file = path.join(dir, 'cases.yaml');
    if (!statSync(dir).isDirectory() || !existsSync(file)) continue;
    const parsed = CasesFile.safeParse(parseYaml(readFileSync(file, 'utf8')));
    if (!parsed.success) throw new Error(`${file}: ${z.prettifyError(parsed.error)}`);
    for (const c of parsed.data.cases) {
      if (!existsSync(path.join(dir, c.dag)))
        throw new Error(`${file}: case ${JSON.stringify(c.name)} names a missing DAG file ${c.dag}`);
    }
    for (const pattern of patterns(parsed.data.cases)) {
      try {
        toRegExp(pattern);
      } catch (err) {
        throw new Error(`${file}: bad match pattern ${JSON.stringify(pattern)}: ${(err as Error).message}`, {
          cause: err,
        });
      }
    }
    features.push({ name, dir, cases: parsed.data.cases });
  }
  return features;
}

/** Every `match:` pattern anywhere in the cases, so a bad one fails discovery rather than one case. */
function patterns(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(patterns);
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) =>
      k === 'match' && typeof v === 'string' ? [v] : patterns(v),
    );
  return [];
}

/** What the suite's shared services offer a case. */
export interface Services {
  httpUrl: string;
  smtpPort: number;
  /** Mails the sink received (raw DATA text). */
  mails(): string[];
}

interface StepRecord {
  name: string;
  status: string;
  exit_code: number | null;
  error: string | null;
  retry_count: number;
  repeat_count?: number;
  stdout: string | null;
  stderr: string | null;
  output: Record<string, string> | null;
  sub_runs?: Array<{ dag_name: string; run_id: string; status: string | null }>;
  build?: { decision: string; reason?: string };
  outputs?: Record<string, string> | null;
}
interface RunRecord {
  status: string;
  error: string | null;
  steps: StepRecord[];
  handlers: Record<string, StepRecord | undefined>;
}

function substitute(text: string, svc: Services): string {
  return text.replaceAll('{{http}}', svc.httpUrl).replaceAll('{{smtp_port}}', String(svc.smtpPort));
}

let seq = 0;

/** Runs one case; resolves when it passed, throws with every mismatch and the run's details otherwise. */
export async function runCase(feature: Feature, c: Case, svc: Services): Promise<void> {
  const home = tempHome();
  try {
    await runIn(home, feature, c, svc);
  } finally {
    home.cleanup();
  }
}

async function runIn(home: TempHome, feature: Feature, c: Case, svc: Services): Promise<void> {
  const caseDir = home.dags;
  // The whole feature folder, so sub-DAG files, dotenv files and fixtures sit beside the DAG.
  cpSync(feature.dir, caseDir, {
    recursive: true,
    filter: (src) => path.basename(src) !== 'cases.yaml',
  });
  for (const f of readdirSync(caseDir)) {
    const p = path.join(caseDir, f);
    if (statSync(p).isFile() && /\.(ya?ml|env)$|^\.env/.test(f))
      writeFileSync(p, substitute(readFileSync(p, 'utf8'), svc));
  }
  for (const [rel, content] of Object.entries(c.setup_files))
    writeFileSync(path.join(caseDir, rel), substitute(content, svc));
  const env = {
    ...home.env,
    ...Object.fromEntries(Object.entries(c.env).map(([k, v]) => [k, substitute(v, svc)])),
  };
  const dagFile = path.join(caseDir, c.dag);
  for (const [i, b] of c.before.entries()) {
    const earlier = await dagu(
      b.command === 'start'
        ? ['start', '--run-id', `conf-${process.pid}-${++seq}`, ...b.flags, dagFile]
        : ['dry', ...b.flags, dagFile],
      env,
      c.timeout_ms,
    );
    if (earlier.code !== b.exit) {
      throw new Error(
        `${feature.name} / ${c.name}: before[${i}] (dagu ${b.command}) exited ${earlier.code}, expected ${b.exit}\n${earlier.stdout}\n${earlier.stderr}`,
      );
    }
    for (const [rel, content] of Object.entries(b.files_after))
      writeFileSync(path.join(caseDir, rel), content);
    for (const rel of b.remove_after) rmSync(path.join(caseDir, rel), { force: true });
  }
  const runId = `conf-${process.pid}-${++seq}`;
  const args =
    c.command === 'validate'
      ? ['validate', ...c.flags, dagFile]
      : c.command === 'dry'
        ? ['dry', ...c.flags, dagFile]
        : [
            'start',
            '--run-id',
            runId,
            ...c.flags,
            dagFile,
            ...c.raw_args,
            ...(c.args.length ? ['--', ...c.args.map((a) => substitute(a, svc))] : []),
          ];

  const result = c.interrupt
    ? await runInterrupted(args, env, caseDir, runId, c)
    : await dagu(args, env, c.timeout_ms);

  const problems: string[] = [];
  const e = c.expect;
  checkExit(e.exit, result, problems);
  if (e.stdout !== undefined) checkText('dagu stdout', e.stdout, result.stdout, problems);
  if (e.stderr !== undefined) checkText('dagu stderr', e.stderr, result.stderr, problems);

  let run: RunRecord | null = null;
  if (c.command === 'start') {
    const st = await dagu(['status', '--json', runId], env);
    if (st.code === 0) run = JSON.parse(st.stdout) as RunRecord;
    if (e.no_run && run) problems.push(`expected no run record, got a run with status ${run.status}`);
    const needsRun = e.status || e.error || e.steps || e.handlers || e.step_names;
    if (needsRun && !run) problems.push(`no run record for ${runId}: ${st.stderr.trim()}`);
  }
  if (run) await checkRun(run, e, home, problems);

  for (const [rel, want] of Object.entries(e.files ?? {})) {
    const p = path.join(caseDir, rel);
    if (!existsSync(p)) problems.push(`file ${rel}: expected it to exist, it does not`);
    else checkText(`file ${rel}`, want, readFileSync(p, 'utf8'), problems);
  }
  for (const rel of e.dirs ?? []) {
    const p = path.join(caseDir, rel);
    if (!existsSync(p) || !statSync(p).isDirectory() || readdirSync(p).length === 0)
      problems.push(`directory ${rel}: expected it to exist and hold files, it does not`);
  }
  for (const rel of e.absent_files ?? []) {
    if (existsSync(path.join(caseDir, rel)))
      problems.push(`file ${rel}: expected it to be absent, it exists`);
  }

  if (e.mail_contains) {
    const mails = svc.mails();
    if (!mails.some((m) => e.mail_contains!.every((part) => m.includes(part))))
      problems.push(
        `mail: expected one containing ${JSON.stringify(e.mail_contains)}; the sink has ${mails.length} mail(s): ${JSON.stringify(mails.map((m) => tail(m, 400)))}`,
      );
  }

  if (problems.length > 0) throw new Error(describeFailure(feature, c, args, result, run, problems));
}

function runInterrupted(
  args: string[],
  env: NodeJS.ProcessEnv,
  caseDir: string,
  runId: string,
  c: Case,
): Promise<Result> {
  const { after_file: flag, by } = c.interrupt!;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [DAGU, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), c.timeout_ms);
    let done = false;
    const deadline = Date.now() + c.timeout_ms;
    const poll = setInterval(() => {
      if (done) return;
      if (existsSync(path.join(caseDir, flag))) {
        done = true;
        clearInterval(poll);
        if (by === 'stop')
          void dagu(['stop', runId], env).then(
            (r) => (stderr += `\n[dagu stop: exit ${r.code}] ${r.stdout}${r.stderr}`),
          );
        else child.kill(by);
      } else if (Date.now() > deadline) {
        clearInterval(poll);
        stderr += `\n[harness: ${flag} never appeared]`;
      }
    }, 50);
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      clearInterval(poll);
      if (!done) stderr += `\n[harness: dagu exited before ${flag} appeared]`;
      resolve({ code, signal, stdout, stderr });
    });
  });
}

function checkExit(want: Case['expect']['exit'], r: Result, problems: string[]) {
  const got = r.code;
  const ok =
    want === 'nonzero'
      ? got !== 0 && got !== null
      : Array.isArray(want)
        ? want.includes(got ?? -1)
        : got === want;
  if (!ok)
    problems.push(
      `exit code: expected ${JSON.stringify(want)}, got ${got}${r.signal ? ` (signal ${r.signal})` : ''}`,
    );
}

const list = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

function checkText(what: string, want: TextExpect, got: string | null | undefined, problems: string[]) {
  if (got === null || got === undefined) {
    problems.push(`${what}: expected ${JSON.stringify(want)}, got nothing`);
    return;
  }
  const spec = typeof want === 'string' ? { equals: want } : want;
  if (spec.equals !== undefined && got.trimEnd() !== spec.equals.trimEnd())
    problems.push(
      `${what}: expected exactly ${JSON.stringify(spec.equals.trimEnd())}, got ${JSON.stringify(got.trimEnd())}`,
    );
  for (const part of list(spec.contains))
    if (!got.includes(part))
      problems.push(`${what}: expected to contain ${JSON.stringify(part)}, got ${JSON.stringify(tail(got))}`);
  for (const part of list(spec.not_contains))
    if (got.includes(part))
      problems.push(
        `${what}: expected NOT to contain ${JSON.stringify(part)}, got ${JSON.stringify(tail(got))}`,
      );
  if (spec.match !== undefined && !toRegExp(spec.match).test(got))
    problems.push(`${what}: expected to match /${spec.match}/m, got ${JSON.stringify(tail(got))}`);
}

/** A case's pattern; a leading `(?i)` (Go/RE2 style, as upstream writes them) makes it case-insensitive. */
/** Wraps calls so that at most `max` of them run at a time; the others wait their turn, in order. */
export function concurrencyLimit(max: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async (fn) => {
    if (active >= max) await new Promise<void>((r) => waiting.push(r));
    active++;
    try {
      return await fn();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}

export function toRegExp(pattern: string): RegExp {
  return pattern.startsWith('(?i)') ? new RegExp(pattern.slice(4), 'mi') : new RegExp(pattern, 'm');
}

const tail = (s: string, n = 1500) => (s.length > n ? `…${s.slice(-n)}` : s);

function readLog(home: TempHome, rel: string | null): string | null {
  if (!rel) return null;
  const p = path.isAbsolute(rel) ? rel : path.join(home.home, 'logs', rel);
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return null;
  }
}

async function checkRun(run: RunRecord, e: Case['expect'], home: TempHome, problems: string[]) {
  if (e.status !== undefined && run.status !== e.status)
    problems.push(`run status: expected ${e.status}, got ${run.status}`);
  if (e.error !== undefined) checkText('run error', e.error, run.error, problems);
  if (e.step_names) {
    const got = run.steps.map((s) => s.name).sort();
    const want = [...e.step_names].sort();
    if (JSON.stringify(got) !== JSON.stringify(want))
      problems.push(`step names: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
  }
  const byName = new Map(run.steps.map((s) => [s.name, s]));
  for (const [name, want] of Object.entries(e.steps ?? {})) {
    const step = byName.get(name);
    if (!step) {
      problems.push(
        `step ${JSON.stringify(name)}: missing; the run has ${JSON.stringify([...byName.keys()])}`,
      );
      continue;
    }
    checkStep(
      `step ${JSON.stringify(name)}`,
      step,
      typeof want === 'string' ? { status: want } : want,
      home,
      problems,
    );
  }
  for (const [name, want] of Object.entries(e.handlers ?? {})) {
    const step = run.handlers?.[name];
    const w = typeof want === 'string' ? { status: want } : want;
    if (!step) {
      if (w.status === 'not_run') continue;
      problems.push(
        `handler ${name}: expected ${JSON.stringify(w)}, it did not run (handlers: ${JSON.stringify(Object.keys(run.handlers ?? {}))})`,
      );
      continue;
    }
    if (w.status === 'not_run') {
      problems.push(`handler ${name}: expected not to run, it ran (${step.status})`);
      continue;
    }
    checkStep(`handler ${name}`, step, w, home, problems);
  }
}

function checkStep(what: string, step: StepRecord, want: StepExpect, home: TempHome, problems: string[]) {
  if (want.status !== undefined && step.status !== want.status)
    problems.push(
      `${what} status: expected ${want.status}, got ${step.status}${step.error ? ` (error: ${step.error})` : ''}`,
    );
  if (want.exit_code !== undefined && step.exit_code !== want.exit_code)
    problems.push(`${what} exit code: expected ${want.exit_code}, got ${step.exit_code}`);
  if (want.retry_count !== undefined && step.retry_count !== want.retry_count)
    problems.push(`${what} retry_count: expected ${want.retry_count}, got ${step.retry_count}`);
  if (want.repeat_count !== undefined && (step.repeat_count ?? 0) !== want.repeat_count)
    problems.push(`${what} repeat_count: expected ${want.repeat_count}, got ${step.repeat_count}`);
  if (want.error !== undefined) checkText(`${what} error`, want.error, step.error, problems);
  if (want.stdout !== undefined)
    checkText(`${what} stdout log`, want.stdout, readLog(home, step.stdout), problems);
  if (want.stderr !== undefined)
    checkText(`${what} stderr log`, want.stderr, readLog(home, step.stderr), problems);
  for (const [k, v] of Object.entries(want.output ?? {}))
    checkText(`${what} output ${k}`, v, step.output?.[k], problems);
  if (want.sub_runs !== undefined && (step.sub_runs?.length ?? 0) !== want.sub_runs)
    problems.push(
      `${what} sub_runs: expected ${want.sub_runs}, got ${JSON.stringify(step.sub_runs ?? null)}`,
    );
  if (want.build !== undefined) {
    const b = step.build;
    if (
      b?.decision !== want.build.decision ||
      (want.build.reason !== undefined && b.reason !== want.build.reason)
    )
      problems.push(
        `${what} build: expected ${JSON.stringify(want.build)}, got ${JSON.stringify(b ?? null)}`,
      );
  }
  for (const [k, v] of Object.entries(want.outputs ?? {}))
    checkText(`${what} outputs.${k}`, v, step.outputs?.[k], problems);
  if (want.sub_run_status !== undefined) {
    const bad = (step.sub_runs ?? []).filter((s) => s.status !== want.sub_run_status);
    if (bad.length > 0 || !step.sub_runs?.length)
      problems.push(
        `${what} sub_runs status: expected all ${want.sub_run_status}, got ${JSON.stringify(step.sub_runs ?? null)}`,
      );
  }
}

function describeFailure(
  feature: Feature,
  c: Case,
  args: string[],
  r: Result,
  run: RunRecord | null,
  problems: string[],
): string {
  const lines = [
    `${feature.name} / ${c.name}`,
    `  source: ${c.source}`,
    `  command: dagu ${args.map((a) => (a.includes(path.sep) ? path.basename(a) : a)).join(' ')}`,
    ...problems.map((p) => `  ✗ ${p}`),
    `  -- exit ${r.code}${r.signal ? ` signal ${r.signal}` : ''}`,
    `  -- stdout (tail):\n${indent(tail(r.stdout.trim(), 1200))}`,
    `  -- stderr (tail):\n${indent(tail(r.stderr.trim(), 1500))}`,
  ];
  if (run) {
    lines.push(`  -- run: ${run.status}${run.error ? ` error=${JSON.stringify(run.error)}` : ''}`);
    for (const s of run.steps)
      lines.push(
        `     step ${JSON.stringify(s.name)}: ${s.status} exit=${s.exit_code}${s.error ? ` error=${JSON.stringify(s.error)}` : ''}${s.output ? ` output=${JSON.stringify(s.output)}` : ''}`,
      );
    for (const [k, s] of Object.entries(run.handlers ?? {}))
      if (s)
        lines.push(
          `     handler ${k}: ${s.status} exit=${s.exit_code}${s.error ? ` error=${JSON.stringify(s.error)}` : ''}`,
        );
  }
  return lines.join('\n');
}

const indent = (s: string) =>
  s
    .split('\n')
    .map((l) => `     ${l}`)
    .join('\n');
