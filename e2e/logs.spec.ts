// The run page's log console against a real server and real runs: it follows a run while it runs, finds a
// line in a 100 MB log on the server and jumps to it, and downloads the raw files.

import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { poll } from './cluster';
import { apiGet, apiPost, expect, screenshot, test } from './clusterTest';

interface RunView {
  status: string;
  steps: Array<{ name: string; stdout: string | null }>;
}

const TICKER = `steps:
  - name: tick
    script: |
      for i in $(seq 1 40); do echo "tick $i"; sleep 0.25; done
  - name: after
    depends: [tick]
    command: echo after-done
`;

test('the log console follows a running run: lines appear before it ends; downloads give the files', async ({
  cluster,
  page,
}, testInfo) => {
  await cluster.writeDag('ticker', TICKER);
  const server = await cluster.startServer();
  const { run_id: runId } = await apiPost<{ run_id: string }>(server, '/api/v1/dags/ticker/start', {});

  await page.goto(`${server.url}/runs/${runId}`);
  const console_ = page.getByTestId('log-console');
  await expect(console_).toBeVisible();
  // A line from the middle of the step shows while the run is still running.
  await expect(
    console_.getByTestId('log-line').filter({ hasText: /^\s*9\s*tick\s*out\s*tick 9$/ }),
  ).toBeVisible({
    timeout: 20_000,
  });
  const meanwhile = await apiGet<RunView>(server, `/api/v1/runs/${runId}`);
  expect(meanwhile.status).toBe('running');
  await expect(console_).toHaveAttribute('data-following', 'true');

  // Each line is tagged with its step; the second step's line comes after the first step's.
  await expect(console_.getByTestId('log-line').filter({ hasText: 'after-done' })).toBeVisible({
    timeout: 30_000,
  });
  await expect(page.getByTestId('run-status')).toHaveText('succeeded');
  await expect(console_).toHaveAttribute('data-following', 'false');
  await expect(console_).toHaveAttribute('data-lines', '41');
  await screenshot(page, testInfo, 'log-console');

  // The step filter leaves one step's lines.
  await page.getByTestId('log-step-filter').selectOption('after');
  await expect(console_).toHaveAttribute('data-lines', '1');

  // Downloads: the step's file as it is on disk, and every log one after another.
  const run = await apiGet<RunView>(server, `/api/v1/runs/${runId}`);
  const afterFile = path.join(cluster.home, 'logs', run.steps.find((s) => s.name === 'after')!.stdout!);
  const [stepDownload] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('log-download-step').click(),
  ]);
  expect(stepDownload.suggestedFilename()).toBe(`${runId}.after.stdout.log`);
  expect(await readFile((await stepDownload.path())!, 'utf8')).toBe(await readFile(afterFile, 'utf8'));

  const [allDownload] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('log-download-all').click(),
  ]);
  expect(allDownload.suggestedFilename()).toBe(`${runId}.all-steps.log`);
  const all = await readFile((await allDownload.path())!, 'utf8');
  expect(all).toMatch(
    /^==> tick \(stdout\) <==\ntick 1\n[\s\S]*tick 40\n\n==> after \(stdout\) <==\nafter-done\n/,
  );
});

// About 100 MB: 1.2 million lines of 88 bytes, one of them a needle.
const LINES = 1_200_000;
const NEEDLE_AT = 777_777;
const BIG = `steps:
  - name: gen
    script: |
      awk 'BEGIN { for (i = 0; i < ${LINES}; i++) { if (i == ${NEEDLE_AT}) print "the needle is on this line"; else printf "line %07d lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor\\n", i } }'
`;

test('search finds a line in a 100 MB log on the server and the console jumps to it', async ({
  cluster,
  page,
}, testInfo) => {
  test.setTimeout(180_000);
  await cluster.writeDag('big', BIG);
  const server = await cluster.startServer();
  const { run_id: runId } = await apiPost<{ run_id: string }>(server, '/api/v1/dags/big/start', {});
  const run = await poll(
    'the big run to finish',
    async () => {
      const r = await apiGet<RunView>(server, `/api/v1/runs/${runId}`);
      return ['succeeded', 'failed'].includes(r.status) ? r : null;
    },
    120_000,
    500,
  );
  expect(run.status).toBe('succeeded');
  const size = (await stat(path.join(cluster.home, 'logs', run.steps[0].stdout!))).size;
  expect(size).toBeGreaterThan(100_000_000);

  // The browser never receives the whole file: the page fetches pages of lines only.
  let bytesOfLogs = 0;
  page.on('response', (res) => {
    if (res.url().includes('/logs/') || res.url().includes('/log-')) {
      void res
        .body()
        .then((b) => (bytesOfLogs += b.length))
        .catch(() => undefined);
    }
  });
  await page.goto(`${server.url}/runs/${runId}`);
  const console_ = page.getByTestId('log-console');
  await expect(console_).toHaveAttribute('data-lines', String(LINES), { timeout: 60_000 });
  await expect(console_.getByTestId('log-line').first()).toContainText('line 0000000');

  // All by keyboard: the search box is labelled, Enter searches, Tab reaches the match, Enter jumps.
  const box = page.getByRole('searchbox', { name: 'Search the logs' });
  await box.focus();
  await page.keyboard.type('NEEDLE is on');
  await page.keyboard.press('Enter');
  const match = page.getByTestId('log-search-match');
  await expect(match).toHaveCount(1, { timeout: 60_000 });
  await expect(match).toContainText(`gen · stdout · line ${NEEDLE_AT + 1}`);
  await page.keyboard.press('Tab'); // the Search button
  await page.keyboard.press('Tab');
  await expect(match).toBeFocused();
  await page.keyboard.press('Enter');
  const jumped = console_.locator('[data-testid="log-line"][data-highlight="true"]');
  await expect(jumped).toBeInViewport();
  await expect(jumped).toContainText('the needle is on this line');
  await expect(jumped).toHaveAttribute('data-row', String(NEEDLE_AT));
  // Its neighbours are there too.
  await expect(
    console_.getByTestId('log-line').filter({ hasText: `line ${String(NEEDLE_AT + 1).padStart(7, '0')}` }),
  ).toBeVisible();
  await screenshot(page, testInfo, 'log-search-jump');
  expect(bytesOfLogs).toBeLessThan(5_000_000);
});
