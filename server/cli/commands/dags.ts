// `dagu dags push DIR` and `dagu dags pull DIR`: keep a folder of DAG files (a Git checkout) and the DAG
// definitions in step. On the file backend the definitions are the DAGs directory; on PostgreSQL, the
// database. Exit 0 when everything was done, 1 when some write failed, 2 for a refused folder or a usage
// or configuration error.

import path from 'node:path';
import { hostname } from 'node:os';
import * as fs from '../../store/fileCalls';
import { cliContext, type GlobalOptions } from '../context';
import { EXIT_OK, EXIT_RUN_FAILED, EXIT_USAGE, UsageError } from '../exit';
import type { Config } from '../../config/types';
import type { ControlPlane } from '../../store/controlPlane';
import { errorMessage } from '../../store/fsutil';
import { cliControlPlane } from '../openControlPlane';
import { pullDags } from './pullDags';
import { pushDags } from './pushDags';

interface FolderOptions extends GlobalOptions {
  delete?: boolean;
  allowEmpty?: boolean;
  dryRun?: boolean;
}

export async function pushCommand(dir: string, opts: FolderOptions): Promise<number> {
  const { config, logger } = cliContext(opts, { component: 'cli' });
  requireDeleteForAllowEmpty(opts);
  await requireFolder(dir);
  const cp = await cliControlPlane(config, logger);
  const dryRun = opts.dryRun === true;
  const report = await pushDags({
    store: cp.dags,
    runs: cp.runs,
    dir,
    dagsDir: config.paths.dags_dir,
    deleteAbsent: opts.delete === true,
    allowEmpty: opts.allowEmpty === true,
    dryRun,
    by: `cli:dags push@${hostname()}`,
  });
  for (const line of report.warnings) process.stderr.write(`${line}\n`);
  if (report.invalid.length > 0) {
    for (const line of report.invalid) process.stderr.write(`${line}\n`);
    const n = report.invalid.length;
    process.stderr.write(`dagu: nothing pushed: ${n} problem${n === 1 ? '' : 's'} in ${dir}\n`);
    return EXIT_USAGE;
  }
  if (report.refused !== null) {
    process.stderr.write(`dagu: nothing pushed: ${report.refused}\n`);
    return EXIT_USAGE;
  }
  printActions(report.actions, dryRun);
  for (const f of report.failures) process.stderr.write(`dagu: ${f.name}: ${f.message}\n`);
  printSummary(`pushed ${dir} to ${whereDags(config, cp)}`, report.actions, dryRun);
  if (!dryRun) {
    // This host's DAGs directory shows the push at once; other hosts follow by their wake-up or poll.
    await cp.syncDags().catch((err: unknown) => {
      process.stderr.write(
        `dagu: pushed, but ${config.paths.dags_dir} is not refreshed yet: ${errorMessage(err)}\n`,
      );
    });
  }
  return report.failures.length > 0 ? EXIT_RUN_FAILED : EXIT_OK;
}

export async function pullCommand(dir: string, opts: FolderOptions): Promise<number> {
  const { config, logger } = cliContext(opts, { component: 'cli' });
  requireDeleteForAllowEmpty(opts);
  const st = await fs.stat(path.resolve(dir)).catch(() => null);
  if (st !== null && !st.isDirectory()) throw new UsageError(`${dir} is not a directory`);
  const cp = await cliControlPlane(config, logger);
  const report = await pullDags({
    store: cp.dags,
    dir,
    deleteAbsent: opts.delete === true,
    allowEmpty: opts.allowEmpty === true,
    dryRun: opts.dryRun === true,
  });
  if (report.refused !== null) {
    process.stderr.write(`dagu: nothing pulled: ${report.refused}\n`);
    return EXIT_USAGE;
  }
  printActions(report.actions, opts.dryRun === true);
  printSummary(`pulled ${whereDags(config, cp)} into ${dir}`, report.actions, opts.dryRun === true);
  return EXIT_OK;
}

/** Where the DAG definitions are, for messages: the DAGs directory, or the database and its schema. */
function whereDags(config: Config, cp: ControlPlane): string {
  return cp.backend === 'postgres'
    ? `${cp.where} (schema ${config.storage.postgres.schema})`
    : config.paths.dags_dir;
}

function requireDeleteForAllowEmpty(opts: FolderOptions): void {
  if (opts.allowEmpty === true && opts.delete !== true) {
    throw new UsageError('--allow-empty only applies with --delete');
  }
}

async function requireFolder(dir: string): Promise<void> {
  const st = await fs.stat(path.resolve(dir)).catch(() => null);
  if (st === null) throw new UsageError(`${dir}: no such directory`);
  if (!st.isDirectory()) throw new UsageError(`${dir} is not a directory`);
}

const VERB = { created: 'create', updated: 'update', unchanged: 'leave', deleted: 'delete' } as const;

function printActions(actions: Array<{ name: string; action: keyof typeof VERB }>, dryRun: boolean): void {
  for (const a of actions) {
    const word = dryRun ? `would ${VERB[a.action]}` : a.action;
    process.stdout.write(`${word.padEnd(dryRun ? 14 : 9)} ${a.name}\n`);
  }
}

function printSummary(what: string, actions: Array<{ action: keyof typeof VERB }>, dryRun: boolean): void {
  const count = (k: keyof typeof VERB) => actions.filter((a) => a.action === k).length;
  const counts = `${count('created')} created, ${count('updated')} updated, ${count('unchanged')} unchanged, ${count('deleted')} deleted`;
  process.stdout.write(dryRun ? `dry run, nothing written: ${counts}\n` : `${what}: ${counts}\n`);
}
