// `dagu status`: prints a run's latest attempt, readable or as JSON. The run is named by its ID, or in Dagu's
// form by its DAG (`dagu status etl` is the DAG's latest run; `dagu status --run-id ID etl` one of its runs).
// A run waiting for a worker shows why as it is now, as the console does: with no coordinator alive,
// `NoAvailableCoordinator`.

import { withConditionsNow } from '../../api/waitingNow';
import { systemClock } from '../../core/clock';
import { cliContext, type GlobalOptions } from '../context';
import { EXIT_OK, EXIT_RUN_FAILED, UsageError } from '../exit';
import { printSummary } from './start';
import { resolveTarget, runOfDag } from './target';
import { cliControlPlane } from '../openControlPlane';

export async function statusCommand(word: string, opts: GlobalOptions & { json?: boolean; runId?: string }) {
  const { config, logger } = cliContext(opts, { component: 'cli' });
  const cp = await cliControlPlane(config, logger);
  const store = cp.runs;
  const target = await resolveTarget(config, store, word, opts.runId);
  let found;
  if (target.kind === 'dag') {
    found = await runOfDag(store, target.dagName, target.runId);
  } else {
    const r = await store.readStatus(target.runId);
    if (r.kind === 'missing') throw new UsageError(`run ${JSON.stringify(target.runId)} not found`);
    if (r.kind === 'corrupt')
      throw new UsageError(
        `status of run ${target.runId} is unreadable (${r.path}): ${r.error}`,
        EXIT_RUN_FAILED,
      );
    found = r.status;
  }
  const status = await withConditionsNow(
    {
      coordinators: cp.coordinators,
      tasks: cp.tasks,
      clock: systemClock,
    },
    found,
  );
  if (opts.json) process.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
  else printSummary(status);
  return EXIT_OK;
}
