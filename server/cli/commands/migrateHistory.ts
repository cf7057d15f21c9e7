// `dagu migrate --history [--write] [DIR]`: imports the run history Dagu (1.30.2 or 2.x) kept in a Dagu home's
// `data/dag-runs` (or DIR) into this product's run store, so that `dagu history`, `dagu status` and the
// console show those runs. Dagu's files are only read: each finished run is written as a run of ours with its
// attempts, steps, handlers, params and sub-runs, and its step logs are copied into our logs directory. A run
// already in our store is left as it is (running the command again imports only what is new), and a run Dagu
// has not finished is reported and left out. Without --write it only lists what it would import.

import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { daguRunState, fromDaguAttempt, type DaguLogCopy, type SubRunInfo } from '../../core/daguRunRecord';
import { isValidDagName, isValidRunId } from '../../core/names';
import type { RunState, RunStatus } from '../../core/types';
import { LogFileNames } from '../../runner/logFiles';
import { attemptLogDir } from '../../runner/runAttempt';
import type { RunStore } from '../../store/types';
import type { Config } from '../../config/types';
import { cliContext, type GlobalOptions } from '../context';
import { EXIT_OK, EXIT_RUN_FAILED, UsageError } from '../exit';
import { cliControlPlane } from '../openControlPlane';

/** One run directory of Dagu's, with its attempts in the order Dagu made them and its sub-runs. */
interface DaguRun {
  dir: string;
  attempts: string[];
  children: DaguRun[];
}

/** The last line of an attempt's `status.jsonl` (Dagu appends a line per change), or null. */
async function lastRecord(attemptDir: string): Promise<unknown> {
  const text = await readFile(join(attemptDir, 'status.jsonl'), 'utf8').catch(() => null);
  const line = text
    ?.split('\n')
    .filter((l) => l.trim() !== '')
    .at(-1);
  if (!line) return null;
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return null;
  }
}

async function dirs(dir: string, prefix = ''): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isDirectory() && e.name.startsWith(prefix))
    .map((e) => e.name)
    .sort();
}

/** A run directory: its `attempt_*` (named by time, so in order) and `children/child_*`. */
async function readRunDir(dir: string): Promise<DaguRun> {
  const attempts = (await dirs(dir, 'attempt_')).map((a) => join(dir, a));
  const childRoot = join(dir, 'children');
  const children = await Promise.all(
    (await dirs(childRoot, 'child_')).map((c) => readRunDir(join(childRoot, c))),
  );
  return { dir, attempts, children };
}

/** Every root run under Dagu's `dag-runs` directory: `<dag>/dag-runs/YYYY/MM/DD/dag-run_*`. */
async function daguRuns(root: string): Promise<DaguRun[]> {
  const out: DaguRun[] = [];
  for (const dag of await dirs(root)) {
    const base = join(root, dag, 'dag-runs');
    for (const y of await dirs(base))
      for (const m of await dirs(join(base, y)))
        for (const d of await dirs(join(base, y, m)))
          for (const run of await dirs(join(base, y, m, d), 'dag-run_'))
            out.push(await readRunDir(join(base, y, m, d, run)));
  }
  return out;
}

interface Report {
  imported: number;
  skipped: number;
  refused: number;
}

export async function migrateHistoryCommand(
  from: string | undefined,
  opts: GlobalOptions & { write?: boolean },
): Promise<number> {
  const { config, logger } = cliContext(opts, { component: 'cli' });
  if (config.storage.backend === 'postgres')
    throw new UsageError(
      'dagu migrate --history imports into the data directory; with storage.backend postgres, import into a ' +
        'home on files first and copy it with dagu storage migrate --to postgres',
    );
  const root = from ?? join(config.paths.data_dir, 'dag-runs');
  if (!(await stat(root).catch(() => null))?.isDirectory())
    throw new UsageError(`no Dagu run history in ${root}: no such directory`);
  const runs = await daguRuns(root);
  const store = (await cliControlPlane(config, logger)).runs;
  const report: Report = { imported: 0, skipped: 0, refused: 0 };
  for (const run of runs) await importRun(config, store, run, null, opts.write === true, report);
  const verb = opts.write ? 'imported' : 'to import (run again with --write)';
  process.stdout.write(
    `${report.imported} Dagu run(s) ${verb}, ${report.skipped} already here, ${report.refused} not imported, from ${root}\n`,
  );
  return report.refused > 0 ? EXIT_RUN_FAILED : EXIT_OK;
}

/**
 * Dagu records absolute log paths. A home that has moved since (restored elsewhere, mounted at another path)
 * still has its logs under its logs directory: a path under the logs root the record names (its run log is
 * `<root>/<dag>/dag-run_…/…`) is looked up under ours when it is not where Dagu wrote it.
 */
function relocation(record: unknown, dagName: string, logDir: string): (path: string) => string {
  const log = record && typeof record === 'object' && 'log' in record ? String(record.log) : '';
  const at = log.indexOf(`/${dagName}/dag-run_`);
  if (at <= 0) return (path) => path;
  const oldRoot = log.slice(0, at);
  return (path) =>
    path.startsWith(`${oldRoot}/`) && !existsSync(path) ? join(logDir, path.slice(oldRoot.length + 1)) : path;
}

/** What a run's sub-runs are, read from their latest attempts, for the parent's steps. */
async function subRunIndex(run: DaguRun): Promise<SubRunInfo> {
  const known = new Map<string, { dag_name: string; status: RunState | null }>();
  for (const child of run.children) {
    const last = child.attempts.at(-1);
    const record = last ? await lastRecord(last) : null;
    if (record && typeof record === 'object' && 'dagRunId' in record && 'name' in record) {
      const state = daguRunState(record);
      const finished =
        state === 'succeeded' ||
        state === 'failed' ||
        state === 'aborted' ||
        state === 'partially_succeeded' ||
        state === 'rejected';
      known.set(String(record.dagRunId), {
        dag_name: String(record.name),
        status: finished ? state : null,
      });
    }
  }
  return (id) => known.get(id) ?? null;
}

async function importRun(
  config: Config,
  store: RunStore,
  run: DaguRun,
  parent: { status: RunStatus } | null,
  write: boolean,
  report: Report,
): Promise<void> {
  const refuse = (what: string, reason: string) => {
    report.refused++;
    process.stderr.write(`${what}: not imported: ${reason}\n`);
  };
  const subRuns = await subRunIndex(run);
  const converted: Array<{ status: RunStatus; copies: Array<DaguLogCopy & { to: string }> }> = [];
  // An attempt without a status record never started (Dagu left its directory behind); Dagu skips it too.
  const records: Array<{ dir: string; record: unknown }> = [];
  for (const dir of run.attempts) {
    const record = await lastRecord(dir);
    if (record !== null) records.push({ dir, record });
  }
  for (const [i, { dir: attemptDir, record }] of records.entries()) {
    const name = record && typeof record === 'object' && 'name' in record ? String(record.name) : '';
    const runId = record && typeof record === 'object' && 'dagRunId' in record ? String(record.dagRunId) : '';
    if (!isValidDagName(name) || !isValidRunId(runId))
      return refuse(attemptDir, `no DAG name and run ID this product can use (${name} ${runId})`);
    const logDir = attemptLogDir(store, config, name, runId, i + 1);
    const names = new LogFileNames(logDir.absolute, logDir.relative);
    const step = parent?.status.steps.find((s) => s.sub_runs?.some((r) => r.run_id === runId));
    const c = fromDaguAttempt(record, {
      attempt: i + 1,
      logDir: logDir.relative,
      logNames: (stepName) => names.allocate(stepName),
      subRuns,
      parent: parent
        ? { dag_name: parent.status.dag_name, run_id: parent.status.run_id, step: step?.name ?? '' }
        : null,
    });
    if (!c.ok) return refuse(`${name} ${runId}`, c.reason);
    const absolute = (rel: string) => join(config.paths.log_dir, rel);
    const moved = relocation(record, name, config.paths.log_dir);
    converted.push({
      status: c.status,
      copies: c.logs.map((l) => ({ ...l, from: moved(l.from), to: absolute(l.step[l.field] as string) })),
    });
  }
  const latest = converted.at(-1)?.status;
  if (!latest) return refuse(run.dir, 'it has no attempt with a status record');
  const what = `${latest.dag_name} ${latest.run_id}`;
  if ((await store.readStatus(latest.run_id)).kind !== 'missing') {
    report.skipped++;
  } else {
    const attempts = converted.length > 1 ? `, ${converted.length} attempts` : '';
    const under = parent ? `, sub-run of ${parent.status.dag_name} ${parent.status.run_id}` : '';
    if (write) {
      for (const { status, copies } of converted) {
        for (const copy of copies) {
          await mkdir(dirname(copy.to), { recursive: true });
          // A log Dagu has since removed leaves the step without its log, not the run without its record.
          const copied = await copyFile(copy.from, copy.to).then(
            () => true,
            () => false,
          );
          if (!copied) copy.step[copy.field] = null;
        }
        if (status.attempt === 1) {
          const created = await store.createRun(status);
          if (!created.created) return refuse(what, 'a run with that ID appeared meanwhile');
        } else {
          await store.createAttempt(status);
        }
      }
    }
    report.imported++;
    process.stdout.write(`${write ? 'imported' : 'import'}  ${what}  ${latest.status}${attempts}${under}\n`);
  }
  for (const child of run.children) await importRun(config, store, child, { status: latest }, write, report);
}
