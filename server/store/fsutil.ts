// File primitives that stay correct on shared storage (NFS): atomic replace, exclusive create with full
// content, exclusive mkdir, and JSON reads that report a corrupt file instead of throwing.

import path from 'node:path';
import * as fs from './fileCalls';
import { randomHex } from './randomHex';

/** What a reader found wrong with a file it skipped. */
export interface CorruptFileReport {
  path: string;
  error: string;
}

export type ReadJsonResult<T> =
  { kind: 'ok'; value: T } | { kind: 'missing' } | { kind: 'corrupt'; error: string; path: string };

/** Temp files start with `.` and contain `.tmp-`, so every directory listing can skip them. */
export function isTempName(name: string): boolean {
  return name.startsWith('.') && name.includes('.tmp-');
}

function tempPathFor(target: string): string {
  // pid alone is not unique across hosts sharing the directory; the random part is.
  const suffix = `${process.pid}-${randomHex(6)}`;
  return path.join(path.dirname(target), `.${path.basename(target)}.tmp-${suffix}`);
}

async function writeTempFile(
  target: string,
  data: string | Uint8Array,
  durable = true,
  mode = 0o644,
): Promise<string> {
  const temp = tempPathFor(target);
  const fd = await fs.open(temp, 'wx', mode);
  try {
    await fs.writeAll(fd, data);
    if (durable) await fs.fsync(fd);
  } catch (err) {
    await fs.close(fd).catch(() => {});
    await fs.unlink(temp).catch(() => {});
    throw err;
  }
  // NFS reports a write it could not store (ENOSPC, EDQUOT) as late as the close: the temp file may be short,
  // so it is removed rather than renamed over the target, or left behind to fill the disk further.
  await fs.close(fd).catch(async (err: unknown) => {
    await fs.unlink(temp).catch(() => {});
    throw err;
  });
  return temp;
}

/**
 * Replaces `target` with `data` so that a reader sees either the old or the new content, never a mix.
 * `durable: false` skips the fsync, for content whose loss in a crash is harmless (a heartbeat: losing the
 * newest one only makes a dead run look dead sooner). `mode`: the new file's permissions (before the umask).
 */
export async function writeFileAtomic(
  target: string,
  data: string | Uint8Array,
  opts: { durable?: boolean; mode?: number } = {},
): Promise<void> {
  const temp = await writeTempFile(target, data, opts.durable ?? true, opts.mode);
  try {
    await fs.rename(temp, target);
  } catch (err) {
    await fs.unlink(temp).catch(() => {});
    throw err;
  }
}

/**
 * Creates `target` with its full content at once, or returns false if the name is taken. `link()` fails
 * with EEXIST when the name exists, and readers never see an empty file as they could after `open('wx')`.
 */
export async function createFileExclusive(target: string, data: string | Uint8Array): Promise<boolean> {
  const temp = await writeTempFile(target, data);
  try {
    await fs.link(temp, target);
    return true;
  } catch (err) {
    // NFS may report an error, even EEXIST, for a link that succeeded (a retransmitted request after a lost
    // reply); the temp file then has two names. This is the check open(2) recommends for NFS.
    if ((await fs.stat(temp).catch(() => null))?.nlink === 2) return true;
    if (errorCode(err) === 'EEXIST') return false;
    throw err;
  } finally {
    await fs.unlink(temp).catch(() => {});
  }
}

/** Creates one directory; false if it already exists. Missing parents are created (they are not the claim). */
export async function mkdirExclusive(dir: string): Promise<boolean> {
  try {
    await fs.mkdir(dir);
    return true;
  } catch (err) {
    if (errorCode(err) === 'EEXIST') return false;
    if (errorCode(err) !== 'ENOENT') throw err;
  }
  await ensureDir(path.dirname(dir));
  try {
    await fs.mkdir(dir);
    return true;
  } catch (err) {
    if (errorCode(err) === 'EEXIST') return false;
    throw err;
  }
}

/** Creates a directory and its parents if absent; idempotent. */
export async function ensureDir(dir: string): Promise<void> {
  await fs.mkdir(dir, true);
}

/**
 * Reads and parses a JSON file. A missing file is `missing`; an empty, truncated or unparsable file (or one
 * that `validate` rejects with a message) is `corrupt` with the path and the reason. I/O errors are thrown.
 */
export async function readJsonFile<T>(
  file: string,
  validate?: (value: unknown) => string | null,
): Promise<ReadJsonResult<T>> {
  let text: string;
  try {
    text = await readTextFile(file);
  } catch (err) {
    if (errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR') return { kind: 'missing' };
    if (errorCode(err) === 'EISDIR') return { kind: 'corrupt', error: 'a directory, not a file', path: file };
    // An I/O error says nothing about the content: the caller retries rather than skip a good file.
    throw err;
  }
  if (text.trim() === '') return { kind: 'corrupt', error: 'empty file', path: file };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { kind: 'corrupt', error: `invalid JSON: ${errorMessage(err)}`, path: file };
  }
  const problem = validate?.(value) ?? null;
  if (problem !== null) return { kind: 'corrupt', error: problem, path: file };
  return { kind: 'ok', value: value as T };
}

/** Reads a whole text file (UTF-8). */
export function readTextFile(file: string): Promise<string> {
  return fs.readText(file);
}

/** Directory entries, or [] if the directory does not exist. */
export async function readdirOrEmpty(dir: string): Promise<string[]> {
  try {
    return await fs.readdir(dir);
  } catch (err) {
    if (errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR') return [];
    throw err;
  }
}

/** Whether a path exists (any other error than ENOENT is thrown). */
export async function pathExists(file: string): Promise<boolean> {
  try {
    await fs.stat(file);
    return true;
  } catch (err) {
    if (errorCode(err) === 'ENOENT') return false;
    throw err;
  }
}

export function errorCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : undefined;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
