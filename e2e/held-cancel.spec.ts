// Runs held for a worker with `zone: b` are visible on the queue page with their reason, are cancelled from
// there (one by its row's button, one as a selection), end aborted, and a matching worker that turns up
// afterwards never runs them.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from '@playwright/test';
import type { RunStatus, StartResult, StepLog, WorkerListing } from '../components/apiTypes';
import { poll } from './cluster';
import { apiGet, apiPost, expect, markingDag, screenshot, test } from './clusterTest';

const DAG = 'needs-zone-b';
const LINE = 'the held run ran after all';
/** The issue asks for the result of a cancel within a second of the confirmation. */
const CANCEL_RESULT_MS = 1_000;

const isCancel = (url: string, method: string) => url.endsWith('/api/v1/queue/cancel') && method === 'POST';

/**
 * Clicks the dialog's "Cancel runs" and returns, on the browser's own clock, how long after that click the
 * row of `runId` left the page and the server's answer to the cancel had arrived. Both are waited for with
 * a generous deadline; only these time stamps are bounded.
 */
async function cancelAndTime(
  page: Page,
  dialog: Locator,
  row: Locator,
  runId: string,
): Promise<{ rowGoneMs: number; answeredMs: number }> {
  await page.evaluate((id) => {
    const times: { clicked?: number; gone?: number } = {};
    (window as unknown as { cancelTimes: typeof times }).cancelTimes = times;
    document.addEventListener(
      'click',
      (e) => {
        times.clicked ??= performance.timeOrigin + e.timeStamp;
      },
      { capture: true, once: true },
    );
    const selector = `[data-testid="waiting-run"][data-run-id="${CSS.escape(id)}"]`;
    const observer = new MutationObserver(() => {
      if (document.querySelector(selector)) return;
      times.gone = performance.timeOrigin + performance.now();
      observer.disconnect();
    });
    observer.observe(document.body, { childList: true, subtree: true });
  }, runId);
  const answer = page.waitForResponse((r) => isCancel(r.url(), r.request().method()), { timeout: 30_000 });
  await dialog.getByRole('button', { name: 'Cancel runs', exact: true }).click();
  const response = await answer;
  await response.finished();
  await expect(row).toHaveCount(0, { timeout: 15_000 });
  const times = await page.evaluate(
    () => (window as unknown as { cancelTimes: { clicked?: number; gone?: number } }).cancelTimes,
  );
  expect(times.clicked, 'the click on "Cancel runs" was seen').toBeDefined();
  expect(times.gone, 'the row left the page').toBeDefined();
  const timing = response.request().timing();
  expect(timing.responseEnd, 'the browser timed the answer').toBeGreaterThanOrEqual(0);
  return {
    rowGoneMs: times.gone! - times.clicked!,
    answeredMs: timing.startTime + timing.responseEnd - times.clicked!,
  };
}

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
  const firstCancel = await cancelAndTime(page, dialog, row(first.run_id), first.run_id);
  expect(firstCancel.rowGoneMs).toBeLessThanOrEqual(CANCEL_RESULT_MS);
  expect(firstCancel.answeredMs).toBeLessThanOrEqual(CANCEL_RESULT_MS);
  await expect(dialog).toBeHidden();
  await expect(row(second.run_id)).toBeVisible();

  // The other as a selection; "Keep" first, which must leave it waiting: no cancel goes out, and the
  // listing still has it held. (The page refreshes on the server's events, and keeping causes none, so
  // the listing is asked for here, as the page would ask for it.)
  const cancelsSent: string[] = [];
  page.on('request', (r) => {
    if (isCancel(r.url(), r.method())) cancelsSent.push(r.postData() ?? '');
  });
  await page.getByRole('checkbox', { name: `Select run ${second.run_id}` }).check();
  await page.getByTestId('cancel-selected').click();
  await dialog.getByRole('button', { name: 'Keep', exact: true }).click();
  await expect(dialog).toBeHidden();
  const listing = await apiGet<{ items: Array<{ run_id: string; kind: string }> }>(server, '/api/v1/queue');
  expect(listing.items.find((i) => i.run_id === second.run_id)?.kind).toBe('held');
  expect(cancelsSent).toEqual([]);
  await expect(row(second.run_id)).toHaveAttribute('data-kind', 'held');
  await page.getByTestId('cancel-selected').click();
  const secondCancel = await cancelAndTime(page, dialog, row(second.run_id), second.run_id);
  expect(secondCancel.rowGoneMs).toBeLessThanOrEqual(CANCEL_RESULT_MS);
  expect(secondCancel.answeredMs).toBeLessThanOrEqual(CANCEL_RESULT_MS);
  testInfo.annotations.push({
    type: 'cancel',
    description: `row gone / answer after the click: ${firstCancel.rowGoneMs} / ${firstCancel.answeredMs} ms, then ${secondCancel.rowGoneMs} / ${secondCancel.answeredMs} ms`,
  });
  await screenshot(page, testInfo, 'queue-after-cancel');

  for (const runId of runIds) {
    expect((await apiGet<RunStatus>(server, `/api/v1/runs/${runId}`)).status).toBe('aborted');
  }
  await page.goto(`${server.url}/runs/${first.run_id}`);
  await expect(page.getByTestId('run-status')).toHaveText('aborted');

  // Now a worker that matches, then one more run for it. Tasks are claimed oldest first, so once this later
  // run has run on worker b, a task that survived its cancel would have been claimed too.
  await cluster.startWorker('worker-b', { zone: 'b' });
  const control = await start();
  const controlRun = await poll(
    `the run ${control.run_id} started after the cancels to succeed on worker-b`,
    async () => {
      const r = await apiGet<RunStatus>(server, `/api/v1/runs/${control.run_id}`);
      return r.status === 'succeeded' ? r : null;
    },
    30_000,
  );
  expect(controlRun.worker_id).toBe('worker-b');
  // Worker b runs nothing once it has reported the end of that run.
  await poll(
    'worker-b to report no running run',
    async () => {
      const workers = await apiGet<WorkerListing>(server, '/api/v1/workers');
      return workers.workers.find((w) => w.worker_id === 'worker-b')?.running.length === 0;
    },
    20_000,
  );

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
