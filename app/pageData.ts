// Reads the data `dagu server` looked up for a page (server/api/pageData.ts) from the request header it set,
// so that pages import no server module: every server module exists once, in the CLI's bundle.

import { headers } from 'next/headers';

/** The header server/api/pageData.ts sets (PAGE_DATA_HEADER there). */
const PAGE_DATA_HEADER = 'x-dagu-page-data';

/** What the page at `key` shows: its value, or that nothing has that name (the page answers 404). */
export type PageData<T> = { outcome: 'found'; value: T } | { outcome: 'not_found' };

/**
 * The page data for `key` (`dag:<name>`, `run:<id>`). Throws, so the page shows its error view, when it could
 * not be read, or when the request did not come through `dagu server` (which is what serves the console).
 */
export async function pageData<T>(key: string): Promise<PageData<T>> {
  const raw = (await headers()).get(PAGE_DATA_HEADER);
  if (raw === null) throw new Error(`no data for ${key}: the console's pages are served by \`dagu server\``);
  const data = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as
    | { key: string; outcome: 'found'; value: T }
    | { key: string; outcome: 'not_found' }
    | { key: string; outcome: 'error'; message: string };
  if (data.key !== key) throw new Error(`the page data is for ${data.key}, not ${key}`);
  if (data.outcome === 'error') throw new Error(data.message);
  return data.outcome === 'found' ? { outcome: 'found', value: data.value } : { outcome: 'not_found' };
}
