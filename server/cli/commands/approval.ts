// `dagu approval approve|reject|push-back --run-id ID --step NAME [--input k=v ...] [--reason TEXT] <dag>`:
// answers a step approval of a waiting run (api/approval.ts) and prints one line saying what became of it.

import { approveStep, pushBackStep, rejectStep } from '../../api/approval';
import { parseInputWords } from '../../core/approval';
import { assertRunId } from '../../core/names';
import { cliContext, type GlobalOptions } from '../context';
import { EXIT_OK, UsageError } from '../exit';
import { cliServices } from '../openControlPlane';

type Opts = GlobalOptions & { runId: string; step: string; input?: string[]; reason?: string };

async function answer(
  dagName: string,
  opts: Opts,
  act: (
    svc: Awaited<ReturnType<typeof cliServices>>,
    req: { runId: string; dagName: string; step: string; inputs: Record<string, string> },
  ) => Promise<{ message: string }>,
): Promise<number> {
  const step = opts.step.trim();
  if (step === '') throw new UsageError('--step must name the step waiting for approval');
  const words = parseInputWords(opts.input ?? []);
  if (!words.ok) throw new UsageError(words.error);
  // Its one line is the answer: the info lines stay out of stderr (warnings still go there).
  const { config, logger } = cliContext({ ...opts, quiet: true }, { component: 'cli' });
  const svc = await cliServices(config, logger);
  const result = await act(svc, { runId: assertRunId(opts.runId), dagName, step, inputs: words.inputs });
  process.stdout.write(`${result.message}\n`);
  return EXIT_OK;
}

export function approveCommand(dagName: string, opts: Opts): Promise<number> {
  if (opts.reason !== undefined) throw new UsageError('--reason is only for dagu approval reject');
  return answer(dagName, opts, (svc, req) => approveStep(svc, req));
}

export function rejectCommand(dagName: string, opts: Opts): Promise<number> {
  if (opts.input !== undefined) throw new UsageError('--input is not taken by dagu approval reject');
  return answer(dagName, opts, (svc, req) => rejectStep(svc, { ...req, reason: opts.reason }));
}

export function pushBackCommand(dagName: string, opts: Opts): Promise<number> {
  if (opts.reason !== undefined) throw new UsageError('--reason is only for dagu approval reject');
  return answer(dagName, opts, (svc, req) => pushBackStep(svc, req));
}
