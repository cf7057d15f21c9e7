// `dagu status`: prints a run's latest attempt, readable or as JSON. A run waiting for a worker shows why as it
// is now, as the console does: with no coordinator alive, `NoAvailableCoordinator`.

import { withConditionsNow } from '../../api/waitingNow';
import { systemClock } from '../../core/clock';
import { assertRunId } from '../../core/names';
import { FileCoordinatorRegistry } from '../../store/fileCoordinatorRegistry';
import { FileDispatchStore } from '../../store/fileDispatchStore';
import { FileRunStore } from '../../store/fileRunStore';
import { cliContext, type GlobalOptions } from '../context';
import { EXIT_OK, UsageError } from '../exit';
import { printSummary } from './start';

export async function statusCommand(runId: string, opts: GlobalOptions & { json?: boolean }) {
  const { config } = cliContext(opts, { component: 'cli' });
  assertRunId(runId);
  const store = new FileRunStore({ dataDir: config.paths.data_dir, logDir: config.paths.log_dir });
  const r = await store.readStatus(runId);
  if (r.kind === 'missing') throw new UsageError(`run ${JSON.stringify(runId)} not found`);
  if (r.kind === 'corrupt')
    throw new UsageError(`status of run ${runId} is unreadable (${r.path}): ${r.error}`, 1);
  const dataDir = config.paths.data_dir;
  const status = await withConditionsNow(
    {
      coordinators: new FileCoordinatorRegistry({ dataDir }),
      tasks: new FileDispatchStore({ dataDir }),
      clock: systemClock,
    },
    r.status,
  );
  if (opts.json) process.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
  else printSummary(status);
  return EXIT_OK;
}
