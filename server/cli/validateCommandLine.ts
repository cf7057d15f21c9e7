// `dagu validate`'s command line, defined by the full CLI (main.ts) and, alone, by the bundle bin/dagu runs
// for that command (validateMain.ts): one definition, so both take the same arguments and print the same help.

import type { Command } from 'commander';
import { lazy } from './program';

export function defineValidate(program: Command): Command {
  return program
    .command('validate')
    .description('Check DAG files and print every error found')
    .argument('[dags...]', 'DAG names or files (default: every file in the DAGs directory)')
    .action(lazy(() => import('./commands/validate'), 'validateCommand'));
}
