// The navigation's search box against a real server: DAGs by a word of a step command, runs by ID, the
// query in the URL, and "/" to get to the box.

import { HELLO_DAG, HELLO_DAG_NAME } from './fixtures';
import { apiPost, expect, screenshot, test } from './clusterTest';

const BACKUP = `description: Copies the shop database
tags: [ops]
steps:
  - name: dump
    command: pg_dump --format=custom shop
  - name: upload
    depends: [dump]
    command: aws s3 cp shop.dump s3://backups/
`;
const ETL = `description: Loads the warehouse
tags: [etl, nightly]
steps:
  - name: load
    command: python load.py
`;

test('search finds a DAG by a word of one of its step commands', async ({ cluster, page }, testInfo) => {
  await cluster.writeDag('backup', BACKUP);
  await cluster.writeDag('etl-nightly', ETL);
  const server = await cluster.startServer();

  await page.goto(`${server.url}/dags`);
  // "/" from the page (not from a field) puts the cursor in the search box.
  await page.getByRole('heading', { level: 1 }).click();
  await page.keyboard.press('/');
  const box = page.getByRole('searchbox', { name: /Search DAGs and runs/ });
  await expect(box).toBeFocused();
  await page.keyboard.type('pg_dump');
  await page.keyboard.press('Enter');

  await expect(page).toHaveURL(/\/search\?q=pg_dump$/);
  const hits = page.getByTestId('search-dag');
  await expect(hits).toHaveCount(1);
  await expect(hits).toContainText('backup');
  await expect(hits).toContainText('found in command');
  await expect(hits).toContainText('dump: pg_dump --format=custom shop');
  await screenshot(page, testInfo, 'search-command');
  await hits.getByRole('link', { name: 'backup' }).click();
  await expect(page).toHaveURL(/\/dags\/backup$/);
});

test('search finds a run by its ID or the start of it, and the URL carries the query', async ({
  cluster,
  page,
}) => {
  await cluster.writeDag(HELLO_DAG_NAME, HELLO_DAG);
  await cluster.writeDag('etl-nightly', ETL);
  const server = await cluster.startServer();
  const { run_id: runId } = await apiPost<{ run_id: string }>(
    server,
    `/api/v1/dags/${HELLO_DAG_NAME}/start`,
    {},
  );

  // Opened from a link: the query comes from the URL, and the box shows it.
  await page.goto(`${server.url}/search?q=${encodeURIComponent(runId)}`);
  const run = page.getByTestId('search-run');
  await expect(run).toHaveCount(1);
  await expect(run).toContainText('exact ID');
  await expect(run).toContainText(HELLO_DAG_NAME);
  await expect(page.getByRole('searchbox', { name: /Search DAGs and runs/ })).toHaveValue(runId);

  const prefix = runId.slice(0, 12);
  const box = page.getByRole('searchbox', { name: /Search DAGs and runs/ });
  await box.fill(prefix);
  await box.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/search\\?q=${prefix}$`));
  await expect(page.getByTestId('search-run')).toContainText(runId);
  await page.getByRole('link', { name: runId }).click();
  await expect(page).toHaveURL(new RegExp(`/runs/${runId}$`));

  // Tags and descriptions are found too; "/" typed in a field stays in the field.
  await page.goto(`${server.url}/search?q=nightly`);
  await expect(page.getByTestId('search-dag')).toContainText('etl-nightly');
  await box.fill('a/b');
  await expect(box).toHaveValue('a/b');
});
