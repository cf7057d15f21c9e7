// The console starts a DAG with "Run now" and shows the run succeed with its step's log.

import { HELLO_DAG, HELLO_DAG_NAME, HELLO_LINE } from './fixtures';
import { expect, screenshot, test } from './clusterTest';

test('a DAG started with "Run now" succeeds, its run page shows the step log, and the run list finds it', async ({
  cluster,
  page,
}, testInfo) => {
  await cluster.writeDag(HELLO_DAG_NAME, HELLO_DAG);
  const server = await cluster.startServer();

  // The home is the overview; the DAG list is one click away.
  await page.goto(`${server.url}/`);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'DAGs' }).click();
  await expect(page).toHaveURL(/\/dags$/);
  const row = page.getByTestId(`dag-row-${HELLO_DAG_NAME}`);
  await expect(row).toBeVisible();
  await expect(row).toContainText('never run');

  await row.getByRole('button', { name: `Run now: ${HELLO_DAG_NAME}` }).click();

  await expect(page).toHaveURL(/\/runs\/[A-Za-z0-9_-]+$/);
  await expect(page.getByTestId('run-status')).toHaveText('succeeded');
  const step = page.locator('[data-testid="step-node"][data-step="greet"]');
  await expect(step).toHaveAttribute('data-state', 'succeeded');
  await step.click();
  await expect(page.getByTestId('log-tail')).toContainText(HELLO_LINE);
  await screenshot(page, testInfo, 'run-now');

  const runId = page.url().split('/').pop()!;

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'DAGs' }).click();
  await expect(page.getByTestId(`dag-last-status-${HELLO_DAG_NAME}`)).toHaveText('succeeded');

  // The run list keeps its filter in the URL.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Runs' }).click();
  await page.getByTestId('filter-status').selectOption('failed');
  await expect(page).toHaveURL(/\/runs\?status=failed$/);
  await expect(page.getByTestId('runs-empty')).toBeVisible();
  await page.getByTestId('filter-status').selectOption('succeeded');
  await page.getByTestId('filter-dag').selectOption(HELLO_DAG_NAME);
  await expect(page).toHaveURL(new RegExp(`/runs\\?dag=${HELLO_DAG_NAME}&status=succeeded$`));
  await expect(page.getByTestId(`run-row-${runId}`)).toBeVisible();
});
