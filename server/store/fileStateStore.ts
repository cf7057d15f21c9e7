// The state store as files under the data directory: `<dir>/<scope>/<namespace hex>/<key hex>.json`, one
// entry per file, written by atomic replace. Names are the UTF-8 bytes of the namespace and the key in hex, so
// any key is a safe file name and a directory listing sorts keys in byte order. A write holds the namespace's
// lock (`lock`, created exclusively, removed after) across its read-compare-write, so a compare-and-set is
// atomic between processes and hosts sharing the directory. A lock left by a crashed writer is taken over
// once it is older than STALE_LOCK_MS.

import path from 'node:path';
import * as fs from './fileCalls';
import { onceReporter } from './corruptReporter';
import {
  createFileExclusive,
  ensureDir,
  errorCode,
  errorMessage,
  readdirOrEmpty,
  writeFileAtomic,
  type CorruptFileReport,
} from './fsutil';
import { randomHex } from './randomHex';
import {
  InvalidStateError,
  isStateScope,
  nextStateEntry,
  preparePut,
  validateStateList,
  validateStateRef,
  type StateEntry,
  type StateListOptions,
  type StatePutOptions,
  type StateRef,
  type StateScope,
  type StateStore,
} from './stateStore';

/** A lock this old is a crashed writer's: every write holds it for milliseconds. */
export const STALE_LOCK_MS = 30_000;
/** How long a write waits for the namespace's lock before it fails. */
const LOCK_WAIT_MS = 10_000;
/** The longest namespace or key, in UTF-8 bytes: its hex form must fit a file name (255 bytes). */
export const FILE_STATE_MAX_NAME_BYTES = 120;

export class FileStateStore implements StateStore {
  private readonly onCorrupt: (report: CorruptFileReport) => void;

  constructor(
    private readonly dir: string,
    onCorrupt?: (report: CorruptFileReport) => void,
  ) {
    this.onCorrupt = onceReporter(onCorrupt);
  }

  async get(ref: StateRef): Promise<StateEntry | null> {
    const file = this.fileOf(ref);
    const entry = await this.read(file, ref);
    if (entry === 'corrupt')
      throw new Error(`state: the entry ${file} is corrupt; delete it to reset the key`);
    return entry;
  }

  async put(ref: StateRef, value: string, opts: StatePutOptions = {}): Promise<StateEntry> {
    const normalized = preparePut(ref, value, opts);
    const file = this.fileOf(ref);
    return this.locked(path.dirname(file), async () => {
      const current = await this.read(file, ref);
      // A corrupt entry is replaced by a write that expects nothing in particular; a compare-and-set fails.
      const before = current === 'corrupt' ? null : current;
      if (current === 'corrupt' && (opts.expectedVersion !== undefined || opts.createOnly))
        throw new Error(`state: the entry ${file} is corrupt; delete it to reset the key`);
      const next = nextStateEntry(ref, normalized, before, opts, new Date().toISOString());
      await writeFileAtomic(file, `${JSON.stringify(next)}\n`);
      return next;
    });
  }

  async delete(ref: StateRef): Promise<boolean> {
    const file = this.fileOf(ref);
    return this.locked(path.dirname(file), async () => {
      try {
        await fs.unlink(file);
        return true;
      } catch (err) {
        if (errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR') return false;
        throw err;
      }
    });
  }

  async list(opts: StateListOptions): Promise<StateEntry[]> {
    validateStateList(opts);
    checkLength('namespace', opts.namespace);
    const dir = path.join(this.dir, opts.scope, hex(opts.namespace));
    const prefix = hex(opts.keyPrefix);
    const names = (await readdirOrEmpty(dir))
      .filter((n) => n.endsWith('.json') && n.startsWith(prefix) && /^[0-9a-f]+\.json$/.test(n))
      .sort();
    const out: StateEntry[] = [];
    for (const name of names) {
      if (opts.limit > 0 && out.length >= opts.limit) break;
      const key = Buffer.from(name.slice(0, -'.json'.length), 'hex').toString('utf8');
      const entry = await this.read(path.join(dir, name), {
        scope: opts.scope,
        namespace: opts.namespace,
        key,
      });
      if (entry !== null && entry !== 'corrupt') out.push(entry);
    }
    return out;
  }

  /** The namespaces of `scope` that have a directory (some may hold no entry), in byte order. */
  async namespaces(scope: StateScope): Promise<string[]> {
    return (await readdirOrEmpty(path.join(this.dir, scope)))
      .filter((n) => n.length > 0 && n.length % 2 === 0 && /^[0-9a-f]+$/.test(n))
      .sort()
      .map((n) => Buffer.from(n, 'hex').toString('utf8'));
  }

  /** The entry in `file`; null when absent; `corrupt` (reported) when it cannot be read as one. */
  private async read(file: string, ref: StateRef): Promise<StateEntry | null | 'corrupt'> {
    let text: string;
    try {
      text = await fs.readText(file);
    } catch (err) {
      if (errorCode(err) === 'ENOENT' || errorCode(err) === 'ENOTDIR') return null;
      throw err;
    }
    const entry = parseEntry(text, ref);
    if (typeof entry === 'string') {
      this.onCorrupt({ path: file, error: `corrupt state entry: ${entry}` });
      return 'corrupt';
    }
    return entry;
  }

  private fileOf(ref: StateRef): string {
    validateStateRef(ref);
    checkLength('namespace', ref.namespace);
    checkLength('key', ref.key);
    return path.join(this.dir, ref.scope, hex(ref.namespace), `${hex(ref.key)}.json`);
  }

  /** Runs `fn` holding the lock of the namespace directory `dir`. */
  private async locked<T>(dir: string, fn: () => Promise<T>): Promise<T> {
    await ensureDir(dir);
    const lock = path.join(dir, 'lock');
    const token = `${process.pid} ${randomHex(8)}\n`;
    const deadline = Date.now() + LOCK_WAIT_MS;
    while (!(await createFileExclusive(lock, token))) {
      const st = await fs.stat(lock).catch(() => null);
      if (st && Date.now() - st.mtimeMs > STALE_LOCK_MS) {
        // Moved aside under a name of its own first: of two writers that both saw it stale, one moves it.
        const aside = `${lock}.stale-${randomHex(6)}`;
        if (
          await fs.rename(lock, aside).then(
            () => true,
            () => false,
          )
        )
          await fs.unlink(aside).catch(() => {});
        continue;
      }
      if (Date.now() > deadline)
        throw new Error(`state: timed out waiting for the lock ${lock} (another writer holds it)`);
      await new Promise((r) => setTimeout(r, 5 + Math.floor(Math.random() * 20)));
    }
    try {
      return await fn();
    } finally {
      await fs.unlink(lock).catch(() => {});
    }
  }
}

function hex(text: string): string {
  return Buffer.from(text, 'utf8').toString('hex');
}

function checkLength(what: string, text: string): void {
  if (Buffer.byteLength(text) > FILE_STATE_MAX_NAME_BYTES)
    throw new InvalidStateError(
      `${what} is longer than ${FILE_STATE_MAX_NAME_BYTES} bytes, the most the file store keeps`,
    );
}

/** The entry a file holds, or why it is not one. */
function parseEntry(text: string, ref: StateRef): StateEntry | string {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return errorMessage(e);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'not a JSON object';
  const o = v as Record<string, unknown>;
  if (typeof o.value !== 'string' || typeof o.hash !== 'string') return 'no value';
  if (!Number.isSafeInteger(o.version) || (o.version as number) < 1) return 'no version';
  if (typeof o.created_at !== 'string' || typeof o.updated_at !== 'string') return 'no times';
  if (!isStateScope(ref.scope)) return 'bad scope';
  const by = o.updated_by;
  return {
    scope: ref.scope,
    namespace: ref.namespace,
    key: ref.key,
    value: o.value,
    version: o.version as number,
    hash: o.hash,
    created_at: o.created_at,
    updated_at: o.updated_at,
    updated_by:
      typeof by === 'object' && by !== null && !Array.isArray(by) ? (by as StateEntry['updated_by']) : null,
  };
}
