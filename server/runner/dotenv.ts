// A DAG's `dotenv` files: read at run start, in order (`.env` first), each found relative to the DAG's
// working directory and then to the DAG file's directory. A missing file is skipped without a word and a
// file that cannot be read or parsed only gives a warning, as in Dagu.

import { parse } from 'dotenv';
import { isAbsolute, join } from 'node:path';
import * as files from '../store/fileCalls';

/** What the dotenv files gave: their variables in load order (later wins), and the warnings. */
export interface DotenvResult {
  values: Array<[string, string]>;
  warnings: string[];
}

/** `.env` first, then the DAG's list, each once (the first occurrence keeps its place). */
export function dotenvLoadOrder(paths: readonly string[]): string[] {
  return [...new Set(['.env', ...paths.map((p) => p.trim())])].filter((p) => p !== '');
}

/**
 * Loads the files of `paths` (already value-resolved). A relative path is looked up in each of `baseDirs`
 * in turn; the first existing file is read.
 */
export async function loadDotenv(
  paths: readonly string[],
  baseDirs: readonly string[],
): Promise<DotenvResult> {
  const out: DotenvResult = { values: [], warnings: [] };
  for (const path of dotenvLoadOrder(paths)) {
    const candidates = isAbsolute(path) ? [path] : [...new Set(baseDirs)].map((dir) => join(dir, path));
    let file: string | null = null;
    for (const candidate of candidates) {
      const isFile = await files.stat(candidate).then(
        (s) => s.isFile(),
        () => false,
      );
      if (isFile) {
        file = candidate;
        break;
      }
    }
    if (file === null) continue;
    try {
      const parsed = parse(await files.readText(file));
      for (const [name, value] of Object.entries(parsed)) out.values.push([name, value]);
    } catch (err) {
      out.warnings.push(`failed to load dotenv file ${JSON.stringify(file)}: ${(err as Error).message}`);
    }
  }
  return out;
}
