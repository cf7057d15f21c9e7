// A DAG's `run_config.disable_param_edit`, as Dagu's start dialog reads it: the console shows the DAG's
// parameters read-only and starts the run with them.

import { poll } from './cluster';
import { apiGet, expect, screenshot, test } from './clusterTest';

const DAG = 'locked';
const YAML = [
  'params: NAME=world',
  'run_config:',
  '  disable_param_edit: true',
  'steps:',
  '  - name: greet',
  '    command: echo "hello $NAME"',
  '',
].join('\n');

test('a DAG with run_config.disable_param_edit starts from the console with its parameters, which cannot be edited', async ({
  cluster,
  page,
}, testInfo) => {
  await cluster.writeDag(DAG, YAML);
  const server = await cluster.startServer();

  await page.goto(`${server.url}/dags/${DAG}`);
  await page.getByTestId('start-dag').click();
  const dialog = page.getByRole('dialog', { name: `Start ${DAG}` });
  const field = dialog.getByLabel('Parameters');
  await expect(field).toHaveValue('NAME=world');
  await expect(field).toHaveAttribute('readonly', '');
  await expect(dialog.getByTestId('params-locked')).toContainText('run_config.disable_param_edit');
  // Typing changes nothing.
  await field.click();
  await page.keyboard.type(' NAME=mars');
  await expect(field).toHaveValue('NAME=world');
  await screenshot(page, testInfo, 'start-dialog-locked');
  await dialog.getByRole('button', { name: 'Start', exact: true }).click();

  await page.waitForURL(/\/runs\//);
  const runId = decodeURIComponent(page.url().split('/runs/')[1]!);
  const run = await poll(
    `run ${runId} to end`,
    async () => {
      const r = await apiGet<{ status: string; params: string[] }>(server, `/api/v1/runs/${runId}`);
      return r.status === 'succeeded' || r.status === 'failed' ? r : null;
    },
    20_000,
  );
  expect(run).toMatchObject({ status: 'succeeded', params: ['NAME=world'] });
});
