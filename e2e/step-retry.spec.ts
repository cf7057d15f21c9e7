// "Retry this step" on a finished run's page (Dagu's step retry): a failed step of a sub-run runs again in
// place, through a new attempt of its root run, and the page follows the sub-run to its new attempt.

import { writeFileSync } from 'node:fs';
import { apiPost, expect, screenshot, test } from './clusterTest';

test('retries a failed step of a sub-run in place from the sub-run page', async ({
  cluster,
  page,
}, testInfo) => {
  const ok = `${cluster.home}/ok`;
  await cluster.writeDag(
    'mend',
    `type: chain
steps:
  - name: pre
    run: echo pre
  - name: go
    call: part
---
name: part
steps:
  - name: build
    run: test -f ${ok} && echo built
  - name: pack
    depends: [build]
    run: echo packed
`,
  );
  const server = await cluster.startServer();
  const started = await apiPost<{ run_id: string }>(server, '/api/v1/dags/mend/start', { params: [] });
  await page.goto(`${server.url}/runs/${started.run_id}`);
  await expect(page.getByTestId('run-status')).toHaveText('failed', { timeout: 60_000 });

  await page.getByTestId('step-children-go').getByRole('link').first().click();
  await expect(page.getByTestId('run-status')).toHaveText('failed');
  await page.getByRole('button', { name: 'Show the details and log of build' }).click();
  await expect(page.getByTestId('step-details')).toHaveAttribute('data-step', 'build');
  writeFileSync(ok, '');
  await page.getByTestId('retry-step-downstream').check();
  await page.getByTestId('retry-step').click();

  const outcome = page.getByTestId('retry-outcome');
  await expect(outcome).toContainText('to run step build again');
  await expect(outcome.getByRole('link', { name: started.run_id })).toBeVisible();
  // The sub-run's new attempt ran build and, asked for, pack after it.
  await expect(page.getByTestId('run-status')).toHaveText('succeeded', { timeout: 60_000 });
  await expect(outcome).toContainText('Showing attempt 2');
  await expect(page.getByTestId('step-status-build')).toHaveText('succeeded');
  await expect(page.getByTestId('step-status-pack')).toHaveText('succeeded');
  await screenshot(page, testInfo, 'step-retry-sub-run');

  // The root run got a new attempt in which only the call step ran, retrying its child in place.
  await outcome.getByRole('link', { name: started.run_id }).click();
  await expect(page.getByTestId('run-status')).toHaveText('succeeded', { timeout: 30_000 });
  await expect(page.getByTestId('step-status-go')).toHaveText('succeeded');
  await expect(page.getByTestId('step-children-go')).toContainText('succeeded');
});
