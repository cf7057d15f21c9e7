// A build DAG (`type: build`) in the console: a step's decision shows beside its state (executed, then reused
// with a link to the run that made the output), and "Disable reuse for this run" makes it execute again.

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { poll } from './cluster';
import { apiGet, expect, screenshot, test } from './clusterTest';

const DAG = 'make';

test('a build DAG step executes, is reused by the next run with a link to its producer, and executes again when reuse is disabled', async ({
  cluster,
  page,
}, testInfo) => {
  const work = path.join(cluster.home, 'work');
  await mkdir(work, { recursive: true });
  await writeFile(path.join(work, 'source.txt'), 'hello\n');
  await cluster.writeDag(
    DAG,
    [
      'type: build',
      `working_dir: ${work}`,
      'steps:',
      '  - id: compile',
      '    inputs: [{name: src, path: source.txt}]',
      '    outputs: [{name: out, path: out.txt}]',
      '    run: tr a-z A-Z < "${inputs.src}" > "${outputs.out}"',
      '  - name: after',
      '    depends: compile',
      '    run: echo done',
      '',
    ].join('\n'),
  );
  const server = await cluster.startServer();

  const startFromDialog = async (noReuse: boolean): Promise<string> => {
    await page.goto(`${server.url}/dags/${DAG}`);
    await page.getByTestId('start-dag').click();
    const dialog = page.getByRole('dialog', { name: `Start ${DAG}` });
    const box = dialog.getByLabel('Disable reuse for this run');
    await expect(box).toBeVisible();
    if (noReuse) await box.check();
    await dialog.getByRole('button', { name: 'Start', exact: true }).click();
    await page.waitForURL(/\/runs\//);
    const runId = decodeURIComponent(page.url().split('/runs/')[1]!);
    await poll(
      `run ${runId} to end`,
      async () => {
        const r = await apiGet<{ status: string }>(server, `/api/v1/runs/${runId}`);
        return r.status === 'succeeded' || r.status === 'failed' ? r : null;
      },
      20_000,
    );
    await expect(page.getByTestId('run-status')).toHaveText('succeeded');
    return runId;
  };

  const first = await startFromDialog(false);
  await expect(page.getByTestId('step-build-compile')).toHaveText('executed');
  await expect(page.getByTestId('step-build-compile')).toHaveAttribute('data-decision', 'execute');
  await expect(page.getByTestId('step-status-compile')).toHaveText('succeeded');
  expect(await readFile(path.join(work, 'out.txt'), 'utf8')).toBe('HELLO\n');

  await startFromDialog(false);
  const badge = page.getByTestId('step-build-compile');
  await expect(badge).toHaveText('reused');
  await expect(badge).toHaveAttribute('title', /matched/);
  await expect(page.getByTestId('step-status-compile')).toHaveText('succeeded');
  const producer = page.getByTestId('step-producer-compile');
  await expect(producer).toContainText(first);
  await screenshot(page, testInfo, 'build-reused');
  await producer.getByRole('link').click();
  await expect(page).toHaveURL(new RegExp(`/runs/${first}$`));

  await startFromDialog(true);
  await expect(page.getByTestId('step-build-compile')).toHaveText('executed');
  await expect(page.getByTestId('step-build-compile')).toHaveAttribute('title', /reuse_disabled|disabled/);
  await expect(page.getByTestId('run-no-reuse')).toContainText('disabled for this run');
});
