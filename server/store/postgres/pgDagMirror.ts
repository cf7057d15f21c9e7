// The DAG definitions of a process on PostgreSQL, with this host's mirror of them: the table, and a DagMirror
// that copies it into the process's DAGs directory. Once the process follows the definitions, a `dagu_dags`
// wake-up (through the process's one listening connection) brings an edit to every host within moments;
// polling is the fallback.

import type pg from 'pg';
import type { Clock, Logger, Timers } from '../../core/ports';
import type { Wakeups } from '../controlPlane';
import { DagMirror } from '../dagMirror';
import { PgDagDefinitions } from './pgDagDefinitions';

export interface PgDagMirrorOptions {
  pool: pg.Pool;
  schema: string;
  wakeups: Wakeups;
  /** The process's DAGs directory: on this backend, the mirror. */
  dir: string;
  clock: Clock;
  timers: Timers;
  logger: Logger;
  /** The revision read when the process opened the database (see PgDagDefinitions). */
  openedRevision?: string | null;
}

export interface PgDagMirror {
  dags: PgDagDefinitions;
  sync(): Promise<void>;
  follow(): Promise<void>;
  stop(): Promise<void>;
}

export function pgDagMirror(o: PgDagMirrorOptions): PgDagMirror {
  const dags = new PgDagDefinitions(o.pool, o.schema, o.openedRevision ?? null);
  const mirror = new DagMirror({
    store: dags,
    dir: o.dir,
    clock: o.clock,
    timers: o.timers,
    logger: o.logger,
  });
  let unsubscribe: (() => void) | null = null;
  let following: Promise<void> | null = null;
  return {
    dags,
    sync: async () => {
      await mirror.sync();
    },
    follow() {
      following ??= mirror.start().then(() => {
        // Also called after every reconnection of the listener, when wake-ups sent meanwhile are lost.
        unsubscribe = o.wakeups.subscribe('dags', () => mirror.wake());
      });
      // A failed start is not kept: the caller exits, or may try again.
      following.catch(() => (following = null));
      return following;
    },
    async stop() {
      unsubscribe?.();
      await mirror.stop();
    },
  };
}
