// Dagu's `file.*` actions (`action: file.<op>`, legacy `type: file`): stat, read, write, copy, move, delete,
// mkdir and list on the local file system, relative paths starting at the step's working directory. Each
// prints one JSON line describing what it did (`file.read` prints the file itself unless `format: json`).
// Conservative as in Dagu: nothing is overwritten without `overwrite`, no directory is removed without
// `recursive`, symlinks are never followed while walking, and `/` is never deleted.

import { createReadStream } from 'node:fs';
import {
  lstat,
  mkdir,
  open,
  readdir,
  readFile,
  rm,
  stat,
  unlink,
  writeFile,
  link,
  rename,
} from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { copyOp, moveOp } from './fileCopy';
import { FileConfigError, readFileConfig, type FileConfig } from './fileConfig';
import { compileGlob } from './fileGlob';
import { isRootPath, resolveFilePath } from './filePaths';
import { failed, FileOpError, type FileOpContext } from './fileOp';
import { fileEntry, fileResultLine, infoFields, type FileEntry, type FileOpResult } from './fileResult';
import { errnoCode, fsErrorReason, fsErrorText } from './fsErrorText';
import { sinkWriter } from './sinkWriter';
import { ACTION_OK, actionFailed, type ActionContext, type ActionResult } from './types';

export async function runFileAction(op: string, ctx: ActionContext): Promise<ActionResult> {
  let cfg: FileConfig;
  try {
    cfg = readFileConfig(op, ctx.with);
  } catch (e) {
    if (e instanceof FileConfigError) return actionFailed(e.message);
    throw e;
  }
  const stdout = sinkWriter(ctx.stdout);
  const fctx: FileOpContext = {
    cfg,
    resolve: (raw) => resolveFilePath(raw, ctx.workingDir, ctx.env.HOME),
    signal: ctx.signal,
    stdout,
  };
  let result: FileOpResult | null;
  try {
    result = await OPS[cfg.op](fctx);
  } catch (e) {
    if (e instanceof FileOpError) return actionFailed(e.message);
    if (ctx.signal.aborted) return actionFailed(`file ${cfg.op}: stopped`);
    return actionFailed(`file ${cfg.op}: ${fsErrorText(e)}`);
  }
  if (result) await stdout(fileResultLine(result));
  return ACTION_OK;
}

/** Each operation returns the result to print, or null when it printed its own output. */
const OPS: Record<FileConfig['op'], (ctx: FileOpContext) => Promise<FileOpResult | null>> = {
  stat: statOp,
  read: readOp,
  write: writeOp,
  copy: copyOp,
  move: moveOp,
  delete: deleteOp,
  mkdir: mkdirOp,
  list: listOp,
};

async function statOp({ cfg, resolve }: FileOpContext): Promise<FileOpResult> {
  const path = resolve(cfg.path);
  let stats;
  try {
    stats = cfg.followSymlinks ? await stat(path, { bigint: true }) : await lstat(path, { bigint: true });
  } catch (e) {
    if (errnoCode(e) === 'ENOENT' && cfg.missingOk) return { operation: 'stat', path, exists: false };
    throw failed(`file stat ${path}`, e);
  }
  return { operation: 'stat', path, exists: true, ...infoFields(stats) };
}

async function readOp({ cfg, resolve, signal, stdout }: FileOpContext): Promise<FileOpResult | null> {
  const path = resolve(cfg.path);
  let stats;
  try {
    stats = await stat(path, { bigint: true });
  } catch (e) {
    throw failed(`file read ${path}`, e);
  }
  if (stats.isDirectory()) throw new FileOpError(`file read ${path}: cannot read a directory`);
  if (cfg.maxBytes > 0 && stats.size > BigInt(cfg.maxBytes)) {
    throw new FileOpError(`file read ${path}: file size ${stats.size} exceeds max_bytes ${cfg.maxBytes}`);
  }
  if (cfg.format === 'json') {
    let data: Buffer;
    try {
      data = await readFile(path, { signal });
    } catch (e) {
      throw failed(`file read ${path}`, e);
    }
    let content: string;
    try {
      content = data.toString('utf8');
    } catch {
      throw new FileOpError(`file read ${path}: ${data.length} bytes are too many for format: json`);
    }
    return { operation: 'read', path, ...infoFields(stats), bytes: data.length, content };
  }
  try {
    for await (const chunk of createReadStream(path, { signal })) await stdout(chunk as Buffer);
  } catch (e) {
    throw failed(`file read ${path}`, e);
  }
  return null;
}

async function writeOp({ cfg, resolve }: FileOpContext): Promise<FileOpResult> {
  const path = resolve(cfg.path);
  const data = Buffer.from(cfg.content ?? '', 'utf8');
  const mode = cfg.mode ?? 0o600;
  if (cfg.dryRun) return { operation: 'write', path, bytes: data.length, dryRun: true, created: false };
  if (cfg.createDirs) {
    try {
      await mkdir(dirname(path), { recursive: true, mode: 0o750 });
    } catch (e) {
      throw failed(`file write ${path}: create parent directories`, e);
    }
  }
  const exists = () =>
    new FileOpError(`file write ${path}: the file already exists (set overwrite: true to replace it)`);
  try {
    if (!cfg.overwrite && cfg.atomic) await createAtomically(path, data, mode, exists);
    else if (!cfg.overwrite) await writeFile(path, data, { flag: 'wx', mode });
    else if (cfg.atomic) await replaceAtomically(path, data, mode);
    else await writeFile(path, data, { mode });
  } catch (e) {
    if (e instanceof FileOpError) throw e;
    if (!cfg.overwrite && errnoCode(e) === 'EEXIST') throw exists();
    throw failed(`file write ${path}`, e);
  }
  return { operation: 'write', path, bytes: data.length, created: true };
}

/**
 * Writes the data to a new file beside `path` (flushed, with its final mode) and returns its name; the
 * caller moves it into place, so readers never see a half-written file.
 */
async function writeTemp(path: string, data: Buffer, mode: number): Promise<string> {
  const temp = join(dirname(path), `.${basename(path)}.tmp.${randomBytes(6).toString('hex')}`);
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(data);
    await handle.chmod(mode);
    await handle.sync();
    await handle.close();
  } catch (e) {
    await handle.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw e;
  }
  return temp;
}

/** Replaces `path` with the data in one rename. */
async function replaceAtomically(path: string, data: Buffer, mode: number): Promise<void> {
  const temp = await writeTemp(path, data, mode);
  try {
    await rename(temp, path);
  } catch (e) {
    await unlink(temp).catch(() => undefined);
    throw new FileOpError(`file write ${path}: replace the file: ${fsErrorReason(e)}`);
  }
  await syncDir(dirname(path));
}

/**
 * Creates `path` with the data, failing if it exists: a hard link of a complete temporary file is created
 * only if the name is free. File systems without hard links get an exclusive create instead.
 */
async function createAtomically(
  path: string,
  data: Buffer,
  mode: number,
  exists: () => FileOpError,
): Promise<void> {
  const temp = await writeTemp(path, data, mode);
  try {
    await link(temp, path);
  } catch (e) {
    if (errnoCode(e) === 'EEXIST') throw exists();
    if (!['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK', 'EXDEV'].includes(errnoCode(e) ?? ''))
      throw e;
    await writeFile(path, data, { flag: 'wx', mode });
  } finally {
    await unlink(temp).catch(() => undefined);
  }
  await syncDir(dirname(path));
}

/** Makes a rename durable; not every file system lets a directory be flushed, which is not an error. */
async function syncDir(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    await handle.sync().finally(() => handle.close());
  } catch {
    // best effort
  }
}

async function deleteOp({ cfg, resolve }: FileOpContext): Promise<FileOpResult> {
  const path = resolve(cfg.path);
  if (isRootPath(path)) throw new FileOpError(`file delete ${path}: refusing to delete filesystem root`);
  let stats;
  try {
    stats = await lstat(path);
  } catch (e) {
    if (errnoCode(e) === 'ENOENT' && cfg.missingOk) return { operation: 'delete', path, deleted: false };
    throw failed(`file delete ${path}`, e);
  }
  const isDir = stats.isDirectory();
  if (isDir && !cfg.recursive) {
    throw new FileOpError(`file delete ${path}: recursive is required to delete a directory`);
  }
  if (cfg.dryRun) return { operation: 'delete', path, dryRun: true, deleted: false };
  try {
    // A symlink is removed itself; rm never follows links inside the tree.
    if (isDir) await rm(path, { recursive: true });
    else await unlink(path);
  } catch (e) {
    throw failed(`file delete ${path}`, e);
  }
  return { operation: 'delete', path, deleted: true };
}

async function mkdirOp({ cfg, resolve }: FileOpContext): Promise<FileOpResult> {
  const path = resolve(cfg.path);
  if (cfg.dryRun) return { operation: 'mkdir', path, dryRun: true, created: false };
  try {
    await mkdir(path, { recursive: true, mode: cfg.mode ?? 0o750 });
  } catch (e) {
    if (errnoCode(e) === 'EEXIST')
      throw new FileOpError(`file mkdir ${path}: it exists and is not a directory`);
    throw failed(`file mkdir ${path}`, e);
  }
  return { operation: 'mkdir', path, created: true };
}

async function listOp({ cfg, resolve, signal }: FileOpContext): Promise<FileOpResult> {
  const root = resolve(cfg.path);
  let rootStats;
  try {
    rootStats = await stat(root);
  } catch (e) {
    throw failed(`file list ${root}`, e);
  }
  if (!rootStats.isDirectory()) throw new FileOpError(`file list ${root}: path must be a directory`);
  const matches = compileGlob(cfg.pattern);
  const entries: FileEntry[] = [];
  const visit = (rel: string, stats: Awaited<ReturnType<typeof lstatBig>>) => {
    if (stats.isDirectory() && !cfg.includeDirs) return;
    if (matches(rel)) entries.push(fileEntry(rel, stats));
  };
  try {
    if (cfg.recursive) await walk(root, '', visit, signal);
    else {
      for (const name of await readdir(root)) visit(name, await lstatBig(join(root, name)));
    }
  } catch (e) {
    if (signal.aborted) throw e;
    throw failed(`file list ${root}`, e);
  }
  entries.sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
  const files = entries.filter((e) => e.type === 'file').length;
  return { operation: 'list', path: root, files, entries };
}

function lstatBig(path: string) {
  return lstat(path, { bigint: true });
}

/**
 * Visits everything under `dir` without following symlinks (a symlinked start directory is not entered,
 * as Go's WalkDir does not enter it either).
 */
async function walk(
  dir: string,
  rel: string,
  visit: (rel: string, stats: Awaited<ReturnType<typeof lstatBig>>) => void,
  signal: AbortSignal,
): Promise<void> {
  if (rel === '' && !(await lstat(dir)).isDirectory()) return;
  const names = (await readdir(dir)).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  for (const name of names) {
    signal.throwIfAborted();
    const path = join(dir, name);
    const childRel = rel === '' ? name : `${rel}/${name}`;
    const stats = await lstatBig(path);
    visit(childRel, stats);
    if (stats.isDirectory()) await walk(path, childRel, visit, signal);
  }
}
