// Moving files of ours out of data/distributed, where earlier versions kept the distributed stores and Dagu
// 2.x keeps its own (see distributedDir). A file moves only when its name and its content have our shape;
// every other file there is Dagu's and is left byte for byte as it is.

import path from 'node:path';
import { errorCode, ensureDir, isTempName, pathExists, readTextFile, readdirOrEmpty } from './fsutil';
import * as fs from './fileCalls';

/** Options of adoptLegacyFiles. */
export interface AdoptLegacyFiles {
  /** The old directory (under data/distributed). */
  from: string;
  /** Its counterpart under data/cluster. */
  to: string;
  /** Whether `name` can be the name of a file of ours (checked before the file is read). */
  isOurName: (name: string) => boolean;
  /** Whether the file `name`, whose text is `text`, is one of ours. */
  isOurs: (name: string, text: string) => boolean;
}

/**
 * Renames every file of ours from `from` into `to`, keeping its name, and returns the names moved. A name
 * already taken in `to` is left where it is (the new file wins). Of several processes adopting at once, each
 * file is moved by exactly one (the others find it gone).
 */
export async function adoptLegacyFiles(opts: AdoptLegacyFiles): Promise<string[]> {
  const moved: string[] = [];
  const names = (await readdirOrEmpty(opts.from)).filter((name) => !isTempName(name) && opts.isOurName(name));
  names.sort();
  for (const name of names) {
    const from = path.join(opts.from, name);
    let text: string;
    try {
      text = await readTextFile(from);
    } catch (err) {
      // Gone (another process moved it) or a directory (Dagu's): nothing of ours.
      if (errorCode(err) === 'ENOENT' || errorCode(err) === 'EISDIR') continue;
      throw err;
    }
    if (!opts.isOurs(name, text)) continue;
    const to = path.join(opts.to, name);
    if (await pathExists(to)) continue;
    await ensureDir(opts.to);
    try {
      await fs.rename(from, to);
      moved.push(name);
    } catch (err) {
      if (errorCode(err) !== 'ENOENT') throw err;
    }
  }
  return moved;
}

/** `text` parsed as JSON, or undefined when it is not JSON. */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
