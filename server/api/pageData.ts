// The data a console page renders on the server (a DAG's detail, a run's status), looked up by the web server
// before it hands the request to Next, and passed to the page in a request header. Next's pages import no
// server module, so every server module exists once, in the CLI's bundle; the page reads the header with
// app/pageData.ts. The header is always set or removed here, so a browser cannot supply its own.

import { isValidDagName, isValidRunId } from '../core/names';
import { NotFoundError } from './errors';
import { getDag, viewRun } from './operations';
import type { Services } from './services';

/** Request header with the page's data, base64url-encoded JSON of a PageData (app/pageData.ts reads it). */
export const PAGE_DATA_HEADER = 'x-dagu-page-data';

/**
 * What the page at `key` (`dag:<name>` or `run:<id>`) shows: the value (null for a run not recorded yet),
 * that nothing can have that name (the page answers 404), or that it could not be read (the error view).
 */
export type PageData =
  | { key: string; outcome: 'found'; value: unknown }
  | { key: string; outcome: 'not_found' }
  | { key: string; outcome: 'error'; message: string };

const DAG_PAGE = /^\/dags\/([^/]+)$/;
const RUN_PAGE = /^\/runs\/([^/]+)$/;

/** The data of the page at `pathname` (percent-encoded, no query); null for a page that needs none. */
export async function pageDataFor(svc: Services, pathname: string): Promise<PageData | null> {
  const dag = DAG_PAGE.exec(pathname);
  const run = dag ? null : RUN_PAGE.exec(pathname);
  const raw = dag?.[1] ?? run?.[1];
  if (raw === undefined) return null;
  let id: string;
  try {
    id = decodeURIComponent(raw);
  } catch {
    return null; // Next refuses the path itself
  }
  const key = `${dag ? 'dag' : 'run'}:${id}`;
  if (dag ? !isValidDagName(id) : !isValidRunId(id)) return { key, outcome: 'not_found' };
  try {
    return { key, outcome: 'found', value: dag ? await getDag(svc, id) : await viewRun(svc, id) };
  } catch (err) {
    // A run not recorded yet (just started) is waited for in the browser, so it is found, as null.
    if (err instanceof NotFoundError)
      return dag ? { key, outcome: 'not_found' } : { key, outcome: 'found', value: null };
    return { key, outcome: 'error', message: err instanceof Error ? err.message : String(err) };
  }
}

export function encodePageData(data: PageData): string {
  return Buffer.from(JSON.stringify(data), 'utf8').toString('base64url');
}
