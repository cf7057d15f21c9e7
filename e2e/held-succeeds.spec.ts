// A run started from the console for `zone: b` waits, held, while no worker is up; a worker with `zone: b`
// arrives, and the run leaves the queue page and succeeds on it.

import { existsSync } from 'node:fs';
import path from 'node:path';
import type { RunListPage, RunStatus } from '../components/apiTypes';
import { poll } from './cluster';
import { apiGet, expect, markingDag, screenshot, test } from './clusterTest';

const DAG = 'waits-for-zone-b';
const LINE = 'hello from the zone b worker';

test('a held run leaves the queue and succeeds once a zone b worker starts', async ({
  cluster,
  page,
}, testInfo) => {
  test.setTimeout(120_000);
  const marks = path.join(cluster.home, 'marks');
  await cluster.writeDag(DAG, markingDag({ zone: 'b' }, marks, LINE));
  const server = await cluster.startServer();
  await cluster.startCoordinator();

  // Started the way an operator does: the DAG page's Start dialog.
  await page.goto(`${server.url}/dags/${DAG}`);
  await page.getByTestId('start-dag').click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByLabel('Parameters')).toBeVisible();
  await dialog.getByRole('button', { name: 'Start', exact: true }).click();
  const runId = await poll(
    `a run of ${DAG}`,
    async () => (await apiGet<RunListPage>(server, `/api/v1/runs?dag=${DAG}`)).items[0]?.run_id,
    10_000,
  );

  // No worker at all: held with NoAvailableWorker.
  await page.goto(`${server.url}/queue`);
  const row = page.locator(`[data-testid="waiting-run"][data-run-id="${runId}"]`);
  await expect(row).toHaveAttribute('data-kind', 'held');
  await expect(row).toHaveAttribute('data-reason', 'NoAvailableWorker');
  await expect(row).toContainText('{zone: b}');
  await screenshot(page, testInfo, 'queue-held-run');
  // The overview counts it as held.
  await page.goto(`${server.url}/`);
  await expect(page.getByTestId('count-held')).toHaveText('1');
  await page.goto(`${server.url}/queue`);
  await expect(row).toHaveAttribute('data-kind', 'held');

  // The queue page stays open: the row goes without a reload once the worker has taken the run.
  await cluster.startWorker('worker-b', { zone: 'b' });
  await expect(row).toHaveCount(0, { timeout: 15_000 });
  await screenshot(page, testInfo, 'queue-after-worker');

  await page.goto(`${server.url}/runs/${runId}`);
  await expect(page.getByTestId('run-status')).toHaveText('succeeded', { timeout: 15_000 });
  const step = page.locator('[data-testid="step-node"][data-step="s"]');
  await expect(step).toHaveAttribute('data-state', 'succeeded');
  await step.click();
  await expect(page.getByTestId('log-tail')).toContainText(LINE);
  await screenshot(page, testInfo, 'run-succeeded');

  const run = await apiGet<RunStatus>(server, `/api/v1/runs/${runId}`);
  expect(run.status).toBe('succeeded');
  expect(run.worker_id).toBe('worker-b');
  expect(existsSync(path.join(marks, runId))).toBe(true);
});
