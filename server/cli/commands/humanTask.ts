// `dagu human-task complete --run-id ID --step STEP [--input k=v ... | --inputs-json OBJ] <dag>`: completes an
// open human task of a waiting run (api/humanTask.ts) and prints one line saying what became of the run.

import { completeHumanTask } from '../../api/humanTask';
import type { HumanTaskInput } from '../../core/humanTask';
import { assertRunId } from '../../core/names';
import { cliContext, type GlobalOptions } from '../context';
import { EXIT_OK, UsageError } from '../exit';
import { cliServices } from '../openControlPlane';

type Opts = GlobalOptions & { runId: string; step: string; input?: string[]; inputsJson?: string };

export async function completeHumanTaskCommand(dagName: string, opts: Opts): Promise<number> {
  if (opts.input !== undefined && opts.inputsJson !== undefined)
    throw new UsageError('--input and --inputs-json cannot be used together');
  if (opts.step.trim() === '') throw new UsageError('--step must name the human task (its step id)');
  const input: HumanTaskInput =
    opts.inputsJson !== undefined
      ? { kind: 'json', text: opts.inputsJson }
      : { kind: 'words', words: opts.input ?? [] };
  // Its one line is the answer: the completion's info lines stay out of stderr (warnings still go there).
  const { config, logger } = cliContext({ ...opts, quiet: true }, { component: 'cli' });
  const svc = await cliServices(config, logger);
  const result = await completeHumanTask(svc, {
    runId: assertRunId(opts.runId),
    dagName,
    step: opts.step,
    input,
  });
  process.stdout.write(`${result.message}\n`);
  return EXIT_OK;
}
