// The DAG definitions a process on the PostgreSQL backend writes through: each write goes to the database,
// and once it is made the local mirror is brought in step, so the writer (the console that saved, the
// scheduler of this host) reads its own write from the DAGs directory at once, not a poll later.

import { errorMessage } from './fsutil';
import type {
  DagDefinitions,
  DagWriteOptions,
  DeleteDagResult,
  PutDagResult,
  RenameDagResult,
} from './dagDefinitions';
import type { Logger } from '../core/ports';

export class MirroredDagDefinitions implements DagDefinitions {
  constructor(
    private readonly inner: DagDefinitions,
    private readonly mirror: { sync(): Promise<unknown> },
    private readonly logger: Logger,
  ) {}

  list: DagDefinitions['list'] = () => this.inner.list();
  get: DagDefinitions['get'] = (name) => this.inner.get(name);
  getMany: DagDefinitions['getMany'] = (names) => this.inner.getMany(names);
  revision: DagDefinitions['revision'] = () => this.inner.revision();

  async put(name: string, yaml: string, opts?: DagWriteOptions): Promise<PutDagResult> {
    const r = await this.inner.put(name, yaml, opts);
    if (r.ok && r.outcome !== 'unchanged') await this.refresh(name);
    return r;
  }

  async rename(name: string, newName: string, opts?: DagWriteOptions): Promise<RenameDagResult> {
    const r = await this.inner.rename(name, newName, opts);
    if (r.ok) await this.refresh(newName);
    return r;
  }

  async delete(name: string, opts?: DagWriteOptions): Promise<DeleteDagResult> {
    const r = await this.inner.delete(name, opts);
    if (r.ok) await this.refresh(name);
    return r;
  }

  /** The write is made whatever happens here: a failed refresh is logged and left to the next poll. */
  private async refresh(dag: string): Promise<void> {
    try {
      await this.mirror.sync();
    } catch (err) {
      this.logger.warn('Saved the DAG, but could not refresh the local DAG files; the next poll will', {
        dag,
        error: errorMessage(err),
      });
    }
  }
}
