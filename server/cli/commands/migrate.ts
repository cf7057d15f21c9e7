// `dagu migrate <files|dirs...> [--write]`: rewrites Dagu 1.x DAG files in 2.x spelling, keeping their meaning.
// For each .yaml/.yml file (given, or found under a directory), a 1.x file gets a unified diff on stdout (and
// with --write the new text, written atomically: a temp file in the same directory, then a rename, mode kept),
// a 2.x file `FILE: already 2.x` on stderr, and a file that cannot be migrated without a change of meaning
// `FILE: not migrated: REASON` on stderr, and is never touched. Exit 0 when every file was migrated or needed
// nothing, 1 when any was not migrated, 2 for a path that does not exist.

import { randomBytes } from 'node:crypto';
import { chmod, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { migrateDagText } from '../../core/dag/migrate';
import { parseDag } from '../../core/dag/parseDag';
import { backtickConditionCommand } from '../../core/dag/dagu1Conditions';
import type { DagSpec, HandlerSpecs, StepSpec } from '../../core/types';
import type { GlobalOptions } from '../context';
import { EXIT_OK, EXIT_RUN_FAILED, EXIT_USAGE, UsageError } from '../exit';

export interface MigrateOptions extends GlobalOptions {
  write?: boolean;
  /** Import Dagu's run history instead of rewriting DAG files (migrateHistory.ts). */
  history?: boolean;
}

const DAG_FILE = /\.ya?ml$/i;

export async function migrateCommand(paths: string[], opts: MigrateOptions): Promise<number> {
  if (opts.history) {
    if (paths.length > 1) throw new UsageError('dagu migrate --history takes at most one directory');
    const { migrateHistoryCommand } = await import('./migrateHistory');
    return migrateHistoryCommand(paths[0], opts);
  }
  if (paths.length === 0) {
    process.stderr.write('dagu migrate: give one or more DAG files or directories\n');
    return EXIT_USAGE;
  }
  const files: string[] = [];
  for (const path of paths) {
    const info = await stat(path).catch(() => null);
    if (info === null) {
      process.stderr.write(`dagu migrate: ${path}: no such file or directory\n`);
      return EXIT_USAGE;
    }
    if (info.isDirectory()) files.push(...(await dagFilesUnder(path)));
    else files.push(path);
  }
  let refused = 0;
  for (const file of files) {
    const outcome = await migrateFile(file, opts.write === true);
    if (outcome === 'refused') refused++;
  }
  return refused > 0 ? EXIT_RUN_FAILED : EXIT_OK;
}

/** Every .yaml/.yml file under `dir`, in name order, depth first. */
async function dagFilesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out: string[] = [];
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await dagFilesUnder(path)));
    else if (e.isFile() && DAG_FILE.test(e.name)) out.push(path);
  }
  return out;
}

async function migrateFile(file: string, write: boolean): Promise<'migrated' | 'already' | 'refused'> {
  const refuse = (reason: string) => {
    process.stderr.write(`${file}: not migrated: ${reason}\n`);
    return 'refused' as const;
  };
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    return refuse(`cannot read it: ${(err as Error).message}`);
  }
  const result = migrateDagText(text);
  if (result.kind === 'already') {
    process.stderr.write(`${file}: already 2.x\n`);
    // Left as it is and read as 2.x; a folder coming from 1.x may still need the meaning made explicit.
    for (const d of result.differences) process.stderr.write(`${file}: note: ${d}\n`);
    return 'already';
  }
  if (result.kind === 'refused') return refuse(result.reasons.join('; '));
  const why = checkSameMeaning(file, text, result.text);
  if (why !== null) return refuse(why);
  if (result.meanings.some((m) => m.endsWith('eval)'))) {
    process.stderr.write(
      `${file}: note: backticks now run as an eval, which Dagu 2.x stops after 2 s in a precondition ` +
        `and 10 s in params (1.x waits)\n`,
    );
  }
  const patch = createTwoFilesPatch(file, file, text, result.text)
    .split('\n')
    .filter((line, i) => !(i < 2 && (line.startsWith('Index: ') || /^=+$/.test(line))))
    .join('\n');
  process.stdout.write(patch);
  if (write) {
    try {
      await writeAtomically(file, result.text);
    } catch (err) {
      return refuse(`cannot write it: ${(err as Error).message}`);
    }
  }
  return 'migrated';
}

/**
 * Null when the migrated text loads as 2.x and reads as the original does under 1.x; else why not. Two
 * differences are allowed: backtick env values moved to params (they read as params with eval), and a
 * backtick precondition's eval losing 1.x's unbounded time (2.x stops it after 2 s; the caller notes it).
 */
function checkSameMeaning(file: string, before: string, after: string): string | null {
  const defaultName = basename(file, extname(file));
  const old = parseDag(before, { file, defaultName });
  if (!old.ok) return `it does not load: ${old.errors[0].message}`;
  const now = parseDag(after, { file, defaultName });
  if (!now.ok) return `the 2.x text would not load: ${now.errors[0].message}`;
  if (now.warnings.some((w) => w.startsWith('Dagu 1.x spelling'))) {
    return 'the 2.x text would still use 1.x spellings';
  }
  const changed = differingField(old.dag, now.dag);
  return changed === null ? null : `the 2.x text would read differently (${changed})`;
}

function differingField(a: DagSpec, b: DagSpec): string | null {
  const x = comparable(asCommandChecks(a));
  const y = comparable(b);
  for (const key of new Set([...Object.keys(x), ...Object.keys(y)])) {
    if (JSON.stringify(x[key], withoutUnbounded) !== JSON.stringify(y[key], withoutUnbounded)) return key;
  }
  return null;
}

function withoutUnbounded(key: string, value: unknown): unknown {
  return key === 'unbounded' ? undefined : value;
}

/**
 * The 1.x reading with each backtick repeat condition (an unbounded eval) written as the 2.x command check
 * migrate puts in its place: the migrated file must have exactly that check, and otherwise the same policy.
 */
function asCommandChecks(d: DagSpec): DagSpec {
  const step = (s: StepSpec | null | undefined): StepSpec | null | undefined => {
    const p = s?.repeat_policy;
    if (!s || !p?.condition_eval || p.condition === null || p.expected === null) return s;
    const check = backtickConditionCommand(p.condition, p.expected);
    if (!check.ok) return s;
    const { condition_eval: _c, ...rest } = p;
    return { ...s, repeat_policy: { ...rest, condition: check.command, expected: null } };
  };
  const handlers = Object.fromEntries(
    Object.entries(d.handler_on).map(([k, h]) => [k, step(h as StepSpec | null)]),
  ) as unknown as HandlerSpecs;
  const locals = Object.fromEntries(
    Object.entries(d.local_dags ?? {}).map(([k, v]) => [k, asCommandChecks(v)]),
  );
  return {
    ...d,
    steps: d.steps.map((s) => step(s)!),
    handler_on: handlers,
    ...(d.local_dags ? { local_dags: locals } : {}),
  };
}

/** A DAG's fields that must not change in a migration, its local DAGs' included. */
function comparable(d: DagSpec): Record<string, unknown> {
  const { warnings: _w, env: _e, env_eval: _ee, params: _p, local_dags: locals, ...rest } = d;
  const nested: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(locals ?? {})) nested[k] = comparable(v);
  return { ...rest, locals: nested };
}

/** Writes `text` to `file` through a temp file in the same directory and a rename, keeping the file's mode. */
async function writeAtomically(file: string, text: string): Promise<void> {
  const mode = (await stat(file)).mode & 0o7777;
  const temp = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temp, text, { mode });
    await chmod(temp, mode);
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}
