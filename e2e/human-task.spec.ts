// The console's part of human tasks: a run waiting at an open task shows it under "Human tasks" with its
// prompt and a form built from the task's form schema; a value the form refuses is named before anything is
// sent; the completion resumes the run, which then succeeds with the input as the task's outputs.

import { apiPost, expect, screenshot, test } from './clusterTest';

const DAG = `steps:
  - id: release_review
    action: human.task
    with:
      prompt: Pick where to release \${DAG_RUN_ID}
      form:
        type: object
        properties:
          environment:
            type: string
            title: Environment
            enum: [staging, production]
          replicas:
            type: integer
            minimum: 1
        required: [environment, replicas]
  - id: record
    depends: release_review
    run: echo "released to \${steps.release_review.outputs.environment} x\${steps.release_review.outputs.replicas}"
`;

test('a waiting run shows its human task, refuses a bad value, and resumes to success once completed', async ({
  cluster,
  page,
}, testInfo) => {
  await cluster.writeDag('review', DAG);
  const server = await cluster.startServer();
  const { run_id: runId } = await apiPost<{ run_id: string }>(server, '/api/v1/dags/review/start', {
    params: [],
  });
  await page.goto(`${server.url}/runs/${runId}`);
  await expect(page.getByTestId('run-status')).toHaveText('waiting', { timeout: 30_000 });

  const panel = page.getByTestId('human-tasks');
  await expect(panel.getByRole('heading', { name: 'Human tasks' })).toBeVisible();
  const task = panel.getByTestId('human-task-release_review');
  await expect(task).toContainText(`Pick where to release ${runId}`);
  await screenshot(page, testInfo, 'human-task-open');

  // Not a whole number: refused in the page, nothing is sent and the run still waits.
  await task.getByLabel('Environment *').selectOption('production');
  await task.getByLabel(/^replicas/).fill('two');
  await task.getByRole('button', { name: 'Complete' }).click();
  await expect(task.getByRole('alert')).toContainText('replicas');
  await expect(page.getByTestId('run-status')).toHaveText('waiting');

  await task.getByLabel(/^replicas/).fill('3');
  await task.getByRole('button', { name: 'Complete' }).click();
  await expect(page.getByTestId('run-status')).toHaveText('succeeded', { timeout: 30_000 });
  await expect(page.getByTestId('human-tasks')).toHaveCount(0);
  const record = page.locator('[data-testid="step-node"][data-step="record"]');
  await expect(record).toHaveAttribute('data-state', 'succeeded');
  await record.click();
  await expect(page.getByTestId('log-tail')).toContainText('released to production x3');
});
