// Reloads the DAG directory for the scheduler by polling (no fs.watch: it does not work across NFS clients).
// Invalid DAG files are logged once per change and left out of scheduling.

import { stat } from 'node:fs/promises';
import type { Logger } from '../core/ports';
import type { DagSpec } from '../core/types';
import { formatDagError } from '../core/dag/dagError';
import { listDagFiles, loadDag } from '../store/dagCatalog';
import type { DagSpecCache } from '../store/dagSpecCache';
import { runConcurrently } from '../core/concurrency';

/** How many DAG files are looked at at once: a thousand one by one cost a thread-pool round trip each. */
const STAT_CONCURRENCY = 32;

interface Entry {
  mtimeMs: number;
  size: number;
  /**
   * The file's inode: the console saves a DAG by renaming a new file over it, so a save is seen even when it
   * keeps the size and lands within the mtime's resolution (a second on some NFS servers).
   */
  ino: number;
  dag: DagSpec | null;
}

/** Where the scheduling loops get the DAGs to plan from: the polled DAG directory, or a fixed list in tests. */
export interface DagSource {
  /** Every valid DAG right now. */
  load(): Promise<DagSpec[]>;
}

export class DagCatalogCache implements DagSource {
  private readonly entries = new Map<string, Entry>();

  /**
   * `specCache`: the parsed DAGs kept for the run processes (store/dagSpecCache.ts). The scheduler parses
   * every changed file anyway; keeping the result there spares each run it starts the same parse (and loading
   * the YAML parser), which is a third of a run process's CPU time.
   */
  constructor(
    private readonly dagsDir: string,
    private readonly logger: Logger,
    private readonly specCache?: DagSpecCache,
  ) {}

  /** Every valid DAG, in file-name order, re-parsing only files whose size, mtime or inode changed. */
  async load(): Promise<DagSpec[]> {
    const files = await listDagFiles(this.dagsDir);
    const found: Array<DagSpec | null> = files.map(() => null);
    await runConcurrently(files, STAT_CONCURRENCY, async ({ file }, i) => {
      found[i] = await this.loadFile(file);
    });
    const seen = new Set(files.map((f) => f.file));
    for (const file of this.entries.keys()) if (!seen.has(file)) this.entries.delete(file);
    return found.filter((dag): dag is DagSpec => dag !== null);
  }

  private async loadFile(file: string): Promise<DagSpec | null> {
    let st;
    try {
      st = await stat(file);
    } catch {
      return null; // removed between listing and stat
    }
    const cached = this.entries.get(file);
    if (cached && cached.mtimeMs === st.mtimeMs && cached.size === st.size && cached.ino === st.ino)
      return cached.dag;
    const r = await loadDag(this.dagsDir, file, { cache: this.specCache });
    let dag: DagSpec | null = null;
    if (r.ok) dag = r.dag;
    else if ('errors' in r)
      this.logger.error('Invalid DAG file; it is not scheduled until fixed', {
        file,
        errors: r.errors.map(formatDagError),
      });
    this.entries.set(file, { mtimeMs: st.mtimeMs, size: st.size, ino: st.ino, dag });
    return dag;
  }
}
