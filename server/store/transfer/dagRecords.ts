// DAG definitions, from the DAGs directory (`paths.dags_dir`) into the `dags` table, written through the
// PostgreSQL store as creates (so every host's mirror hears of them, as after `dagu dags push`). A DAG the
// database has with another text is reported and left alone: `dagu dags push` is the command that replaces
// texts. A file no store accepts (a NUL character) is reported and skipped.

import type { Pool } from 'pg';
import {
  assertDagWrite,
  InvalidDagTextError,
  type DagDefinition,
  type DagDefinitions,
} from '../dagDefinitions';
import { PgDagDefinitions } from '../postgres/pgDagDefinitions';
import type { FileSource } from './fileSource';
import type { KindAdapter, SourceItem } from './syncKind';

type DagRecord = Pick<DagDefinition, 'name' | 'yaml' | 'version' | 'fileName'>;

/** DAGs read per query. */
const PAGE = 100;

/** Recorded as the writer of every copied DAG. */
const WRITER = 'dagu storage migrate';

export function dagRecords(files: FileSource, pool: Pool, schema: string): KindAdapter<DagRecord> {
  const target = new PgDagDefinitions(pool, schema);
  return {
    kind: 'DAG definitions',
    batch: 1,
    source: async function* (): AsyncGenerator<SourceItem<DagRecord>> {
      for await (const d of everyDag(files.dags)) {
        try {
          assertDagWrite(d.name, d.yaml);
        } catch (err) {
          if (!(err instanceof InvalidDagTextError)) throw err;
          yield { key: d.name, skipped: `${files.paths.dagsDir}/${d.fileName}: ${err.reason}` };
          continue;
        }
        yield { key: d.name, value: d };
      }
    },
    target: async function* () {
      for await (const d of everyDag(target)) yield { key: d.name, value: d };
    },
    differences: (a, b) => {
      const out: string[] = [];
      if (a.version !== b.version) out.push('the text differs');
      if (a.fileName !== b.fileName) {
        out.push(`its file is ${a.fileName} in the files, ${b.fileName} in the database`);
      }
      return out;
    },
    write: async (dags) => {
      let n = 0;
      for (const d of dags) {
        const r = await target.put(d.name, d.yaml, {
          expectedVersion: null,
          by: WRITER,
          fileName: d.fileName,
        });
        if (r.ok) n++;
      }
      return n;
    },
  };
}

/** Every DAG of a store with its text, by name, a page at a time. */
async function* everyDag(store: DagDefinitions): AsyncGenerator<DagRecord> {
  const names = (await store.list()).map((e) => e.name);
  for (let i = 0; i < names.length; i += PAGE) {
    for (const d of await store.getMany(names.slice(i, i + PAGE))) {
      yield { name: d.name, yaml: d.yaml, version: d.version, fileName: d.fileName };
    }
  }
}
