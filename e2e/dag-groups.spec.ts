// DAGs that set `group` are listed under their group's heading on the DAG list, as in Dagu's console; a
// heading collapses its DAGs, and the browser remembers that across a reload. DAGs of no group come first.

import { expect, screenshot, test } from './clusterTest';

const step = 'steps:\n  - name: s\n    command: "true"\n';

test('the DAG list groups DAGs by their group key; a collapsed group stays collapsed after a reload', async ({
  cluster,
  page,
}, testInfo) => {
  await cluster.writeDag('load-orders', `group: etl\n${step}`);
  await cluster.writeDag('load-users', `group: etl\n${step}`);
  await cluster.writeDag('invoice', `group: billing\n${step}`);
  await cluster.writeDag('loose', step);
  const server = await cluster.startServer();

  await page.goto(`${server.url}/dags`);
  const etl = page.getByTestId('dag-group-etl');
  const heading = etl.getByRole('button', { name: /etl/ });
  await expect(heading).toHaveAttribute('aria-expanded', 'true');
  await expect(heading).toContainText('2 DAGs');
  await expect(etl.getByTestId('dag-row-load-orders')).toBeVisible();
  await expect(etl.getByTestId('dag-row-load-users')).toBeVisible();
  await expect(page.getByTestId('dag-group-billing').getByTestId('dag-row-invoice')).toBeVisible();
  await expect(page.getByTestId('dag-ungrouped').getByTestId('dag-row-loose')).toBeVisible();
  // Sections in order: no group first, then the groups by name.
  const sections = await page
    .getByTestId('dag-table')
    .locator('tbody')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')));
  expect(sections).toEqual(['dag-ungrouped', 'dag-group-billing', 'dag-group-etl']);
  await screenshot(page, testInfo, 'dag-groups');

  await heading.click();
  await expect(heading).toHaveAttribute('aria-expanded', 'false');
  await expect(page.getByTestId('dag-row-load-orders')).toHaveCount(0);
  await expect(page.getByTestId('dag-row-invoice')).toBeVisible();

  await page.reload();
  await expect(page.getByTestId('dag-row-loose')).toBeVisible();
  await expect(heading).toHaveAttribute('aria-expanded', 'false');
  await expect(page.getByTestId('dag-row-load-users')).toHaveCount(0);

  await heading.click();
  await expect(page.getByTestId('dag-row-load-users')).toBeVisible();
});
