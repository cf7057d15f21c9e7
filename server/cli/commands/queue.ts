// `dagu enqueue` and `dagu dequeue`: the same operations the API offers, run from the command line.

import { assertRunId } from '../../core/names';
import { createServices } from '../../api/services';
import { dequeueRun, enqueueDag } from '../../api/operations';
import { cliContext, type GlobalOptions } from '../context';
import { EXIT_OK } from '../exit';
import { cliParams, paramWords, type ParamFlags } from './start';
import { processPorts } from '../processPorts';

export async function enqueueCommand(
  dag: string,
  words: string[],
  opts: GlobalOptions & ParamFlags & { runId?: string },
) {
  const params = paramWords(cliParams('enqueue', dag, words, opts));
  const { config, logger } = cliContext(opts, { component: 'cli' });
  if (opts.runId !== undefined) assertRunId(opts.runId);
  const status = await enqueueDag(createServices(config, logger, processPorts()), dag, params, {
    runId: opts.runId,
  });
  process.stdout.write(`queued ${status.dag_name} ${status.run_id} in queue ${status.queue}\n`);
  return EXIT_OK;
}

export async function dequeueCommand(runId: string, opts: GlobalOptions) {
  const { config, logger } = cliContext(opts, { component: 'cli' });
  assertRunId(runId);
  const status = await dequeueRun(createServices(config, logger, processPorts()), runId);
  process.stdout.write(`dequeued ${status.dag_name} ${status.run_id}: ${status.status}\n`);
  return EXIT_OK;
}
