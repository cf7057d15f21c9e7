// A run's labels (its DAG's `labels` when the run was made): chips on the run page and in the run list, and
// the run list's label filter, kept in the URL like the other filters.

import { expect, screenshot, test } from './clusterTest';

const DAG = 'labelled';
const YAML = [
  'labels: [team=data, nightly]',
  'steps:',
  '  - name: greet',
  '    command: echo "hello"',
  '',
].join('\n');

test("a run shows its DAG's labels on its page and in the run list, which filters runs by label", async ({
  cluster,
  page,
}, testInfo) => {
  await cluster.writeDag(DAG, YAML);
  const server = await cluster.startServer();

  await page.goto(`${server.url}/dags`);
  await page
    .getByTestId(`dag-row-${DAG}`)
    .getByRole('button', { name: `Run now: ${DAG}` })
    .click();
  await expect(page).toHaveURL(/\/runs\/[A-Za-z0-9_-]+$/);
  const runId = decodeURIComponent(page.url().split('/runs/')[1]!);
  await expect(page.getByTestId('run-status')).toHaveText('succeeded');

  // The run page: one chip per label, in the DAG's order.
  const labels = page.getByTestId('run-labels');
  await expect(labels.getByTestId('run-label')).toHaveText(['team=data', 'nightly']);
  await screenshot(page, testInfo, 'run-labels');

  // The run list: the same chips under the DAG name.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Runs' }).click();
  const row = page.getByTestId(`run-row-${runId}`);
  await expect(row.getByTestId('run-row-label')).toHaveText(['team=data', 'nightly']);
  await expect(row.getByTestId('run-row-labels-more')).toHaveCount(0);

  // The label filter lives in the URL; a label the run has finds it, another one finds nothing.
  const filter = page.getByTestId('filter-labels');
  await filter.fill('team=data');
  await filter.press('Enter');
  await expect(page).toHaveURL(/\/runs\?labels=team%3Ddata$/);
  await expect(page.getByTestId(`run-row-${runId}`)).toBeVisible();
  await screenshot(page, testInfo, 'run-list-labels');

  await page.getByTestId('filter-labels').fill('team=web');
  await page.getByTestId('filter-labels').press('Enter');
  await expect(page).toHaveURL(/\/runs\?labels=team%3Dweb$/);
  await expect(page.getByTestId('runs-empty')).toBeVisible();
  await expect(page.getByTestId(`run-row-${runId}`)).toHaveCount(0);
  // The address alone gives the same view (a reload, a shared link), with the filter in its field.
  await page.reload();
  await expect(page.getByTestId('runs-empty')).toBeVisible();
  await expect(page.getByTestId('filter-labels')).toHaveValue('team=web');

  // A chip on the run page lists the runs with that label.
  await page.goto(`${server.url}/runs/${encodeURIComponent(runId)}`);
  await page.getByTestId('run-labels').getByRole('link', { name: 'nightly' }).click();
  await expect(page).toHaveURL(/\/runs\?labels=nightly$/);
  await expect(page.getByTestId(`run-row-${runId}`)).toBeVisible();
});
