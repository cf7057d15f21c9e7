// axe-core over every page of the console, with data on it (a DAG, a finished run with logs, a search):
// no serious or critical violation. Each page is checked once loaded, in light and dark colour schemes.

import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { HELLO_DAG, HELLO_DAG_NAME } from './fixtures';
import { poll } from './cluster';
import { apiGet, apiPost, expect, test } from './clusterTest';

async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

test('no page of the console has a serious or critical accessibility violation', async ({
  cluster,
  page,
}) => {
  test.setTimeout(240_000);
  await cluster.writeDag(HELLO_DAG_NAME, HELLO_DAG);
  const server = await cluster.startServer();
  const { run_id: runId } = await apiPost<{ run_id: string }>(
    server,
    `/api/v1/dags/${HELLO_DAG_NAME}/start`,
    {},
  );
  await poll('the run to finish', async () => {
    const r = await apiGet<{ status: string }>(server, `/api/v1/runs/${runId}`);
    return r.status === 'succeeded' ? r : null;
  });

  const pages: Array<[string, string, (p: Page) => Promise<void>]> = [
    ['overview', '/', (p) => expect(p.getByRole('heading', { level: 1 })).toBeVisible()],
    ['DAG list', '/dags', (p) => expect(p.getByTestId(`dag-row-${HELLO_DAG_NAME}`)).toBeVisible()],
    [
      'DAG page',
      `/dags/${HELLO_DAG_NAME}`,
      // Everything the page loads after its heading: the step graph, the history grid with the run, and
      // the editor (a client-only chunk), so that axe sees the whole page.
      async (p) => {
        await expect(p.getByRole('heading', { level: 1 })).toBeVisible();
        await expect(p.getByTestId('run-graph')).toBeVisible();
        await expect(p.getByTestId('history-grid')).toBeVisible();
        await expect(p.getByTestId('dag-editor')).toBeVisible();
      },
    ],
    ['run list', '/runs', (p) => expect(p.getByTestId(`run-row-${runId}`)).toBeVisible()],
    ['run page', `/runs/${runId}`, (p) => expect(p.getByTestId('log-line').first()).toBeVisible()],
    ['queue', '/queue', (p) => expect(p.getByRole('heading', { level: 1 })).toBeVisible()],
    ['workers', '/workers', (p) => expect(p.getByRole('heading', { level: 1 })).toBeVisible()],
    ['search', `/search?q=${HELLO_DAG_NAME}`, (p) => expect(p.getByTestId('search-dag')).toBeVisible()],
    [
      'search, nothing found',
      '/search?q=zzzz-nothing',
      (p) => expect(p.getByTestId('search-nothing')).toBeVisible(),
    ],
  ];
  const found: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [name, url, loaded] of pages) {
      await page.goto(`${server.url}${url}`);
      await loaded(page);
      for (const v of await seriousViolations(page)) found.push(`${name} (${scheme}): ${v}`);
    }
  }
  expect(found).toEqual([]);
});
