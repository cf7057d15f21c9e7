// The DAG files of a folder that `dagu dags push` and `pull` keep in step with the DAG definitions (a Git
// checkout, say): its top-level `*.yaml` and `*.yml` files, as the DAGs directory is read. Subfolders and
// hidden files are not DAGs.

import path from 'node:path';
import { isValidDagName } from '../../core/names';
import { MAX_DAG_FILE_BYTES } from '../../store/dagCatalog';
import * as fs from '../../store/fileCalls';
import { errorMessage, readTextFile, readdirOrEmpty } from '../../store/fsutil';

const DAG_FILE = /^(.+)\.(yaml|yml)$/;

/** A DAG file of the folder. */
export interface FolderFile {
  /** The DAG it holds: the file's stem. */
  name: string;
  fileName: string;
  /** Absolute path. */
  file: string;
}

/** The folder's DAG files, sorted by file name (`etl.yaml` before `etl.yml`); [] when it does not exist. */
export async function listFolderFiles(dir: string): Promise<FolderFile[]> {
  const root = path.resolve(dir);
  const names = (await readdirOrEmpty(root)).filter((n) => !n.startsWith('.') && DAG_FILE.test(n)).sort();
  const out: FolderFile[] = [];
  for (const fileName of names) {
    const file = path.join(root, fileName);
    const st = await fs.stat(file).catch(() => null);
    if (st?.isFile()) out.push({ name: DAG_FILE.exec(fileName)![1], fileName, file });
  }
  return out;
}

/** A DAG file read for a push, with its text. */
export interface FolderDag extends FolderFile {
  text: string;
}

/**
 * Reads every DAG file of `dir` for a push: the DAGs, and one line per file that cannot be one (a stem that is
 * no DAG name, two files of one DAG, a file too large or unreadable), printed as `dagu validate` prints.
 */
export async function readFolderDags(dir: string): Promise<{ dags: FolderDag[]; problems: string[] }> {
  const dags: FolderDag[] = [];
  const problems: string[] = [];
  const seen = new Map<string, string>();
  for (const f of await listFolderFiles(dir)) {
    if (!isValidDagName(f.name)) {
      problems.push(
        `${f.file}: ${JSON.stringify(f.name)} is not a DAG name: use 1 to 64 letters, digits, "_", "-" or "." (not leading, no "..")`,
      );
      continue;
    }
    const first = seen.get(f.name);
    if (first !== undefined) {
      problems.push(`${f.file}: DAG ${JSON.stringify(f.name)} is also ${first}: keep one of the two files`);
      continue;
    }
    seen.set(f.name, f.fileName);
    try {
      const size = (await fs.stat(f.file)).size;
      if (size > MAX_DAG_FILE_BYTES) {
        problems.push(
          `${f.file}: the file has ${size} bytes; a DAG file has at most ${MAX_DAG_FILE_BYTES} bytes`,
        );
        continue;
      }
      dags.push({ ...f, text: await readTextFile(f.file) });
    } catch (err) {
      problems.push(`${f.file}: cannot read the file: ${errorMessage(err)}`);
    }
  }
  return { dags, problems };
}
