// `dagu dags push DIR`: makes the DAG definitions what the folder holds. Every file is checked first with
// `dagu validate`'s strict loader (and the DAGs directory's base config, as it will be loaded); one bad file
// and nothing at all is written. Then each DAG is written (an identical text is left alone) and, with
// `deleteAbsent`, the DAGs the folder does not have are deleted, each only if it still has the version the
// push listed (an edit made meanwhile is reported, not lost) and no queued or running run (which the delete
// would strand, as the console's editor refuses too). A folder with no DAG file at all, pushed with
// `deleteAbsent`, would delete every definition (a mistyped path, an empty checkout), so it is refused unless
// `allowEmpty` says that is meant.

import { activeDagRuns, activeDagRunsRefusal } from '../../api/dagActiveRuns';
import { formatDagError } from '../../core/dag/dagError';
import { parseDagText } from '../../store/dagCatalog';
import type { DagDefinitions } from '../../store/dagDefinitions';
import type { RunStore } from '../../store/types';
import { dagVersion } from '../../store/dagFiles';
import { errorMessage } from '../../store/fsutil';
import { readFolderDags } from './dagFolder';

export type PushAction = 'created' | 'updated' | 'unchanged' | 'deleted';

export interface PushOptions {
  store: DagDefinitions;
  /** The run store, asked right before each delete whether the DAG has queued or running runs. */
  runs: Pick<RunStore, 'listActive'>;
  /** The folder pushed. */
  dir: string;
  /** The DAGs directory whose base config the DAGs will be loaded with. */
  dagsDir: string;
  deleteAbsent: boolean;
  /** With `deleteAbsent`, accept a folder with no DAG file, which deletes every definition. */
  allowEmpty: boolean;
  dryRun: boolean;
  /** Recorded as the writer. */
  by: string;
}

export interface PushReport {
  /** Why the folder was refused, one line each (`file:line:column: field: message`); nothing was written. */
  invalid: string[];
  /**
   * Why the push was refused as a whole (a `deleteAbsent` push of a folder with no DAG file, which would
   * delete every definition); nothing was written. Null when it was not.
   */
  refused: string | null;
  /** Deprecated spellings and the like: the DAGs are valid. */
  warnings: string[];
  /** What was done (or, in a dry run, would be), by DAG, in name order. */
  actions: Array<{ name: string; action: PushAction }>;
  /** Writes that did not happen, with the reason. */
  failures: Array<{ name: string; message: string }>;
}

export async function pushDags(o: PushOptions): Promise<PushReport> {
  const report: PushReport = { invalid: [], refused: null, warnings: [], actions: [], failures: [] };
  const { dags, problems } = await readFolderDags(o.dir);
  report.invalid.push(...problems);
  for (const d of dags) {
    const r = await parseDagText(o.dagsDir, d.file, d.text, { strict: true });
    if (!r.ok) report.invalid.push(...r.errors.map(formatDagError));
    else report.warnings.push(...r.warnings.map((w) => `${d.file}: warning: ${w}`));
  }
  if (report.invalid.length > 0) return report;

  const listed = new Map((await o.store.list()).map((e) => [e.name, e]));
  if (o.deleteAbsent && !o.allowEmpty && dags.length === 0 && listed.size > 0) {
    const n = listed.size;
    report.refused =
      `${o.dir} holds no DAG file (*.yaml, *.yml), so --delete would delete ` +
      `${n === 1 ? 'the only DAG definition' : `all ${n} DAG definitions`}; check the folder, or add --allow-empty to delete them all`;
    return report;
  }
  const inFolder = new Set(dags.map((d) => d.name));
  for (const d of dags) {
    if (o.dryRun) {
      const before = listed.get(d.name);
      const action = !before ? 'created' : before.version === dagVersion(d.text) ? 'unchanged' : 'updated';
      report.actions.push({ name: d.name, action });
      continue;
    }
    try {
      const r = await o.store.put(d.name, d.text, { by: o.by, fileName: d.fileName });
      if (r.ok) report.actions.push({ name: d.name, action: r.outcome });
      else report.failures.push({ name: d.name, message: `not written (${r.reason})` });
    } catch (err) {
      report.failures.push({ name: d.name, message: errorMessage(err) });
    }
  }
  if (o.deleteAbsent) {
    for (const entry of listed.values()) {
      if (inFolder.has(entry.name)) continue;
      if (await refusedWhileActive(o, entry.name, report)) continue;
      if (o.dryRun) {
        report.actions.push({ name: entry.name, action: 'deleted' });
        continue;
      }
      await deleteListed(o, entry.name, entry.version, report);
    }
  }
  report.actions.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return report;
}

/** True (and the refusal reported) when the DAG has queued or running runs, which deleting it would strand. */
async function refusedWhileActive(o: PushOptions, name: string, report: PushReport): Promise<boolean> {
  let active: string[];
  try {
    active = await activeDagRuns(o.runs, name);
  } catch (err) {
    report.failures.push({
      name,
      message: `not deleted: its runs could not be checked (${errorMessage(err)})`,
    });
    return true;
  }
  if (active.length === 0) return false;
  report.failures.push({ name, message: activeDagRunsRefusal(name, 'delete', active) });
  return true;
}

async function deleteListed(
  o: PushOptions,
  name: string,
  version: string,
  report: PushReport,
): Promise<void> {
  try {
    const r = await o.store.delete(name, { expectedVersion: version, by: o.by });
    if (r.ok) report.actions.push({ name, action: 'deleted' });
    else if (r.reason === 'conflict') {
      report.failures.push({ name, message: 'not deleted: it changed since the push listed it' });
    }
    // 'missing': deleted by someone else meanwhile, which is what the push wanted.
  } catch (err) {
    report.failures.push({ name, message: errorMessage(err) });
  }
}
