// `dagu exec [flags] -- <command> [args...]`, Dagu's one-off run of a command without a DAG file: a DAG of one
// step named `main` is made from the command line (named `exec-<command>` unless -N names it), with the
// home's base config under it as Dagu lays it, and run in the foreground like `dagu start`. The command's
// words reach the program as they were given: each is quoted for the shell that runs the step.

import { existsSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { Document } from 'yaml';
import { formatDagError } from '../../core/dag/dagError';
import { assertDagName, assertRunId } from '../../core/names';
import { newRunId } from '../../core/runId';
import { startRun } from '../../runner/startRun';
import { parseDagText } from '../../store/dagCatalog';
import { randomHex } from '../../store/randomHex';
import { cliContext, type GlobalOptions } from '../context';
import { UsageError } from '../exit';
import { cliControlPlane } from '../openControlPlane';
import { runCommandStores } from './dispatchClient';
import { foreground } from './retry';

export interface ExecOptions extends GlobalOptions {
  env?: string[];
  dotenv?: string[];
  name?: string;
  runId?: string;
  shell?: string;
  workdir?: string;
  quiet?: boolean;
  base?: string;
  workerLabel?: string[];
}

/** Dagu's default name of an exec run: `exec-` and the program's file name, made safe, 40 characters at most. */
export function execDagName(program: string): string {
  const safe = basename(program)
    .replace(/[^A-Za-z0-9_.-]/g, '_')
    .replace(/^\.+/, '');
  return `exec-${safe || 'command'}`.slice(0, 40);
}

/** A word as the shell must see it to pass it on unchanged. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_/.,:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export async function execCommand(words: string[], opts: ExecOptions): Promise<number> {
  if (words.length === 0) throw new UsageError('a command is required: dagu exec -- <command> [args...]');
  if (opts.base !== undefined)
    throw new UsageError(
      "--base is not supported: put the defaults in the home's base.yaml, which exec applies",
    );
  if ((opts.workerLabel ?? []).length > 0)
    throw new UsageError('--worker-label is not supported: exec runs the command on this host');
  const ctx = cliContext(opts, { component: 'runner' });
  const { config, logger } = ctx;
  if (opts.runId !== undefined) assertRunId(opts.runId);
  const name = assertDagName(opts.name ?? execDagName(words[0]));
  const workdir = resolve(opts.workdir ?? process.cwd());
  if (!statSync(workdir, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(`working directory ${JSON.stringify(workdir)} is not a directory`);
  for (const e of opts.env ?? [])
    if (!/^[^=]+=/.test(e))
      throw new UsageError(`invalid --env value ${JSON.stringify(e)}: expected KEY=VALUE`);
  const dotenv = (opts.dotenv ?? []).filter((p) => p.trim() !== '').map((p) => resolve(p));
  for (const p of dotenv)
    if (!existsSync(p)) throw new UsageError(`dotenv file ${JSON.stringify(p)} not found`);

  const step: Record<string, unknown> = { name: 'main', run: words.map(shellWord).join(' ') };
  if (opts.shell) step.with = { shell: opts.shell };
  const spec: Record<string, unknown> = { name, type: 'chain', working_dir: workdir };
  if ((opts.env ?? []).length > 0) spec.env = opts.env;
  if (dotenv.length > 0) spec.dotenv = dotenv;
  spec.steps = [step];
  const text = new Document(spec).toString();
  // No file holds this DAG; the name in the working directory only labels errors and relative paths.
  const parsed = await parseDagText(config.paths.dags_dir, join(workdir, `${name}.yaml`), text);
  if (!parsed.ok) throw new UsageError(formatDagError(parsed.errors[0]));
  const dag = { ...parsed.dag, file: null };

  const stores = runCommandStores(config, logger, await cliControlPlane(config, logger));
  return foreground(
    ctx,
    stores,
    dag,
    (run) =>
      startRun({
        ...run,
        runId: opts.runId,
        triggerType: 'manual',
        scheduleTime: null,
        params: [],
        newRunId: () => newRunId(Date.now(), randomHex(4)),
      }),
    opts.quiet,
  );
}
