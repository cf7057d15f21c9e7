// The file system calls of the stores and the runner, each returning a promise. They run asynchronously
// (Node's callback API on libuv's thread pool) unless the process said it may block: a one-shot command
// whose event loop has nothing else to do while it waits on a file (a run process between its steps, when
// it supervises no child) then makes the same call synchronously. Each such call skips a round trip through
// the thread pool, about 0.15 ms here, and a run makes some 60 of them. The long-running services never
// block: a slow or stalled disk must not hold up their timers (fencing, heartbeats, HTTP).
//
// The callback API rather than fs.promises: it is faster on Node 20, and a process that never touches
// fs.promises does not pay for loading it.

import fs from 'node:fs';
import path from 'node:path';

let mayBlock: () => boolean = () => false;

/**
 * Lets file calls block the event loop whenever `predicate` holds (asked at each call). Only for one-shot
 * commands; `() => false` restores the default.
 */
export function blockFileCallsWhile(predicate: () => boolean): void {
  mayBlock = predicate;
}

/** Whether the next file call will be made synchronously. */
export function fileCallsBlock(): boolean {
  return mayBlock();
}

type Callback<T> = (err: NodeJS.ErrnoException | null, value: T) => void;

/** One call: `sync` when blocking is allowed, else `async` with a Node-style callback. */
function call<T>(sync: () => T, async: (done: Callback<T>) => void): Promise<T> {
  if (mayBlock()) {
    try {
      return Promise.resolve(sync());
    } catch (err) {
      return Promise.reject(err as Error);
    }
  }
  return new Promise<T>((resolve, reject) => async((err, value) => (err ? reject(err) : resolve(value))));
}

export function mkdir(dir: string, recursive = false): Promise<void> {
  const made = call(
    () => void fs.mkdirSync(dir, { recursive }),
    (done) => fs.mkdir(dir, { recursive }, (err) => done(err, undefined)),
  );
  if (!recursive) return made;
  return made.catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
    // Node 20's asynchronous recursive mkdir reports any failure to make a missing directory as ENOENT:
    // ENOSPC on a full disk read "no such file or directory". Made one by one, each says what went wrong.
    return mkdirEach(dir);
  });
}

/** `mkdir -p` one directory at a time, from the first missing ancestor down; throws the first real error. */
async function mkdirEach(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    const found = await stat(d).then(
      () => true,
      (e: NodeJS.ErrnoException) => {
        if (e.code === 'ENOENT') return false;
        throw e;
      },
    );
    if (found || path.dirname(d) === d) break;
    missing.push(d);
  }
  for (const d of missing.reverse()) {
    await mkdir(d).catch((e: NodeJS.ErrnoException) => {
      // Made by someone else meanwhile: what matters is that it is there.
      if (e.code !== 'EEXIST') throw e;
    });
  }
}

/** Opens a file; `flags` and `mode` as for fs.open. Resolves to the descriptor. */
export function open(file: string, flags: string, mode = 0o666): Promise<number> {
  return call(
    () => fs.openSync(file, flags, mode),
    (done) => fs.open(file, flags, mode, done),
  );
}

export function close(fd: number): Promise<void> {
  return call(
    () => fs.closeSync(fd),
    (done) => fs.close(fd, (err) => done(err ?? null, undefined)),
  );
}

export function fsync(fd: number): Promise<void> {
  return call(
    () => fs.fsyncSync(fd),
    (done) => fs.fsync(fd, (err) => done(err, undefined)),
  );
}

/** Writes all of `data` to an open descriptor (as many write calls as it takes). */
export function writeAll(fd: number, data: string | Uint8Array): Promise<void> {
  return call(
    () => fs.writeFileSync(fd, data),
    (done) => fs.writeFile(fd, data, (err) => done(err, undefined)),
  );
}

/** One write call of `buffer` at the descriptor's position; resolves to the bytes written. */
export function writeOnce(fd: number, buffer: Uint8Array): Promise<number> {
  return call(
    () => fs.writeSync(fd, buffer, 0, buffer.length),
    (done) => fs.write(fd, buffer, 0, buffer.length, null, (err, written) => done(err, written)),
  );
}

/**
 * One write call of `buffer` at `position`, leaving the descriptor's offset alone; resolves to the bytes
 * written. On Linux a descriptor opened for appending writes at the end whatever `position` says.
 */
export function writeAt(fd: number, buffer: Uint8Array, position: number): Promise<number> {
  return call(
    () => fs.writeSync(fd, buffer, 0, buffer.length, position),
    (done) => fs.write(fd, buffer, 0, buffer.length, position, (err, written) => done(err, written)),
  );
}

/** Reads up to `buffer.length` bytes at `position`; resolves to the bytes read. */
export function readAt(fd: number, buffer: Uint8Array, position: number): Promise<number> {
  return call(
    () => fs.readSync(fd, buffer, 0, buffer.length, position),
    (done) => fs.read(fd, buffer, 0, buffer.length, position, (err, bytesRead) => done(err, bytesRead)),
  );
}

/** Creates or replaces a whole file (no fsync). */
export function writeFile(file: string, data: string | Uint8Array, mode = 0o666): Promise<void> {
  return call(
    () => fs.writeFileSync(file, data, { mode }),
    (done) => fs.writeFile(file, data, { mode }, (err) => done(err, undefined)),
  );
}

/** A whole file as UTF-8 text. */
export function readText(file: string): Promise<string> {
  return call(
    () => fs.readFileSync(file, 'utf8'),
    (done) => fs.readFile(file, 'utf8', done),
  );
}

export function readdir(dir: string): Promise<string[]> {
  return call(
    () => fs.readdirSync(dir),
    (done) => fs.readdir(dir, done),
  );
}

/** The file system's counts of blocks (free, available to unprivileged users) and their size. */
export function statfs(target: string): Promise<fs.StatsFs> {
  return call(
    () => fs.statfsSync(target),
    (done) => fs.statfs(target, done),
  );
}

export function stat(file: string): Promise<fs.Stats> {
  return call(
    () => fs.statSync(file),
    (done) => fs.stat(file, done),
  );
}

export function fstat(fd: number): Promise<fs.Stats> {
  return call(
    () => fs.fstatSync(fd),
    (done) => fs.fstat(fd, done),
  );
}

export function rename(from: string, to: string): Promise<void> {
  return call(
    () => fs.renameSync(from, to),
    (done) => fs.rename(from, to, (err) => done(err, undefined)),
  );
}

export function link(existing: string, newPath: string): Promise<void> {
  return call(
    () => fs.linkSync(existing, newPath),
    (done) => fs.link(existing, newPath, (err) => done(err, undefined)),
  );
}

export function unlink(file: string): Promise<void> {
  return call(
    () => fs.unlinkSync(file),
    (done) => fs.unlink(file, (err) => done(err, undefined)),
  );
}

/** Appends `data` to a file, creating it if absent (no fsync). */
export function appendFile(file: string, data: string | Uint8Array): Promise<void> {
  return call(
    () => fs.appendFileSync(file, data),
    (done) => fs.appendFile(file, data, (err) => done(err, undefined)),
  );
}

/** Removes an empty directory; fails (ENOTEMPTY) when something was written into it. */
export function rmdir(dir: string): Promise<void> {
  return call(
    () => fs.rmdirSync(dir),
    (done) => fs.rmdir(dir, (err) => done(err, undefined)),
  );
}

/** Removes a file or a whole directory tree; nothing to remove is not an error. */
export function removeTree(target: string): Promise<void> {
  return call(
    () => fs.rmSync(target, { recursive: true, force: true }),
    (done) => fs.rm(target, { recursive: true, force: true }, (err) => done(err, undefined)),
  );
}
