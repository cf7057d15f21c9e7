// The command line every entry of the CLI shares: the `dagu` program with its global options, how a command's
// module is loaded and its exit code set, and how a parse failure ends. The full CLI (main.ts) defines every
// command on it; `dagu validate` has a bundle of its own (validateMain.ts) that defines only that command, so
// both read the same options, print the same help and end the same way.

import { Command, CommanderError } from 'commander';
import { supervisedChildren } from '../runner/children';
import { restoreStashedEnv } from '../runner/runProcessEnv';
import { blockFileCallsWhile } from '../store/fileCalls';
import { VERSION } from './version';
import { EXIT_USAGE, fail } from './exit';

export const program = new Command()
  .name('dagu')
  .description('Cron workflow scheduler: DAGs of shell steps, active/standby schedulers, labelled workers')
  .version(VERSION, '-v, --version')
  .option('--home <dir>', 'DAGU_HOME (default: $DAGU_HOME or ~/.dagu)')
  .option('--dagu-home <dir>', "Dagu's name for --home")
  .showHelpAfterError()
  .exitOverride();

type Handler = (...args: unknown[]) => Promise<number | void>;

/** How many command-line words follow the first `--` (the params of start/enqueue), or null without one. */
function argsAfterDash(rawArgs: readonly string[]): number | null {
  const dash = rawArgs.indexOf('--', 2);
  return dash < 0 ? null : rawArgs.length - dash - 1;
}

/** The long-running commands; every other command does one job and exits. */
const SERVICES = new Set(['scheduler', 'server', 'start-all', 'coordinator', 'worker']);

/** Wraps a command module loaded on demand; the handler's number is the exit code. */
export function lazy(load: () => Promise<Record<string, unknown>>, name: string) {
  return async (...args: unknown[]) => {
    const mod = await load();
    const handler = mod[name] as Handler;
    const cmd = args[args.length - 1] as Command;
    // A one-shot command waits on nothing else while a file call is in flight, unless it supervises a step
    // or a sub-DAG run: blocking calls then save it a thread-pool round trip each (see store/fileCalls.ts).
    if (!SERVICES.has(cmd.name())) blockFileCallsWhile(() => supervisedChildren() === 0);
    // Commander passes the operands, its own options object and the command: the handler gets the operands
    // and the options of the command together with the global ones (`--home`) and where `--` was.
    const globals = program.opts<{ home?: string; daguHome?: string }>();
    const code = await handler(...args.slice(0, -2), {
      ...globals,
      home: globals.home ?? globals.daguHome,
      ...cmd.opts(),
      argsAfterDash: argsAfterDash(process.argv),
    });
    process.exitCode = typeof code === 'number' ? code : 0;
  };
}

/**
 * Dagu takes `-q/--quiet` on every command, and scripts pass it to commands whose output here is already only
 * their result: those accept it and print the same.
 */
function acceptQuiet(cmd: Command): void {
  if (!cmd.options.some((o) => o.long === '--quiet'))
    cmd.option('-q, --quiet', "accepted as Dagu's global flag; this command prints only its result");
  for (const sub of cmd.commands) acceptQuiet(sub);
}

/** Defines the commands with `define`, then parses `process.argv` and runs the command it names. */
export async function runCommandLine(define: (program: Command) => void): Promise<void> {
  restoreStashedEnv(process.env);
  try {
    define(program);
    for (const cmd of program.commands) acceptQuiet(cmd);
    await program.parseAsync(process.argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end with code 0; every other parse failure is a usage error.
      process.exitCode = err.exitCode === 0 ? 0 : EXIT_USAGE;
    } else {
      fail(err);
    }
  }
}
