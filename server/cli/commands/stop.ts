// `dagu stop`: asks a running run to stop (its process aborts the steps) or removes a queued one.

import { assertRunId } from '../../core/names';
import { createServices } from '../../api/services';
import { stopRun } from '../../api/operations';
import { cliContext, type GlobalOptions } from '../context';
import { EXIT_OK } from '../exit';

export async function stopCommand(runId: string, opts: GlobalOptions) {
  const { config, logger } = cliContext(opts, { component: 'cli' });
  assertRunId(runId);
  const status = await stopRun(createServices(config, logger), runId);
  process.stdout.write(`stop requested for ${status.dag_name} ${status.run_id} (${status.status})\n`);
  return EXIT_OK;
}
