// The console starts a DAG with "Run now" and shows the run succeed with its step's log.

import { expect, test } from '@playwright/test';
import { HELLO_DAG_NAME, HELLO_LINE } from './fixtures';

test('a DAG started with "Run now" succeeds, its run page shows the step log, and the run list finds it', async ({
  page,
}) => {
  await page.goto('/');
  await expect(page).toHaveURL(/\/dags$/);
  const row = page.getByTestId(`dag-row-${HELLO_DAG_NAME}`);
  await expect(row).toBeVisible();
  await expect(row).toContainText('never run');

  await row.getByRole('button', { name: `Run ${HELLO_DAG_NAME} now` }).click();

  await expect(page).toHaveURL(/\/runs\/[A-Za-z0-9_-]+$/);
  await expect(page.getByTestId('run-status')).toHaveText('succeeded');
  await expect(page.getByTestId('step-status-greet')).toHaveText('succeeded');
  await expect(page.getByTestId('log-greet')).toContainText(HELLO_LINE);
  await page.screenshot({ path: 'test-results/run-now.png', fullPage: true });

  const runId = page.url().split('/').pop()!;

  await page.getByTestId('nav-dags').click();
  await expect(page.getByTestId(`dag-last-status-${HELLO_DAG_NAME}`)).toHaveText('succeeded');

  // The run list keeps its filter in the URL.
  await page.getByTestId('nav-runs').click();
  await page.getByTestId('filter-status').selectOption('failed');
  await expect(page).toHaveURL(/\/runs\?status=failed$/);
  await expect(page.getByTestId('runs-empty')).toBeVisible();
  await page.getByTestId('filter-status').selectOption('succeeded');
  await page.getByTestId('filter-dag').selectOption(HELLO_DAG_NAME);
  await expect(page).toHaveURL(new RegExp(`/runs\\?dag=${HELLO_DAG_NAME}&status=succeeded$`));
  await expect(page.getByTestId(`run-row-${runId}`)).toBeVisible();
});
