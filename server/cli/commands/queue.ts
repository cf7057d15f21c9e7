// `dagu enqueue` and `dagu dequeue`: the same operations the API offers, run from the command line, in our
// forms and in Dagu's (`enqueue` of a DAG file, `-u/--queue`; `dequeue <queue> [--dag-run DAG:ID]`, which
// without --dag-run takes the oldest run of the queue).

import { dirname, resolve } from 'node:path';
import type { Config } from '../../config/types';
import { assertDagName, assertRunId, isValidDagName, isValidRunId } from '../../core/names';
import { dequeueRun, enqueueDag } from '../../api/operations';
import { cliContext, type GlobalOptions } from '../context';
import { EXIT_OK, EXIT_RUN_FAILED, UsageError } from '../exit';
import { loadDagOrThrow } from '../loadDagOrThrow';
import { cliLabels, cliParams, cliParamsJson, paramWords, type LabelFlags, type ParamFlags } from './start';
import { isDagPath } from './target';
import { cliServices } from '../openControlPlane';

export async function enqueueCommand(
  dag: string,
  words: string[],
  opts: GlobalOptions &
    ParamFlags &
    LabelFlags & {
      runId?: string;
      name?: string;
      queue?: string;
      defaultWorkingDir?: string;
      /** `--no-reuse` (commander's negated flag: false when given). */
      reuse?: boolean;
    },
) {
  if (opts.defaultWorkingDir !== undefined && opts.defaultWorkingDir.trim() === '')
    throw new UsageError('--default-working-dir: the directory is empty');
  const params = paramWords(cliParams('enqueue', dag, words, opts));
  const labels = cliLabels(opts);
  const { config, logger } = cliContext(opts, { component: 'cli' });
  if (opts.runId !== undefined) assertRunId(opts.runId);
  const status = await enqueueDag(
    await cliServices(config, logger),
    await queuedDagName(config, dag),
    params,
    {
      runId: opts.runId,
      name: opts.name,
      queue: opts.queue,
      paramsJson: cliParamsJson(words, opts),
      // Taken from the directory the command runs in, as `dagu start` takes it.
      defaultWorkingDir: opts.defaultWorkingDir === undefined ? undefined : resolve(opts.defaultWorkingDir),
      labels,
      noReuse: opts.reuse === false,
    },
  );
  process.stdout.write(`queued ${status.dag_name} ${status.run_id} in queue ${status.queue}\n`);
  return EXIT_OK;
}

/**
 * The DAG a queued run names: Dagu takes a file too. The scheduler starts queued runs from the DAGs directory,
 * so a file must be one of its DAGs.
 */
async function queuedDagName(config: Config, word: string): Promise<string> {
  if (!isDagPath(word)) return word;
  const dag = await loadDagOrThrow(config, word);
  if (dag.file && dirname(dag.file) === resolve(config.paths.dags_dir)) return dag.name;
  throw new UsageError(
    `${word} is not in the DAGs directory (${config.paths.dags_dir}), where the scheduler starts queued runs ` +
      `from: put it there, or run it now with dagu start ${word}`,
  );
}

export async function dequeueCommand(word: string, opts: GlobalOptions & { dagRun?: string }) {
  const { config, logger } = cliContext(opts, { component: 'cli' });
  const svc = await cliServices(config, logger);
  const runId = await runToDequeue(svc, word, opts.dagRun);
  const status = await dequeueRun(svc, runId);
  process.stdout.write(`dequeued ${status.dag_name} ${status.run_id}: ${status.status}\n`);
  return EXIT_OK;
}

type Svc = Awaited<ReturnType<typeof cliServices>>;

/**
 * Which run `dequeue` means: Dagu's `<queue> --dag-run DAG:ID` (that run, which must be in that queue),
 * our `<run-id>`, or Dagu's `<queue>` alone (the oldest run waiting in it). Exit 1 when there is none.
 */
async function runToDequeue(svc: Svc, word: string, dagRun: string | undefined): Promise<string> {
  if (dagRun !== undefined) {
    const at = dagRun.lastIndexOf(':');
    if (at <= 0 || at === dagRun.length - 1)
      throw new UsageError(`--dag-run takes DAG:RUN_ID, got ${JSON.stringify(dagRun)}`);
    const dagName = assertDagName(dagRun.slice(0, at));
    const runId = assertRunId(dagRun.slice(at + 1));
    const r = await svc.runs.readStatus(runId);
    if (r.kind !== 'ok' || r.status.dag_name !== dagName)
      throw new UsageError(`DAG ${dagName} has no run ${JSON.stringify(runId)}`, EXIT_RUN_FAILED);
    if (r.status.queue !== word)
      throw new UsageError(
        `run ${runId} of DAG ${dagName} is in queue ${r.status.queue}, not ${word}`,
        EXIT_RUN_FAILED,
      );
    return runId;
  }
  if (isValidRunId(word) && (await svc.runs.readStatus(word)).kind !== 'missing') return word;
  const head = isValidDagName(word) ? (await svc.queue.list(word))[0] : undefined;
  if (head) return head.run_id;
  throw new UsageError(
    `no run with ID ${JSON.stringify(word)} and no queued run in a queue of that name`,
    EXIT_RUN_FAILED,
  );
}
