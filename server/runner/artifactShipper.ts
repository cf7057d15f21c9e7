// Copies a run's artifacts from its local folder into the artifact store of a database backend, where the
// local disk is no durable place: after each step (in the background, one copy at a time) and once more,
// awaited, before the final status. Only files new or changed since the last copy are read again.

// node:fs's `promises` is read where it is used: a run that has no artifacts never loads fs/promises.
import { promises as fsp } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ArtifactStore } from '../store/artifactStore';

/** What the engine tells the copying of a run's artifacts (see executeRun's `artifactShipping`). */
export interface ArtifactShipping {
  /** A step or handler ended: copy what changed, in the background. */
  stepEnded(): void;
  /** Copies what is left; the first failure of the run (an artifact over the size cap), or null. */
  beforeFinalStatus(): Promise<string | null>;
  /**
   * Before the first step: brings back the artifacts an earlier attempt stored (a retry or resume on another
   * host, whose scratch folder is empty), leaving files already here as they are.
   */
  restore(): Promise<void>;
}

export class ArtifactShipper implements ArtifactShipping {
  private readonly copied = new Map<string, string>();
  private chain: Promise<void> = Promise.resolve();
  private failure: string | null = null;

  constructor(
    private readonly store: ArtifactStore,
    private readonly runId: string,
    private readonly dir: string,
  ) {}

  stepEnded(): void {
    this.chain = this.chain.then(() => this.copy());
  }

  async beforeFinalStatus(): Promise<string | null> {
    this.stepEnded();
    await this.chain;
    return this.failure;
  }

  async restore(): Promise<void> {
    for (const a of await this.store.list(this.runId)) {
      const target = join(this.dir, ...a.path.split('/'));
      if (
        await fsp.lstat(target).then(
          () => true,
          () => false,
        )
      )
        continue;
      const data = await this.store.read(this.runId, a.path);
      if (data === null) continue;
      await fsp.mkdir(dirname(target), { recursive: true, mode: 0o750 });
      await fsp.writeFile(target, data, { mode: 0o600, flag: 'wx' });
      const info = await fsp.lstat(target);
      this.copied.set(a.path, `${info.size}:${info.mtimeMs}`);
    }
  }

  private async copy(): Promise<void> {
    try {
      for (const [rel, full] of await this.files(this.dir, '')) {
        const info = await fsp.lstat(full);
        const stamp = `${info.size}:${info.mtimeMs}`;
        if (this.copied.get(rel) === stamp) continue;
        try {
          await this.store.put(this.runId, rel, new Uint8Array(await fsp.readFile(full)));
          this.copied.set(rel, stamp);
        } catch (err) {
          this.copied.set(rel, stamp);
          this.failure ??= `run artifacts not stored: ${err instanceof Error ? err.message : String(err)}`;
        }
      }
    } catch (err) {
      this.failure ??= `run artifacts not stored: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  /** The regular files below `dir` (symlinks skipped), as [relative path, absolute path]. */
  private async files(dir: string, prefix: string): Promise<Array<[string, string]>> {
    let names: string[];
    try {
      names = await fsp.readdir(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const out: Array<[string, string]> = [];
    for (const name of names.sort()) {
      const full = join(dir, name);
      const info = await fsp.lstat(full);
      const rel = prefix === '' ? name : `${prefix}/${name}`;
      if (info.isDirectory()) out.push(...(await this.files(full, rel)));
      else if (info.isFile()) out.push([rel, full]);
    }
    return out;
  }
}
