// `file.copy` and `file.move`. A copy never writes over an existing file unless `overwrite` is set (then
// each file is replaced in one rename), copies a directory only with `recursive`, refuses a destination
// inside the source, and copies symlinks as symlinks. A move is a rename; across file systems it is a
// copy followed by removing the source.

import { constants, type Stats } from 'node:fs';
import {
  copyFile,
  chmod,
  lstat,
  mkdir,
  readdir,
  readlink,
  realpath,
  rename,
  rm,
  stat,
  symlink,
  unlink,
} from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { isInsideOrSame } from './filePaths';
import { failed, FileOpError, type FileOpContext } from './fileOp';
import type { FileOpResult } from './fileResult';
import { errnoCode, fsErrorReason } from './fsErrorText';
import { permBits } from './goFileInfo';

interface CopyCounts {
  files: number;
  dirs: number;
  bytes: number;
}

export async function copyOp(ctx: FileOpContext): Promise<FileOpResult> {
  const source = ctx.resolve(ctx.cfg.source);
  const destination = ctx.resolve(ctx.cfg.destination);
  if (source === destination) {
    throw new FileOpError(`file copy ${source} to ${destination}: source and destination must differ`);
  }
  if (ctx.cfg.dryRun) return { operation: 'copy', source, destination, dryRun: true, copied: false };
  const counts = await copyPath(ctx, source, destination, ctx.cfg.recursive);
  return {
    operation: 'copy',
    source,
    destination,
    files: counts.files,
    directories: counts.dirs,
    bytes: counts.bytes,
    copied: true,
  };
}

export async function moveOp(ctx: FileOpContext): Promise<FileOpResult> {
  const { cfg } = ctx;
  const source = ctx.resolve(cfg.source);
  const destination = ctx.resolve(cfg.destination);
  const what = `file move ${source} to ${destination}`;
  if (source === destination) throw new FileOpError(`${what}: source and destination must differ`);
  if (cfg.dryRun) return { operation: 'move', source, destination, dryRun: true, moved: false };
  if (cfg.createDirs) await makeParents(destination, what);
  let info: Stats;
  try {
    info = await lstat(source);
  } catch (e) {
    throw failed(`${what}: stat source`, e);
  }
  if (!cfg.overwrite && (await existsNoFollow(destination, `${what}: stat destination`))) {
    throw new FileOpError(`${what}: destination exists (set overwrite: true to replace it)`);
  }
  try {
    await rename(source, destination);
  } catch (e) {
    if (errnoCode(e) !== 'EXDEV') throw failed(what, e);
    await moveAcrossDevices(ctx, source, destination, info, what);
  }
  return { operation: 'move', source, destination, moved: true };
}

async function moveAcrossDevices(
  ctx: FileOpContext,
  source: string,
  destination: string,
  info: Stats,
  what: string,
): Promise<void> {
  const isDir = info.isDirectory();
  if (isDir && !ctx.cfg.recursive) {
    throw new FileOpError(`${what}: recursive is required to move a directory across filesystems`);
  }
  if (isDir && ctx.cfg.overwrite && (await existsNoFollow(destination, `${what}: stat destination`))) {
    throw new FileOpError(`${what}: cross-filesystem directory overwrite is not supported`);
  }
  await copyPath(ctx, source, destination, isDir);
  try {
    if (isDir) await rm(source, { recursive: true });
    else await unlink(source);
  } catch (e) {
    throw failed(`${what}: remove source`, e);
  }
}

async function copyPath(
  ctx: FileOpContext,
  from: string,
  destination: string,
  recursive: boolean,
): Promise<CopyCounts> {
  const what = `file copy ${from} to ${destination}`;
  let info: Stats;
  let source = from;
  try {
    info = ctx.cfg.followSymlinks ? await stat(source) : await lstat(source);
  } catch (e) {
    throw failed(what, e);
  }
  if (ctx.cfg.followSymlinks) {
    try {
      source = await realpath(source);
    } catch (e) {
      throw failed(`${what}: resolve source symlink`, e);
    }
    if (source === destination) throw new FileOpError(`${what}: source and destination must differ`);
  }
  if (!info.isDirectory())
    return { files: 1, dirs: 0, bytes: await copyLeaf(ctx, source, destination, info) };
  if (!recursive) throw new FileOpError(`${what}: recursive is required to copy a directory`);
  if (await isInsideOrSame(source, destination)) {
    throw new FileOpError(`${what}: destination must not be inside source`);
  }
  const counts: CopyCounts = { files: 0, dirs: 0, bytes: 0 };
  await ensureDir(destination, permBits(info.mode));
  await copyTree(ctx, source, destination, counts);
  return counts;
}

/** Copies the contents of one directory into another, depth first in name order, links kept as links. */
async function copyTree(
  ctx: FileOpContext,
  source: string,
  destination: string,
  counts: CopyCounts,
): Promise<void> {
  const names = (await readdir(source)).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  for (const name of names) {
    ctx.signal.throwIfAborted();
    const from = join(source, name);
    const to = join(destination, name);
    const info = await lstat(from);
    if (info.isDirectory()) {
      await ensureDir(to, permBits(info.mode));
      counts.dirs++;
      await copyTree(ctx, from, to, counts);
    } else {
      counts.bytes += await copyLeaf(ctx, from, to, info);
      counts.files++;
    }
  }
}

async function ensureDir(path: string, mode: number): Promise<void> {
  let info: Stats | null = null;
  try {
    info = await stat(path);
  } catch (e) {
    if (errnoCode(e) !== 'ENOENT') throw e;
  }
  if (info?.isDirectory()) return;
  if (info) throw new FileOpError(`file copy: destination ${path} exists and is not a directory`);
  await mkdir(path, { recursive: true, mode });
}

/** Copies one file or symlink; returns the bytes copied. */
async function copyLeaf(
  ctx: FileOpContext,
  source: string,
  destination: string,
  info: Stats,
): Promise<number> {
  const what = `file copy ${source} to ${destination}`;
  if (ctx.cfg.createDirs) await makeParents(destination, what);
  if (info.isSymbolicLink()) {
    await copySymlink(ctx, source, destination, what);
    return 0;
  }
  if (!info.isFile()) throw new FileOpError(`${what}: source must be a regular file or directory`);
  const mode = permBits(info.mode);
  if (!ctx.cfg.overwrite) {
    try {
      await copyFile(source, destination, constants.COPYFILE_EXCL);
    } catch (e) {
      if (errnoCode(e) === 'EEXIST') {
        throw new FileOpError(`${what}: destination exists (set overwrite: true to replace it)`);
      }
      throw failed(what, e);
    }
    await chmod(destination, mode);
    return (await stat(destination)).size;
  }
  // Replace in one rename, so a reader never sees a half-copied file.
  const temp = join(dirname(destination), `.${basename(destination)}.tmp.${randomBytes(6).toString('hex')}`);
  try {
    await copyFile(source, temp, constants.COPYFILE_EXCL);
    await chmod(temp, mode);
    const { size } = await stat(temp);
    try {
      await rename(temp, destination);
    } catch (e) {
      throw new FileOpError(`${what}: replace destination: ${fsErrorReason(e)}`);
    }
    return size;
  } catch (e) {
    await unlink(temp).catch(() => undefined);
    if (e instanceof FileOpError) throw e;
    throw failed(what, e);
  }
}

async function copySymlink(
  ctx: FileOpContext,
  source: string,
  destination: string,
  what: string,
): Promise<void> {
  let target: string;
  try {
    target = await readlink(source);
  } catch (e) {
    throw failed(`${what}: read symlink`, e);
  }
  let existing: Stats | null = null;
  try {
    existing = await lstat(destination);
  } catch (e) {
    if (errnoCode(e) !== 'ENOENT') throw failed(`${what}: stat destination`, e);
  }
  if (existing) {
    if (!ctx.cfg.overwrite)
      throw new FileOpError(`${what}: destination exists (set overwrite: true to replace it)`);
    // Dagu removes whatever is there; a whole directory tree is not removed here to put a link in its place.
    if (existing.isDirectory()) {
      throw new FileOpError(`${what}: destination is a directory; it is not replaced by a symlink`);
    }
    await unlink(destination).catch((e: unknown) => {
      throw failed(`${what}: remove destination`, e);
    });
  }
  try {
    await symlink(target, destination);
  } catch (e) {
    throw failed(`${what}: create symlink`, e);
  }
}

async function makeParents(destination: string, what: string): Promise<void> {
  try {
    await mkdir(dirname(destination), { recursive: true, mode: 0o750 });
  } catch (e) {
    throw failed(`${what}: create parent directories`, e);
  }
}

async function existsNoFollow(path: string, what: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return false;
    throw failed(what, e);
  }
}
