// `dagu dags push DIR` and `dagu dags pull DIR`: keep a folder of DAG files (a Git checkout) and the DAG
// definitions in step. On the file backend the definitions are the DAGs directory; on PostgreSQL, the
// database. Exit 0 when everything was done, 1 when some write failed, 2 for a refused folder or a usage
// or configuration error.

import path from 'node:path';
import { hostname } from 'node:os';
import * as fs from '../../store/fileCalls';
import { cliContext, type GlobalOptions } from '../context';
import { EXIT_OK, EXIT_RUN_FAILED, EXIT_USAGE, UsageError } from '../exit';
import { openDagDefinitions } from '../openDagDefinitions';
import { pullDags } from './pullDags';
import { pushDags } from './pushDags';

interface FolderOptions extends GlobalOptions {
  delete?: boolean;
  dryRun?: boolean;
}

export async function pushCommand(dir: string, opts: FolderOptions): Promise<number> {
  const { config, logger } = cliContext(opts, { component: 'cli' });
  await requireFolder(dir);
  const opened = await openDagDefinitions(config, logger, 'dagu dags push');
  try {
    const report = await pushDags({
      store: opened.store,
      dir,
      dagsDir: config.paths.dags_dir,
      deleteAbsent: opts.delete === true,
      dryRun: opts.dryRun === true,
      by: `cli:dags push@${hostname()}`,
    });
    for (const line of report.warnings) process.stderr.write(`${line}\n`);
    if (report.invalid.length > 0) {
      for (const line of report.invalid) process.stderr.write(`${line}\n`);
      const n = report.invalid.length;
      process.stderr.write(`dagu: nothing pushed: ${n} problem${n === 1 ? '' : 's'} in ${dir}\n`);
      return EXIT_USAGE;
    }
    printActions(report.actions, opts.dryRun === true);
    for (const f of report.failures) process.stderr.write(`dagu: ${f.name}: ${f.message}\n`);
    printSummary(`pushed ${dir} to ${opened.where}`, report.actions, opts.dryRun === true);
    return report.failures.length > 0 ? EXIT_RUN_FAILED : EXIT_OK;
  } finally {
    await opened.close();
  }
}

export async function pullCommand(dir: string, opts: FolderOptions): Promise<number> {
  const { config, logger } = cliContext(opts, { component: 'cli' });
  const st = await fs.stat(path.resolve(dir)).catch(() => null);
  if (st !== null && !st.isDirectory()) throw new UsageError(`${dir} is not a directory`);
  const opened = await openDagDefinitions(config, logger, 'dagu dags pull');
  try {
    const report = await pullDags({
      store: opened.store,
      dir,
      deleteAbsent: opts.delete === true,
      dryRun: opts.dryRun === true,
    });
    printActions(report.actions, opts.dryRun === true);
    printSummary(`pulled ${opened.where} into ${dir}`, report.actions, opts.dryRun === true);
    return EXIT_OK;
  } finally {
    await opened.close();
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
