// Suspending a DAG's schedule from the console: on a seconds schedule the next slot after "Suspend" does not
// run, the list, the DAG page and the overview say it is suspended, and after "Resume" the slots run again.

import { apiGet, expect, screenshot, test } from './clusterTest';
import { poll } from './cluster';

const DAG = 'tick';
const YAML = 'schedule: "*/2 * * * * *"\nsteps:\n  - name: s\n    command: "true"\n';

interface RunSummary {
  run_id: string;
  status: string;
  schedule_time: string | null;
}

test('suspend a seconds schedule in the console, watch its next slot not run, resume it and watch it run', async ({
  cluster,
  page,
}, testInfo) => {
  await cluster.writeDag(DAG, YAML);
  // Every skipped slot is logged (the first at info, the later ones at debug).
  cluster.env.DAGU_LOG_LEVEL = 'debug';
  const scheduler = await cluster.startScheduler('scheduler');
  const server = await cluster.startServer();
  const runs = async () =>
    (await apiGet<{ items: RunSummary[] }>(server, `/api/v1/runs?dag=${DAG}&limit=200`)).items;
  await poll(
    'a first scheduled run',
    async () => (await runs()).some((r) => r.status === 'succeeded'),
    30_000,
  );

  // On the DAG list: Suspend asks first, then the row says Suspended.
  await page.goto(`${server.url}/dags`);
  const row = page.getByTestId(`dag-row-${DAG}`);
  await row.getByRole('button', { name: `Suspend the schedule of ${DAG}` }).click();
  const dialog = page.getByRole('dialog', { name: `Suspend the schedule of ${DAG}?` });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Keep it running' })).toBeFocused();
  await dialog.getByRole('button', { name: 'Suspend schedule' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId(`suspended-badge-${DAG}`)).toHaveText('Suspended');
  await expect(row.getByRole('button', { name: `Resume the schedule of ${DAG}` })).toBeVisible();
  const detail = await apiGet<{ suspended: boolean; suspended_at: string }>(server, `/api/v1/dags/${DAG}`);
  expect(detail.suspended).toBe(true);
  const suspendedAt = Date.parse(detail.suspended_at);

  // The next slot is skipped, and the one after it: the scheduler says so, and no run of either exists.
  const skipped = await scheduler.logRecord(/^Skipped a slot: the DAG is suspended$/, 15_000);
  const firstSkipped = Date.parse(String(skipped.fields.slot));
  expect(firstSkipped).toBeGreaterThan(suspendedAt);
  expect(firstSkipped - suspendedAt).toBeLessThanOrEqual(2000);
  const second = await scheduler.logRecord(/^Skipped a slot of a suspended DAG$/, 15_000);
  expect(Date.parse(String(second.fields.slot))).toBe(firstSkipped + 2000);
  expect((await runs()).filter((r) => Date.parse(r.schedule_time!) > suspendedAt)).toEqual([]);

  // The overview counts it.
  await page.goto(`${server.url}/`);
  await expect(page.getByTestId('count-suspended')).toHaveText('1');
  await screenshot(page, testInfo, 'overview-suspended');

  // On the DAG page: the badge, and Resume without a question.
  await page.goto(`${server.url}/dags/${DAG}`);
  await expect(page.getByTestId(`suspended-badge-${DAG}`)).toBeVisible();
  await screenshot(page, testInfo, 'dag-suspended');
  await page.getByRole('button', { name: `Resume the schedule of ${DAG}` }).click();
  await expect(page.getByTestId(`suspended-badge-${DAG}`)).toBeHidden();
  await expect(page.getByRole('button', { name: `Suspend the schedule of ${DAG}` })).toBeVisible();
  const { events } = await apiGet<{ events: Array<{ time: string }> }>(
    server,
    '/api/v1/events?type=dag.resumed',
  );
  const resumedAt = Date.parse(events[events.length - 1].time);

  // The next slot runs, and shows on the DAG page; nothing of the suspended period was run or replayed.
  const next = await poll(
    'a slot after the resume',
    async () =>
      (await runs()).find((r) => Date.parse(r.schedule_time!) > resumedAt && r.status === 'succeeded'),
    30_000,
  );
  expect(Date.parse(next.schedule_time!) - resumedAt).toBeLessThanOrEqual(4000);
  await expect(page.getByTestId(`run-row-${next.run_id}`)).toBeVisible();
  const during = (await runs()).filter((r) => {
    const slot = Date.parse(r.schedule_time!);
    return slot > suspendedAt && slot <= resumedAt;
  });
  expect(during).toEqual([]);
  await page.goto(`${server.url}/`);
  await expect(page.getByTestId('count-suspended')).toHaveText('0');
});
