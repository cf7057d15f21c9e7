// Runs held for a worker with `zone: b` are visible on the queue page with their reason, are cancelled from
// there (one by its row's button, one as a selection), end aborted, and a matching worker that turns up
// afterwards never runs them.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { RunStatus, StartResult, StepLog, WorkerListing } from '../components/apiTypes';
import { sleep } from './cluster';
import { apiGet, apiPost, expect, markingDag, screenshot, test } from './clusterTest';

const DAG = 'needs-zone-b';
const LINE = 'the held run ran after all';

test('held runs cancelled from the queue page end aborted and a zone b worker started later never runs them', async ({
  cluster,
  page,
}, testInfo) => {
  test.setTimeout(120_000);
  const marks = path.join(cluster.home, 'marks');
  await cluster.writeDag(DAG, markingDag({ zone: 'b' }, marks, LINE));
  const server = await cluster.startServer();
  await cluster.startCoordinator();
  // A healthy worker that does not match: the reason is NoMatchingWorker (with none at all it would be
  // NoAvailableWorker).
  await cluster.startWorker('worker-a', { zone: 'a' });

  const start = () => apiPost<StartResult>(server, `/api/v1/dags/${DAG}/start`, {});
  const [first, second] = [await start(), await start()];
  expect([first.outcome, second.outcome]).toEqual(['held', 'held']);
  const runIds = [first.run_id, second.run_id];

  await page.goto(`${server.url}/queue`);
  const row = (runId: string) => page.locator(`[data-testid="waiting-run"][data-run-id="${runId}"]`);
  for (const runId of runIds) {
    await expect(row(runId)).toHaveAttribute('data-kind', 'held');
    await expect(row(runId)).toHaveAttribute('data-reason', 'NoMatchingWorker');
    await expect(row(runId)).toContainText('{zone: b}');
    await expect(row(runId)).toContainText('NoMatchingWorker');
  }
  await screenshot(page, testInfo, 'queue-held-runs');

  // The filter lives in the URL: a reload keeps it (and both runs pass it).
  await page.getByLabel('Reason').selectOption('NoMatchingWorker');
  await expect(page).toHaveURL(/[?&]reason=NoMatchingWorker(&|$)/);
  await page.reload();
  await expect(page.getByLabel('Reason')).toHaveValue('NoMatchingWorker');
  for (const runId of runIds) await expect(row(runId)).toBeVisible();

  // One run by its row's button.
  await row(first.run_id).getByTestId('cancel-run').click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  await screenshot(page, testInfo, 'queue-cancel-dialog');
  await dialog.getByRole('button', { name: 'Cancel runs', exact: true }).click();
  // The issue asks for the result within a second of the confirmation.
  await expect(row(first.run_id)).toHaveCount(0, { timeout: 1_000 });
  await expect(dialog).toBeHidden();
  await expect(row(second.run_id)).toBeVisible();

  // The other as a selection; "Keep" first, which must leave it waiting.
  await page.getByRole('checkbox', { name: `Select run ${second.run_id}` }).check();
  await page.getByTestId('cancel-selected').click();
  await dialog.getByRole('button', { name: 'Keep', exact: true }).click();
  await expect(dialog).toBeHidden();
  await sleep(500);
  await expect(row(second.run_id)).toHaveAttribute('data-kind', 'held');
  await page.getByTestId('cancel-selected').click();
  await dialog.getByRole('button', { name: 'Cancel runs', exact: true }).click();
  await expect(row(second.run_id)).toHaveCount(0, { timeout: 1_000 });
  await screenshot(page, testInfo, 'queue-after-cancel');

  for (const runId of runIds) {
    expect((await apiGet<RunStatus>(server, `/api/v1/runs/${runId}`)).status).toBe('aborted');
  }
  await page.goto(`${server.url}/runs/${first.run_id}`);
  await expect(page.getByTestId('run-status')).toHaveText('aborted');

  // Now a worker that matches. It registers, heartbeats and long-polls for work: give it several heartbeats
  // and a poll round. Had a task survived its cancel, the worker would have claimed it by then.
  await cluster.startWorker('worker-b', { zone: 'b' });
  await cluster.heartbeats('worker-b', 5);
  await sleep(1_000);

  const workers = await apiGet<WorkerListing>(server, '/api/v1/workers');
  expect(workers.workers.find((w) => w.worker_id === 'worker-b')?.running).toEqual([]);
  const workerDir = path.join(cluster.home, 'workers', 'worker-b');
  const workerFiles = existsSync(workerDir) ? readdirSync(workerDir, { recursive: true }).map(String) : [];
  const workerLog = readFileSync(cluster.started.find((p) => p.name === 'worker-b')!.logFile, 'utf8');
  for (const runId of runIds) {
    const after = await apiGet<RunStatus>(server, `/api/v1/runs/${runId}`);
    expect(after.status).toBe('aborted');
    expect(after.worker_id).toBeNull();
    expect(existsSync(path.join(marks, runId))).toBe(false);
    const log = await apiGet<StepLog>(server, `/api/v1/runs/${runId}/logs/s?stream=stdout`);
    expect(log.exists).toBe(false);
    expect(log.content).not.toContain(LINE);
    // Nothing of the run reached worker b: no directory of it in its work dir, its output never names it.
    expect(workerFiles.filter((f) => f.includes(runId))).toEqual([]);
    expect(workerLog).not.toContain(runId);
  }

  await page.reload();
  await expect(page.getByTestId('run-status')).toHaveText('aborted');
  await screenshot(page, testInfo, 'run-aborted');

  // Both workers are up and heartbeating, and worker b idles.
  await page.goto(`${server.url}/workers`);
  for (const id of ['worker-a', 'worker-b']) {
    await expect(page.locator(`[data-testid="worker"][data-worker-id="${id}"]`)).toHaveAttribute(
      'data-state',
      'healthy',
    );
  }
  await screenshot(page, testInfo, 'workers');
});
