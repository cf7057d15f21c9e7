// `dagu stop`: asks a running run to stop (its process aborts the steps) or removes a queued one. A run handed
// to the workers is cancelled through the dispatcher: at once while it waits for a worker, else by its worker.
// In Dagu's form `dagu stop <dag>` stops every running run of the DAG (none running is not an error, as in
// Dagu) and `dagu stop --run-id ID <dag>` the one run.

import { type Services } from '../../api/services';
import { requestStop } from '../../api/stopRun';
import { cliContext, type GlobalOptions } from '../context';
import { EXIT_OK, EXIT_RUN_FAILED } from '../exit';
import { cancelLine } from './dispatchClient';
import { resolveTarget, runOfDag, runningRunsOf } from './target';
import { cliServices } from '../openControlPlane';

export async function stopCommand(word: string, opts: GlobalOptions & { runId?: string }) {
  const { config, logger } = cliContext(opts, { component: 'cli' });
  const svc = await cliServices(config, logger);
  const target = await resolveTarget(config, svc.runs, word, opts.runId);
  if (target.kind === 'run') return stopOne(svc, target.runId);
  if (target.runId !== undefined) {
    const run = await runOfDag(svc.runs, target.dagName, target.runId);
    return stopOne(svc, run.run_id);
  }
  const running = await runningRunsOf(svc.runs, target.dagName);
  if (running.length === 0) {
    if (!opts.quiet) process.stdout.write(`no running run of ${target.dagName} to stop\n`);
    return EXIT_OK;
  }
  // One run that cannot be stopped (on another host, say) does not keep the others running.
  let failed = 0;
  for (const run of running) {
    await stopOne(svc, run.run_id).catch((err: Error) => {
      failed++;
      process.stderr.write(`dagu: ${err.message}\n`);
    });
  }
  return failed > 0 ? EXIT_RUN_FAILED : EXIT_OK;
}

async function stopOne(svc: Services, runId: string): Promise<number> {
  const { outcome, status } = await requestStop(svc, runId);
  const line =
    outcome === 'aborted_waiting'
      ? `aborted ${status.dag_name} ${status.run_id}, which was waiting for human tasks`
      : outcome === 'aborted' || outcome === 'requested'
        ? cancelLine({ kind: outcome, status }, runId, null)
        : `stop requested for ${status.dag_name} ${status.run_id} (${status.status})`;
  process.stdout.write(`${line}\n`);
  return EXIT_OK;
}
