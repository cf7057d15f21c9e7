// Reads the entries of a zip, tar or gzip-compressed tar file one at a time, in archive order, handing each
// to an async handler before the next is read. Entry names are returned as stored: the caller decides where
// (and whether) they land. Every byte read through an entry counts against a budget, so a compression bomb
// fails with a clear error instead of filling a disk or the memory.

import { createReadStream } from 'node:fs';
import { open as openFile } from 'node:fs/promises';
import { Transform, type Readable } from 'node:stream';
import { Parser, type ReadEntry } from 'tar';
import yauzl from 'yauzl';
import { ArchiveError, EXIT, formatFromName, unsupportedFormat, type ArchiveFormat } from './archiveConfig';

export type EntryType = 'file' | 'dir' | 'symlink' | 'hardlink' | 'other';

export interface ArchiveEntry {
  /** The name as stored in the archive (`/` separated; may be hostile). */
  name: string;
  type: EntryType;
  /** The size the archive declares for the entry's data. */
  size: number;
  /** Permission bits. */
  mode: number;
  mtime: Date;
  /** A symlink's or hard link's target, as stored. */
  linkTarget: string;
  /** The entry's data (a file entry's); every byte counts against the budget. */
  open(): Promise<Readable>;
}

/** The limits of one read: bytes of entry data, and entries. */
export interface Budget {
  maxBytes: number;
  maxEntries: number;
}

/** Entry data may be at most this many times the archive's size, and never less than the floor below. */
export const MAX_EXPANSION_RATIO = 200;
export const MIN_BYTE_BUDGET = 1024 ** 3;
export const MAX_ENTRIES = 1_000_000;

/** The budget for reading an archive of `archiveSize` bytes. */
export function budgetFor(archiveSize: number): Budget {
  return { maxBytes: Math.max(MIN_BYTE_BUDGET, archiveSize * MAX_EXPANSION_RATIO), maxEntries: MAX_ENTRIES };
}

const MAX_LINK_TARGET = 4096;

/** The format of an archive file: from its first bytes, else from its name. */
export async function detectFormat(path: string): Promise<ArchiveFormat> {
  const fh = await openFile(path, 'r');
  const head = Buffer.alloc(512);
  let n: number;
  try {
    ({ bytesRead: n } = await fh.read(head, 0, 512, 0));
  } finally {
    await fh.close();
  }
  const starts = (...bytes: number[]) => n >= bytes.length && bytes.every((b, i) => head[i] === b);
  if (starts(0x50, 0x4b, 0x03, 0x04) || starts(0x50, 0x4b, 0x05, 0x06)) return 'zip';
  if (starts(0x1f, 0x8b)) return 'tar.gz';
  if (n >= 262 && head.toString('latin1', 257, 262) === 'ustar') return 'tar';
  if (starts(0x42, 0x5a, 0x68)) throw unsupportedFormat('bz2');
  if (starts(0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00)) throw unsupportedFormat('xz');
  if (starts(0x28, 0xb5, 0x2f, 0xfd)) throw unsupportedFormat('zst');
  if (starts(0x04, 0x22, 0x4d, 0x18)) throw unsupportedFormat('lz4');
  if (starts(0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c)) throw unsupportedFormat('7z');
  if (starts(0x52, 0x61, 0x72, 0x21, 0x1a, 0x07)) throw unsupportedFormat('rar');
  const byName = formatFromName(path);
  if (byName === 'zip' || byName === 'tar' || byName === 'tar.gz') return byName;
  if (byName !== null) throw unsupportedFormat(byName);
  throw new ArchiveError('archive: format detection failed: not a zip, tar or tar.gz file', EXIT.format);
}

/** Calls `handle` for each entry of the archive, in order, waiting for it before reading the next. */
export async function walkEntries(
  path: string,
  format: ArchiveFormat,
  budget: Budget,
  signal: AbortSignal,
  handle: (entry: ArchiveEntry) => Promise<void>,
): Promise<void> {
  const meter = new Meter(budget);
  if (format === 'zip') await walkZip(path, meter, signal, handle);
  else await walkTar(path, meter, signal, handle);
}

class Meter {
  private bytes = 0;
  private entries = 0;
  constructor(private readonly budget: Budget) {}

  entry(): void {
    if (++this.entries > this.budget.maxEntries)
      throw new ArchiveError(
        `archive: the archive has more than ${this.budget.maxEntries} entries; refusing to read further`,
        EXIT.extract,
      );
  }

  /** `src` through a pass-through stream that fails once the whole read has passed the byte budget. */
  counted(src: Readable): Transform {
    const t = new Transform({
      transform: (chunk: Buffer, _enc, done) => {
        this.bytes += chunk.length;
        if (this.bytes > this.budget.maxBytes)
          done(
            new ArchiveError(
              `archive: the archive expands to more than ${this.budget.maxBytes} bytes; refusing to read further (a compression bomb?)`,
              EXIT.extract,
            ),
          );
        else done(null, chunk);
      },
    });
    src.on('error', (e) => t.destroy(e));
    return src.pipe(t);
  }
}

function tarType(entry: ReadEntry): EntryType {
  switch (entry.type) {
    case 'File':
    case 'OldFile':
    case 'ContiguousFile':
      return 'file';
    case 'Directory':
    case 'GNUDumpDir':
      return 'dir';
    case 'SymbolicLink':
      return 'symlink';
    case 'Link':
      return 'hardlink';
    default:
      return 'other';
  }
}

async function walkTar(
  path: string,
  meter: Meter,
  signal: AbortSignal,
  handle: (entry: ArchiveEntry) => Promise<void>,
): Promise<void> {
  const input = createReadStream(path);
  const parser = new Parser({ strict: true });
  await new Promise<void>((resolve, reject) => {
    let failed = false;
    let chain = Promise.resolve();
    const fail = (e: unknown) => {
      if (failed) return;
      failed = true;
      input.destroy();
      parser.removeAllListeners('entry');
      parser.on('error', () => {});
      reject(e instanceof ArchiveError ? e : corrupted(e));
    };
    const onAbort = () => fail(new ArchiveError('archive: stopped', EXIT.stopped));
    signal.addEventListener('abort', onAbort, { once: true });
    parser.on('entry', (raw: ReadEntry) => {
      chain = chain.then(async () => {
        if (failed) return void raw.resume();
        try {
          meter.entry();
          let opened = false;
          await handle({
            name: raw.path,
            type: tarType(raw),
            size: raw.size ?? 0,
            mode: (raw.mode ?? 0o644) & 0o7777,
            mtime: raw.mtime ?? new Date(0),
            linkTarget: raw.linkpath ?? '',
            open: () => {
              opened = true;
              return Promise.resolve(meter.counted(raw as unknown as Readable));
            },
          });
          if (!opened) raw.resume();
        } catch (e) {
          raw.resume();
          fail(e);
        }
      });
    });
    parser.on('error', fail);
    parser.on('warn', (code: string, message: string) => fail(new Error(`${code}: ${message}`)));
    input.on('error', (e) => fail(new ArchiveError(`archive: ${e.message}`, EXIT.sourceNotFound)));
    parser.on('end', () => {
      void chain.then(() => {
        signal.removeEventListener('abort', onAbort);
        if (!failed) resolve();
      });
    });
    input.pipe(parser as unknown as NodeJS.WritableStream);
  });
}

function corrupted(e: unknown): ArchiveError {
  const message = e instanceof Error ? e.message : String(e);
  return new ArchiveError(`archive: corrupted archive: ${message}`, EXIT.corrupted);
}

async function walkZip(
  path: string,
  meter: Meter,
  signal: AbortSignal,
  handle: (entry: ArchiveEntry) => Promise<void>,
): Promise<void> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(
      path,
      { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true },
      (err, z) => (err ? reject(corrupted(err)) : resolve(z)),
    ),
  );
  const openStream = (entry: yauzl.Entry) =>
    new Promise<Readable>((resolve, reject) =>
      zip.openReadStream(entry, (err, s) => (err ? reject(corrupted(err)) : resolve(s))),
    );
  try {
    await new Promise<void>((resolve, reject) => {
      let done = false;
      const fail = (e: unknown) => {
        if (done) return;
        done = true;
        reject(e instanceof ArchiveError ? e : corrupted(e));
      };
      const onAbort = () => fail(new ArchiveError('archive: stopped', EXIT.stopped));
      signal.addEventListener('abort', onAbort, { once: true });
      zip.on('error', fail);
      zip.on('end', () => {
        signal.removeEventListener('abort', onAbort);
        if (!done) {
          done = true;
          resolve();
        }
      });
      zip.on('entry', (raw: yauzl.Entry) => {
        void (async () => {
          try {
            meter.entry();
            const name = (raw.fileName as unknown as Buffer).toString('utf8');
            const unixMode = (raw.externalFileAttributes >>> 16) & 0o177777;
            const kind = unixMode & 0o170000;
            const type: EntryType =
              name.endsWith('/') || kind === 0o040000
                ? 'dir'
                : kind === 0o120000
                  ? 'symlink'
                  : kind === 0 || kind === 0o100000
                    ? 'file'
                    : 'other';
            if ((raw.generalPurposeBitFlag & 1) !== 0 && type !== 'dir')
              throw new ArchiveError(
                `archive: entry ${JSON.stringify(name)} is encrypted; encrypted zip files are not supported by this product`,
                EXIT.extract,
              );
            let linkTarget = '';
            if (type === 'symlink') {
              if (raw.uncompressedSize > MAX_LINK_TARGET)
                throw corrupted(`symlink ${name} has an oversized target`);
              const chunks: Buffer[] = [];
              for await (const c of meter.counted(await openStream(raw))) chunks.push(c as Buffer);
              linkTarget = Buffer.concat(chunks).toString('utf8');
            }
            await handle({
              name,
              type,
              size: raw.uncompressedSize,
              mode: unixMode & 0o7777 || (type === 'dir' ? 0o755 : 0o644),
              mtime: raw.getLastModDate(),
              linkTarget,
              open: async () => meter.counted(await openStream(raw)),
            });
            if (signal.aborted) return fail(new ArchiveError('archive: stopped', EXIT.stopped));
            if (!done) zip.readEntry();
          } catch (e) {
            fail(e);
          }
        })();
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
}
