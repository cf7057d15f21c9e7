// `dagu stop`: asks a running run to stop (its process aborts the steps) or removes a queued one. A run handed
// to the workers is cancelled through the dispatcher: at once while it waits for a worker, else by its worker.

import { assertRunId } from '../../core/names';
import { createServices } from '../../api/services';
import { requestStop } from '../../api/stopRun';
import { cliContext, type GlobalOptions } from '../context';
import { EXIT_OK } from '../exit';
import { cancelLine } from './dispatchClient';

export async function stopCommand(runId: string, opts: GlobalOptions) {
  const { config, logger } = cliContext(opts, { component: 'cli' });
  assertRunId(runId);
  const { outcome, status } = await requestStop(createServices(config, logger), runId);
  const line =
    outcome === 'aborted' || outcome === 'requested'
      ? cancelLine({ kind: outcome, status }, runId, null)
      : `stop requested for ${status.dag_name} ${status.run_id} (${status.status})`;
  process.stdout.write(`${line}\n`);
  return EXIT_OK;
}
