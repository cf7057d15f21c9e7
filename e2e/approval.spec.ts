// The console's part of step approvals: a run waiting at a step's approval shows it under "Approvals" with
// its prompt and a field per named input; a missing required input is refused by the server and named on
// the page; a push-back reruns the step with the input; an approval lets the run go on to success, and a
// rejection ends it `rejected`.

import { apiPost, expect, screenshot, test } from './clusterTest';

const DAG = `steps:
  - name: deploy
    run: echo "deploy try \${DAG_PUSHBACK_ITERATION:-0} \${TICKET:-none}"
    approval:
      prompt: Check the deploy output
      input: [TICKET]
      required: [TICKET]
  - name: after
    depends: deploy
    run: echo "after the approval"
`;

test('an approval is refused without its required input, pushed back, then approved; the run succeeds', async ({
  cluster,
  page,
}, testInfo) => {
  await cluster.writeDag('gated', DAG);
  const server = await cluster.startServer();
  const { run_id: runId } = await apiPost<{ run_id: string }>(server, '/api/v1/dags/gated/start', {
    params: [],
  });
  await page.goto(`${server.url}/runs/${runId}`);
  await expect(page.getByTestId('run-status')).toHaveText('waiting', { timeout: 30_000 });
  const form = page.getByTestId('approvals').getByTestId('approval-deploy');
  await expect(form).toContainText('Check the deploy output');
  await screenshot(page, testInfo, 'approval-open');

  await form.getByRole('button', { name: 'Approve' }).click();
  await expect(form.getByRole('alert')).toContainText('TICKET');
  await expect(page.getByTestId('run-status')).toHaveText('waiting');

  await form.getByLabel(/^TICKET/).fill('T-0');
  await form.getByRole('button', { name: 'Push back' }).click();
  // The step runs again with the push-back's input, and waits again.
  const again = page.getByTestId('approvals').getByTestId('approval-deploy');
  await expect(again).toContainText('pushed back 1 time', { timeout: 30_000 });
  const deploy = page.locator('[data-testid="step-node"][data-step="deploy"]');
  await deploy.click();
  await expect(page.getByTestId('log-tail')).toContainText('deploy try 1 T-0');

  await again.getByLabel(/^TICKET/).fill('T-1');
  await again.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByTestId('run-status')).toHaveText('succeeded', { timeout: 30_000 });
  await expect(page.getByTestId('approvals')).toHaveCount(0);
  const after = page.locator('[data-testid="step-node"][data-step="after"]');
  await after.click();
  await expect(page.getByTestId('log-tail')).toContainText('after the approval');
});

test('a rejected approval ends the run rejected', async ({ cluster, page }) => {
  await cluster.writeDag('gated', DAG);
  const server = await cluster.startServer();
  const { run_id: runId } = await apiPost<{ run_id: string }>(server, '/api/v1/dags/gated/start', {
    params: [],
  });
  await page.goto(`${server.url}/runs/${runId}`);
  await expect(page.getByTestId('run-status')).toHaveText('waiting', { timeout: 30_000 });
  const form = page.getByTestId('approval-deploy');
  await form.getByLabel('Reason (for a rejection)').fill('wrong build');
  await form.getByRole('button', { name: 'Reject' }).click();
  await expect(page.getByTestId('run-status')).toHaveText('rejected', { timeout: 30_000 });
  await expect(page.locator('[data-testid="step-node"][data-step="deploy"]')).toHaveAttribute(
    'data-state',
    'rejected',
  );
});
