// Live views from the event stream: a run started from the command line shows in the open runs list without
// a reload, while the list no longer polls every two seconds.

import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT, poll } from './cluster';
import { expect, test } from './clusterTest';

const QUICK = `steps:
  - name: one
    command: echo from-the-cli
`;

test('a run started from the CLI appears in the open runs list without a reload, with polling intervals long', async ({
  cluster,
  page,
}) => {
  await cluster.writeDag('quick', QUICK);
  const server = await cluster.startServer();

  const listRequests: number[] = [];
  page.on('request', (req) => {
    if (new URL(req.url()).pathname === '/api/v1/runs') listRequests.push(Date.now());
  });
  await page.goto(`${server.url}/runs`);
  await expect(page.locator('html')).toHaveAttribute('data-event-stream', 'live', { timeout: 20_000 });
  await expect(page.getByTestId('runs-empty')).toBeVisible();

  // Quiet for six seconds: the list used to be asked every two; with the stream healthy it is not asked.
  const quietFrom = Date.now();
  await page.waitForTimeout(6000);
  expect(listRequests.filter((t) => t >= quietFrom)).toEqual([]);

  const cli = spawn(process.execPath, [path.join(ROOT, 'bin', 'dagu'), 'start', 'quick'], {
    cwd: ROOT,
    env: cluster.env,
    stdio: 'ignore',
  });
  const exited = new Promise<number | null>((resolve) => cli.once('exit', resolve));
  const startedAt = Date.now();
  const row = page.locator('[data-testid^="run-row-"]');
  await expect(row).toHaveCount(1, { timeout: 15_000 });
  const shownAfterMs = Date.now() - startedAt;
  expect(await exited).toBe(0);
  await expect(row).toContainText('succeeded');
  // Shown well before a 30 s safety-net poll could have brought it, by a handful of requests at most.
  expect(shownAfterMs).toBeLessThan(15_000);
  expect(listRequests.filter((t) => t >= startedAt).length).toBeLessThanOrEqual(6);
  await poll('the page to stay live', async () =>
    (await page.locator('html').getAttribute('data-event-stream')) === 'live' ? true : null,
  );
});

test('without Web Locks the tabs elect one to hold the stream by a lease, and another takes over when it closes', async ({
  cluster,
  browser,
}) => {
  await cluster.writeDag('quick', QUICK);
  const server = await cluster.startServer();
  const context = await browser.newContext();
  // As on a page served over plain HTTP to another host: not a secure context, no navigator.locks.
  await context.addInitScript(() => {
    delete (Navigator.prototype as { locks?: unknown }).locks;
  });
  let streams = 0;
  context.on('request', (req) => {
    if (new URL(req.url()).pathname === '/api/v1/events/stream') streams += 1;
  });
  const pages = [];
  for (let i = 0; i < 3; i++) {
    const page = await context.newPage();
    await page.goto(`${server.url}/runs`);
    await expect(page.locator('html')).toHaveAttribute('data-event-stream', 'live', { timeout: 20_000 });
    pages.push(page);
  }
  expect(await pages[2].evaluate(() => 'locks' in navigator)).toBe(false);
  expect(streams).toBe(1);

  // The first tab holds the stream; closing it hands the stream to another within the lease's staleness.
  await pages[0].close({ runBeforeUnload: true });
  await poll('another tab to open the stream', () => (streams === 2 ? true : null), 20_000);
  const cli = spawn(process.execPath, [path.join(ROOT, 'bin', 'dagu'), 'start', 'quick'], {
    cwd: ROOT,
    env: cluster.env,
    stdio: 'ignore',
  });
  const exited = new Promise<number | null>((resolve) => cli.once('exit', resolve));
  for (const page of pages.slice(1)) {
    await expect(page.locator('[data-testid^="run-row-"]')).toHaveCount(1, { timeout: 15_000 });
  }
  expect(await exited).toBe(0);
  await context.close();
});
