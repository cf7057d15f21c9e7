// Run logs as the runner writes them in the data directory: `<logs root>/<dag>/<run id>/<attempt>/<name>`,
// or the same under a DAG's own `log_dir`. Every name is checked before it becomes part of a path, and a file
// that resolves (through a symbolic link) outside its run's directory is refused, so a record or request can
// never make this read a file of the host. Lines are found through a per-file index of line starts.

import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { assertDagName, assertRunId } from '../core/names';
import * as files from './fileCalls';
import { errorCode } from './fsutil';
import { LineIndexCache, type LineIndex } from './logLineIndex';
import { fsPromises } from './fsPromises';
import {
  assertRunLogRef,
  LogGapError,
  LogOutsideError,
  RUN_LOG_NAME_PATTERN,
  type LinePosition,
  type RunLogEntry,
  type RunLogRef,
  type RunLogStat,
  type RunLogStore,
} from './runLogStore';

const READ_BYTES = 256 * 1024;

export class FileRunLogStore implements RunLogStore {
  private readonly indexes = new LineIndexCache();

  /** @param logRoot the logs root (`paths.log_dir`) */
  constructor(private readonly logRoot: string) {}

  async append(ref: RunLogRef, offset: number, data: Uint8Array): Promise<number> {
    assertOffset(offset);
    const { file } = this.pathsOf(ref);
    if (offset === 0) await files.mkdir(path.dirname(file), true);
    // Only the first append creates the file; the size checked and the write are of the same open file.
    let handle: FileHandle;
    try {
      handle = await fsPromises().open(file, offset === 0 ? 'a' : 'r+');
    } catch (err) {
      if (errorCode(err) === 'ENOENT') throw new LogGapError(ref, offset, 0);
      throw err;
    }
    try {
      const { size } = await handle.stat();
      if (offset < size) return size;
      if (offset > size) throw new LogGapError(ref, offset, size);
      for (let done = 0; done < data.length;) {
        const { bytesWritten } = await handle.write(data, done, data.length - done, size + done);
        done += bytesWritten;
      }
      return size + data.length;
    } finally {
      await handle.close();
    }
  }

  async stat(ref: RunLogRef): Promise<RunLogStat | null> {
    return this.withLog(ref, async (handle, file) => {
      const { index, size } = await this.indexed(handle, file);
      return { size, lines: index.lineCount(size) };
    });
  }

  async *read(ref: RunLogRef, start: number, end: number): AsyncIterable<Uint8Array> {
    const opened = await this.openLog(ref);
    if (opened === null) return;
    const { handle } = opened;
    try {
      const { size } = await handle.stat();
      const stop = Math.min(end, size);
      for (let position = Math.max(0, start); position < stop;) {
        const buffer = Buffer.alloc(Math.min(READ_BYTES, stop - position));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
        if (bytesRead === 0) return;
        position += bytesRead;
        yield buffer.subarray(0, bytesRead);
      }
    } finally {
      await handle.close();
    }
  }

  async seekLine(ref: RunLogRef, line: number): Promise<LinePosition> {
    const found = await this.withLog(ref, async (handle, file) => {
      const { index } = await this.indexed(handle, file);
      return index.checkpointFor(Math.max(0, line));
    });
    return found ?? { offset: 0, line: 0 };
  }

  async list(run: { dag_name: string; run_id: string; log_root?: string }): Promise<RunLogEntry[]> {
    assertDagName(run.dag_name);
    assertRunId(run.run_id);
    const runDir = path.join(run.log_root ?? this.logRoot, run.dag_name, run.run_id);
    const entries: RunLogEntry[] = [];
    const attempts = (await readdirOr(runDir))
      .filter((n) => /^[1-9][0-9]{0,8}$/.test(n))
      .map(Number)
      .sort((a, b) => a - b);
    for (const attempt of attempts) {
      const names = (await readdirOr(path.join(runDir, String(attempt))))
        .filter((n) => RUN_LOG_NAME_PATTERN.test(n))
        .sort();
      for (const name of names) {
        const stat = await this.stat({ ...run, attempt, name }).catch(notAFile);
        if (stat !== null) entries.push({ attempt, name, ...stat });
      }
    }
    return entries;
  }

  private pathsOf(ref: RunLogRef): { runDir: string; file: string } {
    assertRunLogRef(ref);
    const runDir = path.join(ref.log_root ?? this.logRoot, ref.dag_name, ref.run_id);
    return { runDir, file: path.join(runDir, String(ref.attempt), ref.name) };
  }

  /** Opens the log for reading; null when it does not exist. Throws LogOutsideError (see the file's top). */
  private async openLog(ref: RunLogRef): Promise<{ handle: FileHandle; file: string } | null> {
    const { runDir, file } = this.pathsOf(ref);
    let real: string;
    let realRunDir: string;
    try {
      real = await fsPromises().realpath(file);
      realRunDir = await fsPromises().realpath(runDir);
    } catch (err) {
      if (errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR') return null;
      throw err;
    }
    const rel = path.relative(realRunDir, real);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) throw new LogOutsideError(file);
    try {
      return { handle: await fsPromises().open(real, 'r'), file: real };
    } catch (err) {
      if (errorCode(err) === 'ENOENT') return null;
      throw err;
    }
  }

  private async withLog<T>(
    ref: RunLogRef,
    use: (handle: FileHandle, file: string) => Promise<T>,
  ): Promise<T | null> {
    const opened = await this.openLog(ref);
    if (opened === null) return null;
    try {
      return await use(opened.handle, opened.file);
    } finally {
      await opened.handle.close();
    }
  }

  private async indexed(handle: FileHandle, file: string): Promise<{ index: LineIndex; size: number }> {
    const st = await handle.stat();
    if (!st.isFile()) throw Object.assign(new Error(`${file} is not a file`), { code: 'EISDIR' });
    const index = await this.indexes.indexOf(file, st.ino, st.size, async (buffer, length, position) => {
      const { bytesRead } = await handle.read(buffer, 0, length, position);
      return bytesRead;
    });
    return { index, size: st.size };
  }
}

function assertOffset(offset: number): void {
  if (!Number.isSafeInteger(offset) || offset < 0) throw new RangeError(`invalid log offset ${offset}`);
}

async function readdirOr(dir: string): Promise<string[]> {
  try {
    return await fsPromises().readdir(dir);
  } catch (err) {
    if (errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR') return [];
    throw err;
  }
}

/** A directory (or other non-file) under a log's name is not a log. */
function notAFile(err: unknown): null {
  if (errorCode(err) === 'EISDIR') return null;
  throw err;
}
