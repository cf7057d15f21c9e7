// The console's part of run artifacts: a run whose steps left files in DAG_RUN_ARTIFACTS_DIR lists them on
// its page under "Artifacts" with their sizes, and each download link gives the file's bytes.

import { apiPost, expect, screenshot, test } from './clusterTest';

const DAG = `steps:
  - id: report
    action: artifact.write
    with:
      path: reports/summary.md
      content: "# nightly report"
  - id: raw
    depends: report
    run: printf 'a,b\\n1,2\\n' > "$DAG_RUN_ARTIFACTS_DIR/data.csv"
`;

test("a run's artifacts are listed on its page and each one downloads", async ({
  cluster,
  page,
}, testInfo) => {
  await cluster.writeDag('reporting', DAG);
  const server = await cluster.startServer();
  const { run_id: runId } = await apiPost<{ run_id: string }>(server, '/api/v1/dags/reporting/start', {
    params: [],
  });
  await page.goto(`${server.url}/runs/${runId}`);
  await expect(page.getByTestId('run-status')).toHaveText('succeeded', { timeout: 30_000 });

  const panel = page.getByTestId('run-artifacts');
  await expect(panel.getByRole('heading', { name: 'Artifacts' })).toBeVisible();
  const rows = panel.getByTestId('artifact-row');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toHaveAttribute('data-path', 'data.csv');
  await expect(rows.nth(1)).toHaveAttribute('data-path', 'reports/summary.md');
  await screenshot(page, testInfo, 'run-artifacts');

  const link = panel.getByRole('link', { name: 'Download reports/summary.md' });
  const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
  const stream = await download.createReadStream();
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  expect(Buffer.concat(chunks).toString()).toBe('# nightly report');
  expect(download.suggestedFilename()).toMatch(/summary\.md$/);
});
