// `dagu enqueue` and `dagu dequeue`: the same operations the API offers, run from the command line.

import { assertRunId } from '../../core/names';
import { dequeueRun, enqueueDag } from '../../api/operations';
import { cliContext, type GlobalOptions } from '../context';
import { EXIT_OK } from '../exit';
import { cliParams, paramWords, type ParamFlags } from './start';
import { cliServices } from '../openControlPlane';

export async function enqueueCommand(
  dag: string,
  words: string[],
  opts: GlobalOptions & ParamFlags & { runId?: string; name?: string },
) {
  const params = paramWords(cliParams('enqueue', dag, words, opts));
  const { config, logger } = cliContext(opts, { component: 'cli' });
  if (opts.runId !== undefined) assertRunId(opts.runId);
  const status = await enqueueDag(await cliServices(config, logger), dag, params, {
    runId: opts.runId,
    name: opts.name,
  });
  process.stdout.write(`queued ${status.dag_name} ${status.run_id} in queue ${status.queue}\n`);
  return EXIT_OK;
}

export async function dequeueCommand(runId: string, opts: GlobalOptions) {
  const { config, logger } = cliContext(opts, { component: 'cli' });
  assertRunId(runId);
  const status = await dequeueRun(await cliServices(config, logger), runId);
  process.stdout.write(`dequeued ${status.dag_name} ${status.run_id}: ${status.status}\n`);
  return EXIT_OK;
}
