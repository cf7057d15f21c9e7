// Dagu's archive actions (`archive.create`, `archive.extract`, `archive.list`; legacy `type: archive` with the
// operation in `command`) for zip, tar and gzip-compressed tar files. Relative paths start at the step's
// working directory. Each prints one indented JSON object describing what it did, as Dagu does.
//
// Extraction treats the archive as hostile: an entry lands inside `destination` or fails the step (`..`
// and absolute names, links pointing out, writing through a symlink already on disk are all refused), a
// hard link may only repeat a file this extraction wrote, and the data read is capped (archiveEntries.ts).

import { createWriteStream, constants as fsConstants } from 'node:fs';
import {
  copyFile,
  lstat,
  mkdir,
  open,
  readdir,
  readlink,
  rename,
  stat,
  symlink,
  unlink,
} from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';
import { Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Pack } from 'tar';
import yazl from 'yazl';
import { formatDuration } from '../../core/duration';
import {
  ArchiveError,
  decodeArchive,
  EXIT,
  formatFromName,
  unsupportedFormat,
  type ArchiveConfig,
  type ArchiveFormat,
  type ArchiveOp,
} from './archiveConfig';
import { budgetFor, detectFormat, walkEntries, type ArchiveEntry, type Budget } from './archiveEntries';
import { compileGlob } from './fileGlob';
import { errnoCode } from './fsErrorText';
import { goFileMode, goTime } from './goFileInfo';
import { GoStruct, goJson } from './goJson';
import { sinkWriter, type SinkWriter } from './sinkWriter';
import { actionFailed, ACTION_OK, type ActionContext, type ActionResult } from './types';

export type { ArchiveOp };

interface OpContext {
  cfg: ArchiveConfig;
  workingDir: string;
  signal: AbortSignal;
  stdout: SinkWriter;
  warn: (message: string) => Promise<void>;
  /** Overrides the read budget (tests). */
  budget?: (archiveSize: number) => Budget;
}

export async function runArchiveAction(
  op: ArchiveOp,
  ctx: ActionContext,
  budget?: (archiveSize: number) => Budget,
): Promise<ActionResult> {
  const stderr = sinkWriter(ctx.stderr);
  try {
    const cfg = decodeArchive(op, ctx.with);
    const octx: OpContext = {
      cfg,
      workingDir: ctx.workingDir,
      signal: ctx.signal,
      stdout: sinkWriter(ctx.stdout),
      warn: (message) => stderr(`archive step warning: ${message}\n`),
      budget,
    };
    const result = await (op === 'create' ? runCreate : op === 'extract' ? runExtract : runList)(octx);
    await octx.stdout(`${goJson(result, '  ')}\n`);
    return ACTION_OK;
  } catch (e) {
    if (ctx.signal.aborted) return actionFailed(`archive ${op}: stopped`, EXIT.stopped);
    if (e instanceof ArchiveError) return actionFailed(e.message, e.exitCode);
    const code = errnoCode(e);
    const message = e instanceof Error ? e.message : String(e);
    if (code === 'EACCES' || code === 'EPERM')
      return actionFailed(`archive: permission denied: ${message}`, EXIT.permission);
    return actionFailed(`archive ${op}: ${message}`, 1);
  }
}

const elapsed = (start: number) => formatDuration(performance.now() - start);

function where(ctx: OpContext, path: string): string {
  return resolve(ctx.workingDir, path);
}

/** A compiled include/exclude filter, as Dagu's: an empty pattern matches nothing. */
function filterOf(cfg: ArchiveConfig): (path: string) => boolean {
  const compile = (patterns: string[]) => patterns.filter((p) => p.trim() !== '').map((p) => compileGlob(p));
  const include = compile(cfg.include);
  const exclude = compile(cfg.exclude);
  const includeGiven = cfg.include.length > 0;
  return (path) => (!includeGiven || include.some((m) => m(path))) && !exclude.some((m) => m(path));
}

async function sourceFile(ctx: OpContext): Promise<{ path: string; size: number }> {
  const path = where(ctx, ctx.cfg.source);
  let st: Stats;
  try {
    st = await stat(path);
  } catch (e) {
    throw new ArchiveError(
      `archive: source not found: ${ctx.cfg.source}: ${errnoCode(e) ?? String(e)}`,
      EXIT.sourceNotFound,
    );
  }
  if (st.isDirectory())
    throw new ArchiveError('archive: configuration error: source must be a file', EXIT.config);
  return { path, size: st.size };
}

/** Reads every entry's data to the end, failing on the first corrupt one. */
async function verify(ctx: OpContext, path: string, format: ArchiveFormat, size: number): Promise<void> {
  await walkEntries(path, format, (ctx.budget ?? budgetFor)(size), ctx.signal, async (entry) => {
    if (entry.type !== 'file') return;
    await pipeline(await entry.open(), discard(), { signal: ctx.signal });
  });
}

function discard(): Writable {
  return new Writable({ write: (_c, _e, done) => done() });
}

// ---- extract -------------------------------------------------------------------------------------------

/** An entry's path below the destination after `strip_components`/`preserve_paths`; '' when nothing is left. */
export function entryPath(name: string, strip: number, preserve: boolean): string {
  let clean = name.replace(/^(\.\/)+/, '');
  if (clean === '' || clean === '.') return '';
  let parts = clean.split('/');
  if (strip > 0) {
    if (strip >= parts.length) return '';
    parts = parts.slice(strip);
  }
  clean = parts.filter((p) => p !== '').join('/');
  if (clean === '') return '';
  if (!preserve)
    clean =
      clean
        .split('/')
        .filter((p) => p !== '' && p !== '.')
        .pop() ?? '';
  const joined = normalize(clean).replace(/\/+$/, '');
  return joined === '.' ? '' : joined;
}

function inside(base: string, target: string): boolean {
  const rel = relative(base, target);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** The archive an extract or list reads: its file, its format, and whether `verify_integrity` checked it. */
async function openSource(
  ctx: OpContext,
): Promise<{ src: { path: string; size: number }; format: ArchiveFormat; verified: boolean }> {
  const src = await sourceFile(ctx);
  const format = ctx.cfg.format ?? (await detectFormat(src.path));
  if (ctx.cfg.verifyIntegrity) await verify(ctx, src.path, format, src.size);
  return { src, format, verified: ctx.cfg.verifyIntegrity };
}

async function runExtract(ctx: OpContext): Promise<GoStruct> {
  const start = performance.now();
  const { cfg } = ctx;
  const { src, format, verified } = await openSource(ctx);
  const dest = where(ctx, cfg.destination || '.');
  if (!cfg.dryRun) await mkdir(dest, { recursive: true });
  const matches = filterOf(cfg);
  const written = new Set<string>();
  const errors: string[] = [];
  let files = 0;
  let bytes = 0;
  let skipped = 0;

  const one = async (entry: ArchiveEntry) => {
    const rel = entryPath(entry.name, cfg.stripComponents, cfg.preservePaths);
    if (rel === '') {
      if (entry.type === 'dir') return;
      await ctx.warn('skipping unnamed file in archive');
      skipped++;
      return;
    }
    if (!matches(rel)) {
      skipped++;
      return;
    }
    const target = join(dest, rel);
    if (!inside(dest, target))
      throw new ArchiveError(
        `archive: corrupted archive: entry ${JSON.stringify(entry.name)} escapes the destination`,
        EXIT.corrupted,
      );
    if (entry.type === 'other') {
      await ctx.warn(`skipping ${JSON.stringify(entry.name)}: not a file, directory or link`);
      skipped++;
      return;
    }
    if (entry.type === 'dir') {
      if (!cfg.dryRun) await makeDirs(dest, rel);
      return;
    }
    if (cfg.dryRun) {
      files++;
      bytes += entry.size;
      return;
    }
    await makeDirs(dest, dirname(rel));
    const existing = await lstat(target).catch(() => null);
    if (existing && !cfg.overwrite)
      throw new ArchiveError(
        `archive: destination error: ${JSON.stringify(rel)} exists (overwrite disabled)`,
        EXIT.destination,
      );
    if (existing?.isDirectory())
      throw new ArchiveError(
        `archive: destination error: ${JSON.stringify(rel)} is a directory; the archive has a file there`,
        EXIT.destination,
      );
    if (entry.type === 'symlink') {
      const link = entry.linkTarget;
      if (link === '') throw corruptedEntry(entry, 'has an empty symlink target');
      if (isAbsolute(link)) throw corruptedEntry(entry, `is a symlink to an absolute path (${link})`);
      const resolved = resolve(dirname(target), link);
      if (!inside(dest, resolved))
        throw corruptedEntry(entry, `is a symlink pointing outside the destination (${link})`);
      if (existing) await unlink(target);
      await symlink(relative(dirname(target), resolved) || '.', target);
      files++;
      return;
    }
    if (entry.type === 'hardlink') {
      const from = join(dest, entryPath(entry.linkTarget, cfg.stripComponents, cfg.preservePaths));
      if (!written.has(from))
        throw corruptedEntry(
          entry,
          `is a hard link to ${JSON.stringify(entry.linkTarget)}, not a file this extraction wrote`,
        );
      if (existing) await unlink(target);
      await copyFile(from, target, fsConstants.COPYFILE_EXCL);
      written.add(target);
      files++;
      bytes += (await stat(target)).size;
      return;
    }
    // A symlink already at the target is replaced, never written through.
    if (existing?.isSymbolicLink()) await unlink(target);
    const fh = await open(
      target,
      fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_TRUNC | fsConstants.O_NOFOLLOW,
      entry.mode & 0o777 || 0o644,
    );
    let n = 0;
    const out = fh.createWriteStream();
    await pipeline(
      await entry.open(),
      async function* (source: AsyncIterable<Buffer>) {
        for await (const chunk of source) {
          n += chunk.length;
          yield chunk;
        }
      },
      out,
      { signal: ctx.signal },
    );
    written.add(target);
    files++;
    bytes += n;
  };

  await walkEntries(src.path, format, (ctx.budget ?? budgetFor)(src.size), ctx.signal, async (entry) => {
    try {
      await one(entry);
    } catch (e) {
      if (!cfg.continueOnError || ctx.signal.aborted || isBudgetError(e)) throw e;
      const message = e instanceof Error ? e.message : String(e);
      errors.push(message);
      await ctx.warn(`continuing after error: ${message}`);
    }
  });
  return new GoStruct([
    ['operation', 'extract'],
    ['source', cfg.source],
    ['destination', cfg.destination],
    ['filesExtracted', files],
    ['bytesExtracted', bytes],
    ['filesSkipped', skipped],
    ['duration', elapsed(start)],
    ['errors', errors.length > 0 ? errors : undefined],
    ['verifyPerformed', verified],
  ]);
}

function isBudgetError(e: unknown): boolean {
  return e instanceof ArchiveError && /refusing to read further/.test(e.message);
}

function corruptedEntry(entry: ArchiveEntry, what: string): ArchiveError {
  return new ArchiveError(
    `archive: corrupted archive: entry ${JSON.stringify(entry.name)} ${what}`,
    EXIT.corrupted,
  );
}

/** Makes each directory of `rel` below `dest`, refusing to pass through a symlink or a file. */
async function makeDirs(dest: string, rel: string): Promise<void> {
  if (rel === '.' || rel === '') return;
  let current = dest;
  for (const part of rel.split(sep)) {
    current = join(current, part);
    const st = await lstat(current).catch((e: unknown) => {
      if (errnoCode(e) === 'ENOENT') return null;
      throw e;
    });
    if (st === null) {
      await mkdir(current, { mode: 0o755 });
    } else if (st.isSymbolicLink()) {
      throw new ArchiveError(
        `archive: destination error: refusing to write through the symlink ${JSON.stringify(relative(dest, current))}`,
        EXIT.destination,
      );
    } else if (!st.isDirectory()) {
      throw new ArchiveError(
        `archive: destination error: ${JSON.stringify(relative(dest, current))} exists and is not a directory`,
        EXIT.destination,
      );
    }
  }
}

// ---- create --------------------------------------------------------------------------------------------

interface DiskEntry {
  abs: string;
  name: string;
  st: Stats;
}

/** The files under the source, as Dagu names them in the archive: a directory's under its own name. */
async function collect(ctx: OpContext, src: string, skip: string): Promise<DiskEntry[]> {
  const { cfg } = ctx;
  const look = (p: string) => (cfg.followSymlinks ? stat(p) : lstat(p));
  const rootStat = await stat(src);
  if (!rootStat.isDirectory()) return [{ abs: src, name: basename(src), st: await look(src) }];
  const prefix = normalize(cfg.source) === '.' ? '' : basename(src);
  const out: DiskEntry[] = prefix === '' ? [] : [{ abs: src, name: prefix, st: rootStat }];
  const seen = new Set<string>();
  const walk = async (dir: string, name: string, st: Stats) => {
    const key = `${st.dev}:${st.ino}`;
    if (seen.has(key)) return; // a symlink loop when following symlinks
    seen.add(key);
    for (const child of (await readdir(dir)).sort()) {
      if (ctx.signal.aborted) throw new ArchiveError('archive: stopped', EXIT.stopped);
      const abs = join(dir, child);
      if (abs === skip) continue;
      const childName = name === '' ? child : `${name}/${child}`;
      const cst = await look(abs);
      out.push({ abs, name: childName, st: cst });
      if (cst.isDirectory()) await walk(abs, childName, cst);
    }
  };
  await walk(src, prefix, rootStat);
  return out;
}

async function runCreate(ctx: OpContext): Promise<GoStruct> {
  const start = performance.now();
  const { cfg } = ctx;
  const src = where(ctx, cfg.source);
  try {
    await stat(src);
  } catch (e) {
    throw new ArchiveError(
      `archive: source not found: ${cfg.source}: ${errnoCode(e) ?? String(e)}`,
      EXIT.sourceNotFound,
    );
  }
  const dest = cfg.destination === '' ? '' : where(ctx, cfg.destination);
  if (dest !== '' && !cfg.dryRun) await mkdir(dirname(dest), { recursive: true });
  let format = cfg.format;
  if (format === null) {
    const named = cfg.destination === '' ? null : formatFromName(cfg.destination);
    if (named === null)
      throw new ArchiveError(
        'archive: format detection failed: could not infer format; specify with.format',
        EXIT.format,
      );
    if (named !== 'zip' && named !== 'tar' && named !== 'tar.gz') throw unsupportedFormat(named);
    format = named;
  }
  const matches = filterOf(cfg);
  const entries = (await collect(ctx, src, dest)).filter((e) => matches(e.name));
  const bytes = entries.reduce((n, e) => n + e.st.size, 0);
  let verified = false;
  if (!cfg.dryRun) {
    const tmp = join(dirname(dest), `.${basename(dest)}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      await writeArchive(ctx, format, src, entries, tmp);
      await rename(tmp, dest);
    } catch (e) {
      await unlink(tmp).catch(() => {});
      if (e instanceof ArchiveError || ctx.signal.aborted) throw e;
      throw new ArchiveError(
        `archive: creation failed: ${e instanceof Error ? e.message : String(e)}`,
        errnoCode(e) === 'EACCES' ? EXIT.permission : EXIT.create,
      );
    }
    if (cfg.verifyIntegrity) {
      await verify(ctx, dest, format, (await stat(dest)).size);
      verified = true;
    }
  }
  return new GoStruct([
    ['operation', 'create'],
    ['source', cfg.source],
    ['destination', cfg.destination],
    ['filesAdded', entries.length],
    ['bytesArchived', bytes],
    ['duration', elapsed(start)],
    ['verifyPerformed', verified],
  ]);
}

async function writeArchive(
  ctx: OpContext,
  format: ArchiveFormat,
  src: string,
  entries: DiskEntry[],
  out: string,
): Promise<void> {
  const { cfg } = ctx;
  if (format === 'zip') {
    const zip = new yazl.ZipFile();
    for (const e of entries) {
      const options = { mtime: e.st.mtime, mode: e.st.mode };
      if (e.st.isDirectory()) zip.addEmptyDirectory(e.name, options);
      else if (e.st.isSymbolicLink())
        zip.addBuffer(Buffer.from(await readlink(e.abs)), e.name, { ...options, compress: false });
      else if (e.st.isFile())
        zip.addFile(e.abs, e.name, { ...options, compress: cfg.compressionLevel !== 0 });
    }
    zip.end();
    await pipeline(zip.outputStream, createWriteStream(out, { flags: 'wx' }), { signal: ctx.signal });
    return;
  }
  const rootStat = await stat(src);
  const cwd = rootStat.isDirectory() && normalize(cfg.source) === '.' ? src : dirname(src);
  const gzip =
    format === 'tar.gz' ? (cfg.compressionLevel >= 0 ? { level: cfg.compressionLevel } : true) : false;
  const pack = new Pack({ cwd, gzip, follow: cfg.followSymlinks, noDirRecurse: true, portable: false });
  for (const e of entries) pack.add(e.name);
  pack.end();
  await pipeline(pack as unknown as Readable, createWriteStream(out, { flags: 'wx' }), {
    signal: ctx.signal,
  });
}

// ---- list ----------------------------------------------------------------------------------------------

interface Listed {
  path: string;
  size: number;
  mode: number;
  modTime: string;
  isDir: boolean;
}

const ZERO_TIME = '0001-01-01T00:00:00Z';

async function runList(ctx: OpContext): Promise<GoStruct> {
  const start = performance.now();
  const { cfg } = ctx;
  const { src, format, verified } = await openSource(ctx);
  const byPath = new Map<string, Listed>();
  const typeBits = { file: 0o100000, dir: 0o040000, symlink: 0o120000, hardlink: 0o100000, other: 0 };
  await walkEntries(src.path, format, (ctx.budget ?? budgetFor)(src.size), ctx.signal, async (entry) => {
    const path = entryPath(entry.name.replace(/^\/+/, ''), 0, true);
    if (path === '') return;
    const isDir = entry.type === 'dir';
    byPath.set(path, {
      path,
      size: isDir ? 0 : entry.size,
      mode: typeBits[entry.type] | entry.mode,
      modTime: goTime(BigInt(entry.mtime.getTime()) * 1_000_000n),
      isDir,
    });
  });
  // Directories only implied by their files' names are listed too, as a walk of the archive shows them.
  for (const path of [...byPath.keys()]) {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      if (!byPath.has(dir))
        byPath.set(dir, { path: dir, size: 0, mode: 0o040555, modTime: ZERO_TIME, isDir: true });
    }
  }
  const matches = filterOf(cfg);
  const listed = [...byPath.values()]
    .filter((e) => matches(e.path))
    .sort((a, b) => walkOrder(a.path, b.path));
  return new GoStruct([
    ['operation', 'list'],
    ['source', cfg.source],
    ['totalFiles', listed.length],
    ['totalSize', listed.reduce((n, e) => n + (e.isDir ? 0 : e.size), 0)],
    [
      'files',
      listed.map(
        (e) =>
          new GoStruct([
            ['path', e.path],
            ['size', e.size],
            ['mode', goFileMode(e.mode)],
            ['modTime', e.modTime],
            ['isDir', e.isDir],
          ]),
      ),
    ],
    ['verified', verified],
    ['duration', elapsed(start)],
  ]);
}

/** The order of a directory walk: component by component, each level in byte order. */
function walkOrder(a: string, b: string): number {
  const pa = a.split('/');
  const pb = b.split('/');
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    if (pa[i] !== pb[i]) return pa[i] < pb[i] ? -1 : 1;
  }
  return pa.length - pb.length;
}
