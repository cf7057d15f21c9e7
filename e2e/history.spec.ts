// A DAG's history and a run's timing at a glance (issue 17, points 3, 4 and 6): the DAG page's grid of runs ×
// steps with each cell's state in colour and words, linking to the run with the step selected; the run page's
// Gantt in run order, its outputs table, a call step's child run linked both ways; and the runs list filtered
// by trigger and creation time. Run records are seeded through the project's own run store
// (e2e/seedRuns.ts), so the states and times are known exactly.

import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, screenshot, test } from './clusterTest';
import { seededRun, seededStep, seedRuns } from './seedRuns';

const DAG = `steps:
  - name: extract
    command: echo extract
  - name: transform
    command: echo transform
    depends: [extract]
  - name: load
    command: echo load
    depends: [transform]
`;

/** Serious or critical axe-core violations inside the parts of the page that `selectors` name. */
async function seriousViolations(page: Page, selectors: string[]): Promise<string[]> {
  let axe = new AxeBuilder({ page });
  for (const s of selectors) axe = axe.include(s);
  const { violations } = await axe.analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Steps of a chain run starting at second `s0` of 10:MM, each a second long, in order. */
function chain(minute: number, states: Array<'succeeded' | 'failed' | 'skipped'>) {
  const names = ['extract', 'transform', 'load'];
  const at = (s: number) =>
    `2026-03-01T10:${String(minute).padStart(2, '0')}:${String(s).padStart(2, '0')}.000Z`;
  return names.map((name, i) =>
    seededStep(name, {
      status: states[i],
      depends: i === 0 ? [] : [names[i - 1]],
      ...(states[i] === 'skipped'
        ? { started_at: null, finished_at: null, exit_code: null, skip_reason: 'precondition not met' }
        : {
            started_at: at(1 + i * 2),
            finished_at: at(2 + i * 2),
            exit_code: states[i] === 'failed' ? 1 : 0,
          }),
    }),
  );
}

function run(
  id: string,
  minute: number,
  status: 'succeeded' | 'failed',
  states: Parameters<typeof chain>[1],
) {
  const at = (s: number) =>
    `2026-03-01T10:${String(minute).padStart(2, '0')}:${String(s).padStart(2, '0')}.000Z`;
  return seededRun({
    run_id: id,
    dag_name: 'nightly',
    status,
    trigger_type: 'scheduler',
    created_at: at(0),
    queued_at: at(0),
    started_at: at(1),
    finished_at: at(7),
    steps: chain(minute, states),
  });
}

test('the history grid shows three known runs in colour and words, and a cell opens that run and step', async ({
  cluster,
  page,
}, testInfo) => {
  await cluster.writeDag('nightly', DAG);
  const ok = run('run-ok', 0, 'succeeded', ['succeeded', 'succeeded', 'succeeded']);
  ok.steps[0].output = { ROWS: '42' };
  ok.steps[2].outputs = { report: 'x'.repeat(500) };
  // The failed step was tried twice: a first try and one retry, a pause between them.
  const failed = run('run-failed', 10, 'failed', ['succeeded', 'failed', 'skipped']);
  failed.steps[1].retry_count = 1;
  failed.steps[1].executions = [
    {
      kind: 'first',
      started_at: '2026-03-01T10:10:03.000Z',
      finished_at: '2026-03-01T10:10:03.300Z',
      exit_code: 1,
    },
    {
      kind: 'retry',
      started_at: '2026-03-01T10:10:03.700Z',
      finished_at: '2026-03-01T10:10:04.000Z',
      exit_code: 1,
    },
  ];
  await seedRuns(cluster.home, [
    ok,
    failed,
    run('run-skipped', 20, 'succeeded', ['succeeded', 'skipped', 'succeeded']),
  ]);
  const server = await cluster.startServer();

  await page.goto(`${server.url}/dags/nightly`);
  const grid = page.getByTestId('history-grid');
  await expect(grid.getByTestId('history-run')).toHaveCount(3);
  // Oldest first, left to right.
  expect(await grid.getByTestId('history-run').evaluateAll((els) => els.map((e) => e.dataset.runId))).toEqual(
    ['run-ok', 'run-failed', 'run-skipped'],
  );
  const cell = (runId: string, step: string) =>
    grid.locator(`[data-testid="history-cell"][data-run-id="${runId}"][data-step="${step}"]`);
  await expect(cell('run-ok', 'load')).toHaveAttribute('data-state', 'succeeded');
  await expect(cell('run-failed', 'transform')).toHaveAttribute('data-state', 'failed');
  await expect(cell('run-failed', 'load')).toHaveAttribute('data-state', 'skipped');
  await expect(cell('run-skipped', 'transform')).toHaveAttribute('data-state', 'skipped');
  // Not colour alone: each cell names its step, run and state, and shows a glyph.
  await expect(cell('run-failed', 'transform')).toHaveAttribute(
    'aria-label',
    /^transform in run run-failed \(.*\): failed, retried 1 time$/,
  );
  await expect(cell('run-failed', 'transform')).toHaveText('✗');
  // Three states, three colours: green for succeeded, red for failed, grey for skipped. The colour is read
  // back as RGB through a canvas (the stylesheet may give it in any colour space).
  const rgb = (runId: string, step: string) =>
    cell(runId, step).evaluate((el) => {
      const ctx = document.createElement('canvas').getContext('2d')!;
      ctx.fillStyle = getComputedStyle(el).backgroundColor;
      ctx.fillRect(0, 0, 1, 1);
      return Array.from(ctx.getImageData(0, 0, 1, 1).data.slice(0, 3));
    });
  const [green, red, grey] = [
    await rgb('run-ok', 'load'),
    await rgb('run-failed', 'transform'),
    await rgb('run-skipped', 'transform'),
  ];
  expect(new Set([green, red, grey].map(String)).size).toBe(3);
  expect(red[0]).toBeGreaterThan(red[1] + 40);
  expect(green[1]).toBeGreaterThan(green[0] + 40);
  expect(Math.max(...grey) - Math.min(...grey)).toBeLessThan(20);
  await expect(page.getByTestId('history-legend')).toContainText('failed');
  await expect(page.getByTestId('history-summary')).toContainText('Last 3 runs: 2 succeeded, 1 failed');
  await expect(page.getByTestId('history-sparkline')).toBeVisible();
  await expect(page.getByTestId('trend-bar')).toHaveCount(3);
  expect(await seriousViolations(page, ['[data-testid="dag-history"]'])).toEqual([]);
  // Every cell is reachable by keyboard, with its name.
  await cell('run-ok', 'extract').focus();
  await page.keyboard.press('Tab');
  await expect(cell('run-failed', 'extract')).toBeFocused();
  await screenshot(page, testInfo, 'history-grid');

  // A cell opens the run with the step selected.
  await cell('run-failed', 'transform').click();
  await expect(page).toHaveURL(/\/runs\/run-failed\?step=transform$/);
  await expect(page.getByTestId('step-details')).toHaveAttribute('data-step', 'transform');
  await expect(page.getByTestId('step-details')).toBeInViewport();

  // The Gantt lists the steps in the order they ran; the skipped one has no bar.
  const rows = page.getByTestId('gantt-row');
  expect(await rows.evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.step))).toEqual([
    'extract',
    'transform',
    'load',
  ]);
  await expect(page.getByTestId('gantt-duration-transform')).toContainText('1.0s');
  // The retried step: one bar per try, the pause before the retry between them, each said in words.
  const transform = page.locator('[data-testid="gantt-row"][data-step="transform"]');
  await expect(
    transform.getByRole('img', { name: /^transform, first try: .*failed with exit 1$/ }),
  ).toHaveCount(1);
  await expect(
    transform.getByRole('img', { name: /^transform, retry 1: .*failed with exit 1$/ }),
  ).toHaveCount(1);
  await expect(
    transform.getByRole('img', { name: /^transform paused 400ms before its retry 1$/ }),
  ).toHaveCount(1);
  await expect(page.getByTestId('gantt-duration-load')).toHaveText('—');
  await expect(page.getByTestId('gantt-queued')).toHaveCount(1);

  // The outputs table of the first run: a known value, and a long one cut with a way to see it whole.
  await page.goto(`${server.url}/runs/run-ok`);
  const outputs = page.getByTestId('run-outputs');
  await expect(outputs.locator('[data-testid="output-row"][data-name="ROWS"]')).toContainText('extract');
  await expect(
    outputs.locator('[data-testid="output-row"][data-name="ROWS"] [data-testid="output-value"]'),
  ).toHaveText('42');
  const long = outputs.locator('[data-testid="output-row"][data-name="report"]');
  await expect(long.getByTestId('output-value')).toHaveText(`${'x'.repeat(200)}…`);
  await long.getByRole('button', { name: 'Show all 500 characters' }).click();
  await expect(long.getByTestId('output-value')).toHaveText('x'.repeat(500));
  expect(
    await seriousViolations(page, ['[data-testid="run-timeline"]', '[data-testid="run-outputs"]']),
  ).toEqual([]);
  await screenshot(page, testInfo, 'run-timeline-and-outputs');
});

test('call and parallel children are listed under their step with item, state and duration, and link back', async ({
  cluster,
  page,
}) => {
  const parent = seededRun({
    run_id: 'parent-1',
    dag_name: 'parent',
    steps: [
      seededStep('call-it', {
        sub_runs: [{ dag_name: 'child', run_id: 'child-1', status: 'succeeded' }],
      }),
      seededStep('fan', {
        sub_runs: [
          { dag_name: 'child', run_id: 'fan-a', status: 'succeeded', item: 'alpha' },
          { dag_name: 'child', run_id: 'fan-b', status: 'failed', item: 'beta' },
        ],
      }),
    ],
  });
  const child = (run_id: string, step: string, status: 'succeeded' | 'failed', seconds: number) =>
    seededRun({
      run_id,
      dag_name: 'child',
      status,
      trigger_type: 'subdag',
      started_at: '2026-03-01T10:00:00.000Z',
      finished_at: new Date(Date.UTC(2026, 2, 1, 10, 0, seconds)).toISOString(),
      parent: { dag_name: 'parent', run_id: 'parent-1', step },
      steps: [seededStep('hello')],
    });
  await seedRuns(cluster.home, [
    parent,
    child('child-1', 'call-it', 'succeeded', 4),
    child('fan-a', 'fan', 'succeeded', 3),
    child('fan-b', 'fan', 'failed', 7),
  ]);
  const server = await cluster.startServer();

  await page.goto(`${server.url}/runs/parent-1`);
  await page.getByRole('button', { name: 'List the child runs of fan' }).click();
  const fan = page.getByTestId('step-details');
  await expect(fan).toHaveAttribute('data-step', 'fan');
  const beta = fan.locator('[data-testid="sub-run"][data-run-id="fan-b"]');
  await expect(beta).toContainText('beta');
  await expect(beta.locator('[data-status="failed"]')).toHaveCount(1);
  await expect(beta.getByTestId('sub-run-duration')).toHaveText('7.0s');
  await expect(
    fan.locator('[data-testid="sub-run"][data-run-id="fan-a"]').getByTestId('sub-run-duration'),
  ).toHaveText('3.0s');

  await page
    .getByTestId('step-children-call-it')
    .getByRole('link', { name: /child-1/ })
    .click();
  await expect(page).toHaveURL(/\/runs\/child-1$/);
  await page.getByTestId('parent-step-link').click();
  await expect(page).toHaveURL(/\/runs\/parent-1\?step=call-it$/);
  const details = page.getByTestId('step-details');
  await expect(details).toHaveAttribute('data-step', 'call-it');
  await expect(details.getByTestId('sub-run')).toHaveAttribute('data-run-id', 'child-1');
  await expect(details.getByTestId('sub-run-duration')).toHaveText('4.0s');
});

test('the runs list filters by trigger and by time range, kept in the URL', async ({ cluster, page }) => {
  const now = Date.now();
  const ago = (ms: number) => new Date(now - ms).toISOString();
  const HOUR = 3600_000;
  const made = (id: string, trigger: 'manual' | 'scheduler' | 'retry', createdAgo: number) =>
    seededRun({
      run_id: id,
      dag_name: 'hourly',
      trigger_type: trigger,
      created_at: ago(createdAgo),
      started_at: ago(createdAgo - 1000),
      finished_at: ago(createdAgo - 61_000),
    });
  await seedRuns(cluster.home, [
    made('old-scheduled', 'scheduler', 72 * HOUR),
    made('recent-scheduled', 'scheduler', 3 * HOUR),
    made('fresh-manual', 'manual', 0.5 * HOUR),
    made('fresh-retry', 'retry', 0.25 * HOUR),
  ]);
  const server = await cluster.startServer();
  const rowIds = () =>
    page
      .getByTestId('run-table')
      .locator('tbody tr')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')?.replace('run-row-', '')));

  await page.goto(`${server.url}/runs`);
  await expect(page.getByTestId('run-table').locator('tbody tr')).toHaveCount(4);
  // The duration column.
  await expect(page.getByTestId('run-row-fresh-manual')).toContainText('1m 0s');

  await page.getByTestId('filter-trigger').selectOption('scheduler');
  await expect(page).toHaveURL(/[?&]trigger=scheduler/);
  await expect.poll(rowIds).toEqual(['recent-scheduled', 'old-scheduled']);

  await page.getByTestId('filter-range').selectOption('24h');
  await expect(page).toHaveURL(/[?&]range=24h/);
  await expect.poll(rowIds).toEqual(['recent-scheduled']);

  await page.getByTestId('filter-trigger').selectOption('');
  await page.getByTestId('filter-range').selectOption('1h');
  await expect.poll(rowIds).toEqual(['fresh-retry', 'fresh-manual']);

  // A shared link gives the same view, and the API answers it page by page.
  await page.goto(`${server.url}/runs?trigger=scheduler&range=7d`);
  await expect.poll(rowIds).toEqual(['recent-scheduled', 'old-scheduled']);
  await expect(page.getByTestId('filter-trigger')).toHaveValue('scheduler');
  await page.goto(`${server.url}/runs?range=30d`);
  await expect(page.getByTestId('run-table').locator('tbody tr')).toHaveCount(4);
});
