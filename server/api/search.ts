// GET /api/v1/search?q=: the console's one search box. DAGs come from a catalog kept per server process that
// re-parses only files whose size or mtime changed; runs are found by ID, exactly or by its start, from the
// run directories' names. The matching and order are core's (searchMatch.ts).

import { silentLogger } from '../core/ports';
import { rankDags, rankRunIds, runIdQuery, type DagHit, type SearchDoc } from '../core/searchMatch';
import type { DagSpec } from '../core/types';
import { DagCatalogCache } from '../scheduler/dagCatalogCache';
import { listDagFiles } from '../store/dagCatalog';
import { listRunIds } from '../store/listRunIds';
import { BadRequestError } from './errors';
import type { Services } from './services';

export const MAX_SEARCH_QUERY_CHARS = 200;
const MAX_RUN_HITS = 20;

/** A run the query names by ID. */
export interface RunHit {
  run_id: string;
  dag_name: string | null;
  status: string | null;
  started_at: string | null;
  /** True when the query is the whole ID. */
  exact: boolean;
}

export interface SearchResult {
  query: string;
  dags: Array<DagHit & { description: string; tags: string[] }>;
  runs: RunHit[];
}

const catalogs = new WeakMap<Services, DagCatalogCache>();

function catalogOf(svc: Services): DagCatalogCache {
  let catalog = catalogs.get(svc);
  if (!catalog) {
    // Silent: the scheduler already logs invalid files; the search only leaves them to their name.
    catalog = new DagCatalogCache(svc.config.paths.dags_dir, silentLogger);
    catalogs.set(svc, catalog);
  }
  return catalog;
}

export function toSearchDoc(dag: DagSpec): SearchDoc {
  return {
    name: dag.name,
    description: dag.description ?? '',
    tags: dag.tags ?? [],
    steps: dag.steps.map((s) => {
      const commands = [...(s.command ?? [])];
      if (s.script) commands.push(s.script);
      if (s.action && 'command' in s.action) commands.push([s.action.command, ...s.action.args].join(' '));
      return { name: s.name, commands };
    }),
  };
}

export async function searchEverything(svc: Services, q: string | null): Promise<SearchResult> {
  const query = (q ?? '').trim();
  if (query === '') throw new BadRequestError('q: give a DAG name, tag, word of a command or a run ID');
  if (query.length > MAX_SEARCH_QUERY_CHARS) {
    throw new BadRequestError(`q: at most ${MAX_SEARCH_QUERY_CHARS} characters`);
  }
  const [specs, files] = await Promise.all([catalogOf(svc).load(), listDagFiles(svc.config.paths.dags_dir)]);
  const docs = specs.map(toSearchDoc);
  const named = new Set(docs.map((d) => d.name));
  // A file that does not parse is still found by its name.
  for (const f of files) {
    if (!named.has(f.name)) docs.push({ name: f.name, description: '', tags: [], steps: [] });
  }
  const byName = new Map(docs.map((d) => [d.name, d]));
  const dags = rankDags(docs, query).map((hit) => {
    const doc = byName.get(hit.name)!;
    return { ...hit, description: doc.description, tags: doc.tags };
  });
  const prefix = runIdQuery(query);
  const runs: RunHit[] = [];
  if (prefix !== null) {
    const ids = rankRunIds(await listRunIds(svc.config.paths.data_dir), prefix, MAX_RUN_HITS);
    for (const id of ids) {
      const read = await svc.runs.readStatus(id).catch(() => null);
      const status = read && 'status' in read ? read.status : null;
      runs.push({
        run_id: id,
        dag_name: status?.dag_name ?? null,
        status: status?.status ?? null,
        started_at: status?.started_at ?? null,
        exact: id === prefix,
      });
    }
  }
  return { query, dags, runs };
}
