// Reloads the DAG directory for the scheduler by polling (no fs.watch: it does not work across NFS clients).
// Invalid DAG files are logged once per change and left out of scheduling.

import { stat } from 'node:fs/promises';
import type { Logger } from '../core/ports';
import type { DagSpec } from '../core/types';
import { formatDagError } from '../core/dag/dagError';
import { listDagFiles, loadDag } from '../store/dagCatalog';

interface Entry {
  mtimeMs: number;
  size: number;
  dag: DagSpec | null;
}

/** Where the scheduling loops get the DAGs to plan from: the polled DAG directory, or a fixed list in tests. */
export interface DagSource {
  /** Every valid DAG right now. */
  load(): Promise<DagSpec[]>;
}

export class DagCatalogCache implements DagSource {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly dagsDir: string,
    private readonly logger: Logger,
  ) {}

  /** Every valid DAG, re-parsing only files whose size or mtime changed. */
  async load(): Promise<DagSpec[]> {
    const files = await listDagFiles(this.dagsDir);
    const seen = new Set<string>();
    const out: DagSpec[] = [];
    for (const { file } of files) {
      seen.add(file);
      let st;
      try {
        st = await stat(file);
      } catch {
        continue; // removed between listing and stat
      }
      const cached = this.entries.get(file);
      if (cached && cached.mtimeMs === st.mtimeMs && cached.size === st.size) {
        if (cached.dag) out.push(cached.dag);
        continue;
      }
      const r = await loadDag(this.dagsDir, file);
      let dag: DagSpec | null = null;
      if (r.ok) dag = r.dag;
      else if ('errors' in r)
        this.logger.error('Invalid DAG file; it is not scheduled until fixed', {
          file,
          errors: r.errors.map(formatDagError),
        });
      this.entries.set(file, { mtimeMs: st.mtimeMs, size: st.size, dag });
      if (dag) out.push(dag);
    }
    for (const file of this.entries.keys()) if (!seen.has(file)) this.entries.delete(file);
    return out;
  }
}
