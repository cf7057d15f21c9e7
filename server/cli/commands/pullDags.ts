// `dagu dags pull DIR`: writes the DAG definitions into the folder, each file replaced atomically (a reader
// or `git diff` never sees half a file) and only when its text differs. A DAG keeps the file the folder
// already has for it (`etl.yml` stays `etl.yml`); with `deleteAbsent`, every other DAG file of the folder is
// removed, so that the folder holds exactly the definitions. When there are no definitions at all (a wrong
// database or schema, an empty DAGs directory), that would empty the folder, so it is refused unless
// `allowEmpty` says that is meant.

import path from 'node:path';
import type { DagDefinitions } from '../../store/dagDefinitions';
import * as fs from '../../store/fileCalls';
import { ensureDir, errorCode, readTextFile, writeFileAtomic } from '../../store/fsutil';
import { listFolderFiles, type FolderFile } from './dagFolder';

export type PullAction = 'created' | 'updated' | 'unchanged' | 'deleted';

export interface PullOptions {
  store: Pick<DagDefinitions, 'list' | 'getMany'>;
  dir: string;
  deleteAbsent: boolean;
  /** With `deleteAbsent`, accept that there are no definitions, which removes every DAG file of the folder. */
  allowEmpty: boolean;
  dryRun: boolean;
}

export interface PullReport {
  /**
   * Why the pull was refused as a whole (a `deleteAbsent` pull with no definitions, which would remove
   * every DAG file of the folder); nothing was written. Null when it was not.
   */
  refused: string | null;
  /** By DAG name; a deleted file by its file name. In name order. */
  actions: Array<{ name: string; action: PullAction }>;
}

export async function pullDags(o: PullOptions): Promise<PullReport> {
  const dir = path.resolve(o.dir);
  const names = (await o.store.list()).map((e) => e.name);
  const defs = await o.store.getMany(names);
  const local = new Map<string, FolderFile>();
  const files = await listFolderFiles(dir);
  for (const f of files) if (!local.has(f.name)) local.set(f.name, f);
  if (o.deleteAbsent && !o.allowEmpty && names.length === 0 && files.length > 0) {
    const n = files.length;
    const refused =
      `there are no DAG definitions, so --delete would remove ` +
      `${n === 1 ? 'the only DAG file' : `all ${n} DAG files`} ` +
      `of ${o.dir}; check the storage settings, or add --allow-empty to remove them all`;
    return { refused, actions: [] };
  }
  if (!o.dryRun) await ensureDir(dir);

  const actions: PullReport['actions'] = [];
  const targets = new Set<string>();
  for (const def of defs) {
    const target = local.get(def.name)?.file ?? path.join(dir, def.fileName);
    targets.add(target);
    const before = await readIfExists(target);
    if (before?.text === def.yaml) {
      actions.push({ name: def.name, action: 'unchanged' });
      continue;
    }
    if (!o.dryRun) await writeFileAtomic(target, def.yaml, before ? { mode: before.mode } : {});
    actions.push({ name: def.name, action: before ? 'updated' : 'created' });
  }
  if (o.deleteAbsent) {
    for (const f of files) {
      if (targets.has(f.file)) continue;
      if (!o.dryRun) await fs.unlink(f.file).catch(ignoreMissing);
      actions.push({ name: f.fileName, action: 'deleted' });
    }
  }
  actions.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { refused: null, actions };
}

async function readIfExists(file: string): Promise<{ text: string; mode: number } | null> {
  try {
    const st = await fs.stat(file);
    return { text: await readTextFile(file), mode: st.mode & 0o777 };
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return null;
    throw err;
  }
}

function ignoreMissing(err: unknown): void {
  if (errorCode(err) !== 'ENOENT') throw err;
}
