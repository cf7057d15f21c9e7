// What the one word of `dagu status|stop|restart|retry|resume` names: one of our run IDs, or a DAG (Dagu's
// form, where `--run-id` picks one of its runs and without it the command takes the DAG's latest or running
// runs). The word is a DAG when it is a DAG file's path or `--run-id` is given; otherwise a word shaped like
// the IDs we generate is a run ID, and any other word is a DAG if one has that name (a file or past runs),
// else a run ID if a run has it.

import { statSync } from 'node:fs';
import type { Config } from '../../config/types';
import { assertDagName, assertRunId, isValidDagName, isValidRunId } from '../../core/names';
import type { RunStatus } from '../../core/types';
import { loadDag } from '../../store/dagCatalog';
import type { RunStore } from '../../store/types';
import { EXIT_RUN_FAILED, UsageError } from '../exit';
import { dagsWhere, loadDagOrThrow } from '../loadDagOrThrow';

/** A manual run ID (`20261130-011530-1a2b3c4d`) or a schedule slot's (`sched-<hash>-20261130T0115Z`). */
const GENERATED_RUN_ID = /^(\d{8}-\d{6}-[0-9a-f]{8}|sched-[0-9a-f]{12}-\d{8}T\d{4}(\d{2})?Z)$/;

/** Whether `word` has the shape of a run ID this product generates (never a DAG name in practice). */
export function isGeneratedRunId(word: string): boolean {
  return GENERATED_RUN_ID.test(word);
}

/** Whether `word` is a path to a DAG file rather than a name: Dagu takes a `.yaml`/`.yml` word as a file. */
export function isDagPath(word: string): boolean {
  return (
    /\.ya?ml$/i.test(word) ||
    (word.includes('/') && statSync(word, { throwIfNoEntry: false })?.isFile() === true)
  );
}

/** The command's subject: a run by its ID, or a DAG by name with the `--run-id` given, if any. */
export type Target =
  { kind: 'run'; runId: string } | { kind: 'dag'; dagName: string; runId: string | undefined };

type Runs = Pick<RunStore, 'readStatus' | 'listRuns'>;

/**
 * Decides what `word` names (see the module comment). Throws a UsageError with exit code 1 (as Dagu) when it
 * names neither a DAG nor a run, and InvalidNameError when it cannot be either.
 */
export async function resolveTarget(
  config: Config,
  runs: Runs,
  word: string,
  runIdFlag: string | undefined,
): Promise<Target> {
  if (runIdFlag !== undefined) assertRunId(runIdFlag);
  if (isDagPath(word)) {
    const dag = await loadDagOrThrow(config, word);
    return { kind: 'dag', dagName: dag.name, runId: runIdFlag };
  }
  if (runIdFlag !== undefined) return { kind: 'dag', dagName: assertDagName(word), runId: runIdFlag };
  const runExists = async () => isValidRunId(word) && (await runs.readStatus(word)).kind !== 'missing';
  if (isGeneratedRunId(word) && (await runExists())) return { kind: 'run', runId: word };
  if (isValidDagName(word) && (await dagExists(config, runs, word)))
    return { kind: 'dag', dagName: word, runId: undefined };
  if (await runExists()) return { kind: 'run', runId: word };
  if (!isValidDagName(word)) assertRunId(word);
  throw new UsageError(
    `no DAG or run named ${JSON.stringify(word)}: no such DAG in ${dagsWhere(config)}, ` +
      `no run of such a DAG and no run with that ID`,
    EXIT_RUN_FAILED,
  );
}

/** A DAG exists for these commands when its file does or runs of it are recorded. */
async function dagExists(config: Config, runs: Runs, name: string): Promise<boolean> {
  const loaded = await loadDag(config.paths.dags_dir, name);
  if (!(!loaded.ok && 'notFound' in loaded)) return true;
  return (await runs.listRuns({ dag: name, limit: 1 })).items.length > 0;
}

/**
 * The run of a DAG that `--run-id` names, or without one its latest run (`dagu status <dag>`). Exit 1 when
 * there is none, as Dagu.
 */
export async function runOfDag(runs: Runs, dagName: string, runId: string | undefined): Promise<RunStatus> {
  if (runId !== undefined) {
    const r = await runs.readStatus(runId);
    if (r.kind === 'ok' && r.status.dag_name === dagName) return r.status;
    if (r.kind === 'corrupt')
      throw new UsageError(`status of run ${runId} is unreadable (${r.path}): ${r.error}`, EXIT_RUN_FAILED);
    const other = r.kind === 'ok' ? ` (run ${runId} is a run of DAG ${r.status.dag_name})` : '';
    throw new UsageError(`DAG ${dagName} has no run ${JSON.stringify(runId)}${other}`, EXIT_RUN_FAILED);
  }
  const latest = (await runs.listRuns({ dag: dagName, limit: 1 })).items[0];
  if (!latest) throw new UsageError(`DAG ${dagName} has no runs yet`, EXIT_RUN_FAILED);
  const r = await runs.readStatus(latest.run_id);
  if (r.kind !== 'ok')
    throw new UsageError(
      `the latest run of DAG ${dagName} (${latest.run_id}) cannot be read`,
      EXIT_RUN_FAILED,
    );
  return r.status;
}

/** The DAG's runs that are running now (queued ones are not: `dagu dequeue` removes those). */
export async function runningRunsOf(
  runs: Pick<RunStore, 'readStatus' | 'listActive'>,
  dagName: string,
): Promise<RunStatus[]> {
  const found: RunStatus[] = [];
  for (const active of await runs.listActive()) {
    if (active.dag_name !== dagName) continue;
    const r = await runs.readStatus(active.run_id);
    if (r.kind === 'ok' && r.status.status === 'running') found.push(r.status);
  }
  return found.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
}
