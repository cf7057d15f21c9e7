// `dagu status`: prints a run's latest attempt, readable or as JSON. The run is named by its ID, or in Dagu's
// form by its DAG (`dagu status etl` is the DAG's latest run; `dagu status --run-id ID etl` one of its runs).
// A run waiting for a worker shows why as it is now, as the console does: with no coordinator alive,
// `NoAvailableCoordinator`. The readable form ends with the run's artifacts, when it has any.

import { withConditionsNow } from '../../api/waitingNow';
import { systemClock } from '../../core/clock';
import { cliContext, type GlobalOptions } from '../context';
import { assertRunId } from '../../core/names';
import type { RunStatus } from '../../core/types';
import type { RunStore } from '../../store/types';
import { EXIT_OK, EXIT_RUN_FAILED, UsageError } from '../exit';
import { printSummary } from './start';
import { resolveTarget, runOfDag } from './target';
import { cliControlPlane } from '../openControlPlane';

type StatusOptions = GlobalOptions & { json?: boolean; runId?: string; subRunId?: string };

export async function statusCommand(word: string, opts: StatusOptions) {
  const { config, logger } = cliContext(opts, { component: 'cli' });
  if (opts.subRunId !== undefined && opts.runId === undefined)
    throw new UsageError(
      `--sub-run-id needs --run-id, the run it was started under: ` +
        `dagu status --run-id ID --sub-run-id ${opts.subRunId} ${word}`,
    );
  if (opts.subRunId !== undefined) assertRunId(opts.subRunId);
  const cp = await cliControlPlane(config, logger);
  const store = cp.runs;
  const target = await resolveTarget(config, store, word, opts.runId);
  let found;
  if (target.kind === 'dag') {
    found = await runOfDag(store, target.dagName, target.runId);
    if (opts.subRunId !== undefined) found = await subRunOf(store, found, opts.subRunId);
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
  else {
    printSummary(status);
    // The files its steps left in DAG_RUN_ARTIFACTS_DIR (`GET /api/v1/runs/{id}/artifacts` sends them).
    const artifacts = await cp.artifacts.list(status.run_id).catch(() => []);
    if (artifacts.length > 0) {
      process.stdout.write(`  artifacts (${artifacts.length}):\n`);
      for (const a of artifacts) process.stdout.write(`    ${a.path} (${a.size} bytes)\n`);
    }
  }
  return EXIT_OK;
}

/** The deepest a chain of call steps is followed up from a sub-run to its root. */
const MAX_NESTING = 100;

/**
 * Dagu's `--sub-run-id`: a run that a call step started under `root`, at any depth (a sub-run of a sub-run
 * too). Exit 1 when there is no such run, or it was not started under `root`.
 */
async function subRunOf(store: Pick<RunStore, 'readStatus'>, root: RunStatus, subRunId: string) {
  const read = async (id: string) => {
    const r = await store.readStatus(id);
    if (r.kind === 'corrupt')
      throw new UsageError(`status of run ${id} is unreadable (${r.path}): ${r.error}`, EXIT_RUN_FAILED);
    return r.kind === 'ok' ? r.status : null;
  };
  const notUnder = (why: string) =>
    new UsageError(
      `run ${root.run_id} of DAG ${root.dag_name} has no sub-run ${JSON.stringify(subRunId)} (${why})`,
      EXIT_RUN_FAILED,
    );
  const sub = await read(subRunId);
  if (sub === null) throw notUnder('no run has that ID');
  let parent = sub.parent ?? null;
  for (let depth = 0; parent !== null && depth < MAX_NESTING; depth++) {
    if (parent.run_id === root.run_id) return sub;
    parent = (await read(parent.run_id))?.parent ?? null;
  }
  throw notUnder(sub.parent ? 'it was started under another run' : 'it is not a sub-run');
}
