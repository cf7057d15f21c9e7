// Dagu's artifact actions: `artifact.write`, `artifact.read` and `artifact.list` on the run's artifacts
// directory (DAG_RUN_ARTIFACTS_DIR, from the step's environment). Paths are relative to that directory and
// may not leave it (`..`, an absolute path, or a symlink leading out fail the step). write and list print
// one line of JSON with Dagu's fields in Dagu's order; read prints the file as it is, or (format: json) a
// JSON line with its facts and content.

import { lstat, mkdir, open, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { BigIntStats } from 'node:fs';
import { ARTIFACTS_DIR_VAR, cleanArtifactPath } from '../../core/dag/artifactPath';
import { writeFileAtomic } from '../../store/fsutil';
import { artifactRoot, checkInside, insideOrSame, StepSetupError } from '../artifactFiles';
import { compileGlob, validateGlob } from './fileGlob';
import { entryStruct, fileEntry, infoFields, type FileEntry } from './fileResult';
import { goJson, GoStruct } from './goJson';
import { sinkWriter } from './sinkWriter';
import { ACTION_OK, actionFailed, type ActionContext, type ActionResult } from './types';

export type ArtifactOp = 'write' | 'read' | 'list';

/** A failure with the message the step ends with. */
class ArtifactError extends Error {}

function text(w: Record<string, unknown>, key: string): string {
  const v = w[key];
  return typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v);
}

/** A Go struct line with Dagu's `omitempty` rule: empty texts, zero numbers and empty lists left out. */
function resultLine(fields: Array<[string, unknown]>): string {
  const kept = fields.filter(
    ([, v]) => v !== undefined && v !== '' && v !== 0 && !(Array.isArray(v) && v.length === 0),
  );
  return `${goJson(new GoStruct(kept))}\n`;
}

function cleaned(raw: string, allowRoot: boolean): string {
  const c = cleanArtifactPath(raw, allowRoot);
  if (!c.ok) throw new ArtifactError(c.error);
  return c.path;
}

function octalMode(raw: string): number {
  const digits = raw.trim().replace(/^0[oO]/, '');
  if (!/^[0-7]+$/.test(digits)) throw new ArtifactError(`invalid mode ${JSON.stringify(raw)}`);
  return parseInt(digits, 8);
}

async function exists(p: string): Promise<boolean> {
  try {
    await lstat(p);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

function fsText(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ENOENT') return 'no such file or directory';
  if (e.code === 'EEXIST') return 'file exists';
  if (e.code === 'EISDIR') return 'is a directory';
  if (e.code === 'EACCES') return 'permission denied';
  return e.message ?? String(err);
}

export async function runArtifactAction(op: ArtifactOp, ctx: ActionContext): Promise<ActionResult> {
  const w = ctx.with;
  const dir = ctx.env[ARTIFACTS_DIR_VAR];
  try {
    const format = text(w, 'format');
    if (!['', 'raw', 'json'].includes(format)) throw new ArtifactError('format must be raw or json');
    const pattern = text(w, 'pattern');
    if (pattern !== '' && !validateGlob(pattern))
      throw new ArtifactError(`invalid glob pattern ${JSON.stringify(pattern)}`);
    const root = await artifactRoot(dir);
    const out = sinkWriter(ctx.stdout);
    if (op === 'write') await out(await writeArtifact(root, w));
    else if (op === 'read') await readArtifact(root, w, format, out);
    else await out(await listArtifacts(root, w, pattern));
    return ACTION_OK;
  } catch (err) {
    if (err instanceof ArtifactError || err instanceof StepSetupError)
      return actionFailed(`artifact: ${err.message}`);
    return actionFailed(`artifact ${op}: ${fsText(err)}`);
  }
}

async function writeArtifact(root: string, w: Record<string, unknown>): Promise<string> {
  const rel = cleaned(text(w, 'path'), false);
  if (w.content === undefined) throw new ArtifactError('content is required for write');
  const overwrite = w.overwrite === true;
  if (overwrite && w.atomic === false) throw new ArtifactError('overwrite requires atomic writes');
  const mode = text(w, 'mode') === '' ? 0o600 : octalMode(text(w, 'mode'));
  const target = join(root, rel);
  await checkInside(root, dirname(target), rel);
  const existed = await exists(target);
  if (existed && !insideOrSame(root, await realpath(target)))
    throw new ArtifactError(`path ${JSON.stringify(rel)} escapes artifact directory`);
  try {
    await mkdir(dirname(target), { recursive: true, mode: 0o750 });
  } catch (err) {
    throw new ArtifactError(`artifact write ${rel}: create parent directories: ${fsText(err)}`);
  }
  await checkInside(root, dirname(target), rel);
  const data = Buffer.from(text(w, 'content'), 'utf8');
  try {
    if (!overwrite) {
      const handle = await open(target, 'wx', mode);
      try {
        await handle.writeFile(data);
      } finally {
        await handle.close();
      }
    } else {
      await writeFileAtomic(target, data, { mode });
    }
  } catch (err) {
    throw new ArtifactError(`artifact write ${rel}: ${fsText(err)}`);
  }
  return resultLine([
    ['operation', 'write'],
    ['path', rel],
    ['bytes', data.length],
    ['created', overwrite ? !existed : true],
  ]);
}

/** An existing path below the root, with its symlinks resolved (which must not lead out). */
async function existing(
  root: string,
  raw: string,
  allowRoot: boolean,
  op: string,
): Promise<[string, string]> {
  const rel = cleaned(raw, allowRoot);
  const abs = rel === '.' ? root : join(root, rel);
  let resolved: string;
  try {
    resolved = await realpath(abs);
  } catch (err) {
    throw new ArtifactError(`artifact ${op} ${rel}: ${fsText(err)}`);
  }
  if (!insideOrSame(root, resolved))
    throw new ArtifactError(`path ${JSON.stringify(rel)} escapes artifact directory`);
  return [rel, resolved];
}

async function readArtifact(
  root: string,
  w: Record<string, unknown>,
  format: string,
  out: (chunk: string | Uint8Array) => Promise<void>,
): Promise<void> {
  const [rel, abs] = await existing(root, text(w, 'path'), false, 'read');
  const info = await stat(abs, { bigint: true });
  if (info.isDirectory()) throw new ArtifactError(`artifact read ${rel}: cannot read a directory`);
  const max = typeof w.max_bytes === 'number' ? w.max_bytes : Number(text(w, 'max_bytes') || 0);
  if (!Number.isInteger(max) || max < 0) throw new ArtifactError('max_bytes must be >= 0');
  if (max > 0 && info.size > BigInt(max))
    throw new ArtifactError(`artifact read ${rel}: file size ${info.size} exceeds max_bytes ${max}`);
  const data = await readFile(abs);
  if (format === 'json') {
    const facts = infoFields(info);
    await out(
      resultLine([
        ['operation', 'read'],
        ['path', rel],
        ['exists', true],
        ['type', facts.type],
        ['size', facts.size],
        ['mode', facts.mode],
        ['modTime', facts.modTime],
        ['bytes', data.length],
        ['content', data.toString('utf8')],
      ]),
    );
    return;
  }
  await out(data);
}

async function listArtifacts(root: string, w: Record<string, unknown>, pattern: string): Promise<string> {
  const [rel, abs] = await existing(root, text(w, 'path'), true, 'list');
  const info = await stat(abs);
  if (!info.isDirectory()) throw new ArtifactError(`artifact list ${rel}: path must be a directory`);
  const matches = compileGlob(pattern);
  const includeDirs = w.include_dirs === true;
  const entries: FileEntry[] = [];
  const visit = async (folder: string, recurse: boolean): Promise<void> => {
    for (const name of (await readdir(folder)).sort()) {
      const full = join(folder, name);
      const stats: BigIntStats = await lstat(full, { bigint: true });
      const relPath = full
        .slice(root.length + 1)
        .split('\\')
        .join('/');
      if ((!stats.isDirectory() || includeDirs) && matches(relPath)) entries.push(fileEntry(relPath, stats));
      if (recurse && stats.isDirectory()) await visit(full, true);
    }
  };
  await visit(abs, w.recursive === true);
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return resultLine([
    ['operation', 'list'],
    ['path', rel],
    ['files', entries.filter((e) => e.type === 'file').length],
    ['entries', entries.map(entryStruct)],
  ]);
}
