// Where the paths of a `file.*` action point: relative ones start at the step's working directory, `~`
// is the home directory, and the result is cleaned (no `..`, no trailing slash). Symlinks are resolved
// only to compare a copy's source and destination, never to decide what is read or written.

import { realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, parse, relative, resolve, sep } from 'node:path';
import { errnoCode } from './fsErrorText';

/** The absolute, cleaned path a `with` path names. `home` overrides the process's home directory. */
export function resolveFilePath(raw: string, workingDir: string, home?: string): string {
  const path = raw.trim();
  if (path.startsWith('~')) return resolve(join(home || homedir(), path.slice(1)));
  if (isAbsolute(path)) return resolve(path);
  return resolve(workingDir, path);
}

/** Whether the path is a file-system root (`/`). */
export function isRootPath(path: string): boolean {
  const clean = resolve(path);
  return clean === parse(clean).root;
}

/** Whether `child` is `parent` or lies inside it, with symlinks resolved as far as the paths exist. */
export async function isInsideOrSame(parent: string, child: string): Promise<boolean> {
  const [p, c] = await Promise.all([canonicalPath(parent), canonicalPath(child)]);
  if (p === c) return true;
  const rel = relative(p, c);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/** The path with symlinks resolved; for a path that does not exist yet, its deepest existing ancestor's. */
async function canonicalPath(path: string): Promise<string> {
  const missing: string[] = [];
  let current = resolve(path);
  for (;;) {
    try {
      return join(await realpath(current), ...missing.reverse());
    } catch (e) {
      if (errnoCode(e) !== 'ENOENT') throw e;
    }
    const parent = dirname(current);
    if (parent === current) return resolve(path);
    missing.push(basename(current));
    current = parent;
  }
}
