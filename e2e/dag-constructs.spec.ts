// The console shows the constructs of Dagu DAG files (issue 14): steps in the order the DAG runs them,
// steps skipped by a precondition (and steps never run after an upstream failure) with the reason, retry and
// repeat counts, partially succeeded steps, call/parallel child runs linked from their parent step and back
// (a parallel step's thousand children summarised and listed a page at a time), and a foreach step's items.
//
// The first and the last test use real runs (the last one: a precondition skip, a repeat, a call to a local
// sub-DAG, a parallel fan-out and a foreach loop, all written by the runner itself). The second seeds run
// records through the project's own run store (e2e/seedRuns.ts, FileRunStore), shaped exactly as the status
// contract of server/core/types.ts says, for what a short real run cannot give: a thousand children, a
// partial success.

import { apiPost, expect, screenshot, test } from './clusterTest';
import { seededRun, seededStep, seedRuns } from './seedRuns';
import type { Page } from '@playwright/test';

/** The step names of the run page's step table, top to bottom. */
async function stepRowOrder(page: Page): Promise<string[]> {
  const ids = await page
    .getByTestId('step-table')
    .locator('tbody tr')
    .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-testid') ?? ''));
  return ids.map((id) => id.replace(/^step-row-/, ''));
}

test('a real run lists its steps in run order as a chain, and counts the retries of a flaky step', async ({
  cluster,
  page,
}, testInfo) => {
  const marks = `${cluster.home}/marks`;
  // Declared last-first: the console must order by `depends`, not by the file. `flaky` fails twice, then
  // succeeds on its third try.
  await cluster.writeDag(
    'ordered',
    `steps:
  - name: report
    command: echo report
    depends: [flaky]
  - name: flaky
    depends: [setup]
    retry_policy:
      limit: 3
      interval_sec: 1
    script: |
      mkdir -p ${marks}
      if [ -f ${marks}/second ]; then echo third try; exit 0; fi
      if [ -f ${marks}/first ]; then touch ${marks}/second; exit 1; fi
      touch ${marks}/first
      exit 1
  - name: setup
    command: echo setup
`,
  );
  const server = await cluster.startServer();

  // The DAG page lists the definition's steps in the order they run.
  await page.goto(`${server.url}/dags/ordered`);
  await expect(page.getByTestId('dag-step')).toHaveCount(3);
  expect(await page.getByTestId('dag-step').evaluateAll((els) => els.map((e) => e.dataset.step))).toEqual([
    'setup',
    'flaky',
    'report',
  ]);

  const started = await apiPost<{ run_id: string }>(server, '/api/v1/dags/ordered/start', { params: [] });
  await page.goto(`${server.url}/runs/${started.run_id}`);
  await expect(page.getByTestId('run-status')).toHaveText('succeeded', { timeout: 45_000 });

  expect(await stepRowOrder(page)).toEqual(['setup', 'flaky', 'report']);
  // Drawn as the chain setup → flaky → report.
  const graph = page.getByTestId('run-graph');
  await expect(graph.locator('[data-edge="setup->flaky"]')).toHaveCount(1);
  await expect(graph.locator('[data-edge="flaky->report"]')).toHaveCount(1);
  await expect(graph.locator('path[data-edge]')).toHaveCount(2);

  await expect(page.getByTestId('step-counts-flaky')).toHaveText('retried 2×');
  await expect(page.getByTestId('step-counts-setup')).toHaveText('—');
  const flakyNode = page.locator('[data-testid="step-node"][data-step="flaky"]');
  // Its name is what it shows: the step, its state and how often it was retried.
  await expect(flakyNode).toHaveAccessibleName(/^flaky\s*succeeded\s*retried 2×/);
  await flakyNode.click();
  await expect(page.getByTestId('step-details-counts')).toHaveText('retried 2×');
  await expect(page.getByTestId('log-tail')).toContainText('third try');
  await screenshot(page, testInfo, 'real-run-order-and-retries');
});

test('skips with reasons, repeat counts, partial success and child runs linked both ways', async ({
  cluster,
  page,
}, testInfo) => {
  const parentId = 'parent-run-1';
  const childId = 'parent-run-1-child';
  const items = Array.from({ length: 1000 }, (_, i) => `item-${String(i).padStart(4, '0')}`);
  const parallelChildren = items.map((item, i) => ({
    dag_name: 'worker',
    run_id: `fan-${String(i).padStart(4, '0')}`,
    status: i % 100 === 99 ? ('failed' as const) : ('succeeded' as const),
    item,
  }));
  // The record holds the steps out of run order on purpose.
  const parent = seededRun({
    run_id: parentId,
    dag_name: 'pipeline',
    status: 'failed',
    error: 'step fan failed',
    steps: [
      seededStep('report', {
        status: 'aborted',
        started_at: null,
        finished_at: null,
        exit_code: null,
        depends: ['fan'],
        skip_reason: 'upstream failed',
      }),
      seededStep('fan', {
        status: 'partially_succeeded',
        depends: ['call-one'],
        sub_runs: parallelChildren,
      }),
      seededStep('check', {
        status: 'skipped',
        depends: ['prepare'],
        skip_reason: 'precondition not met: test -f /data/ready',
      }),
      seededStep('call-one', {
        depends: ['prepare'],
        sub_runs: [{ dag_name: 'child', run_id: childId, status: 'succeeded' }],
      }),
      seededStep('poll', { depends: ['prepare'], repeat_count: 5 }),
      seededStep('prepare', { depends: [], retry_count: 2 }),
    ],
  });
  const child = seededRun({
    run_id: childId,
    dag_name: 'child',
    trigger_type: 'subdag',
    parent: { dag_name: 'pipeline', run_id: parentId, step: 'call-one' },
    steps: [seededStep('hello')],
  });
  await seedRuns(cluster.home, [parent, child]);
  const server = await cluster.startServer();

  await page.goto(`${server.url}/runs/${parentId}`);
  await expect(page.getByTestId('run-status')).toHaveText('failed');
  // Run order: prepare, then the steps that waited only for it (in declaration order), then fan, then report.
  expect(await stepRowOrder(page)).toEqual(['prepare', 'check', 'call-one', 'poll', 'fan', 'report']);

  // A precondition skip and an upstream failure say why, in the table, in the graph node and its details.
  await expect(page.getByTestId('step-reason-check')).toHaveText(
    'skipped: precondition not met: test -f /data/ready',
  );
  await expect(page.getByTestId('step-reason-report')).toHaveText('not run: upstream failed');
  const checkNode = page.locator('[data-testid="step-node"][data-step="check"]');
  await expect(checkNode).toHaveAttribute('data-state', 'skipped');
  await expect(checkNode).toContainText('skipped');
  await expect(checkNode.getByTestId('step-node-detail')).toContainText('precondition not met');
  await expect(page.locator('[data-testid="step-node"][data-step="report"]')).toContainText(
    'upstream failed',
  );
  await checkNode.click();
  await expect(page.getByTestId('step-details')).toHaveAttribute('data-step', 'check');
  await expect(page.getByTestId('step-details-reason')).toHaveText(
    'skipped: precondition not met: test -f /data/ready',
  );

  // Retry and repeat counts.
  await expect(page.getByTestId('step-counts-prepare')).toHaveText('retried 2×');
  await expect(page.getByTestId('step-counts-poll')).toHaveText('repeated 5×');
  await expect(page.locator('[data-testid="step-node"][data-step="poll"]')).toContainText('repeated 5×');

  // Partially succeeded: named in text, styled apart from succeeded.
  const fanNode = page.locator('[data-testid="step-node"][data-step="fan"]');
  await expect(fanNode).toHaveAttribute('data-state', 'partially_succeeded');
  await expect(fanNode).toContainText('partially succeeded');
  await expect(page.getByTestId('step-status-fan')).toHaveText('partially_succeeded');
  const fanBorder = await fanNode.evaluate((el) => getComputedStyle(el).borderColor);
  const okBorder = await page
    .locator('[data-testid="step-node"][data-step="prepare"]')
    .evaluate((el) => getComputedStyle(el).borderColor);
  expect(fanBorder).not.toBe(okBorder);

  // The parallel step: a summary by state, and a list shown 50 at a time that filters by state and item.
  await expect(page.getByTestId('step-children-fan')).toContainText(
    '1000 child runs: 10 failed, 990 succeeded',
  );
  await page.getByRole('button', { name: 'List the child runs of fan' }).click();
  const details = page.getByTestId('step-details');
  await expect(details).toHaveAttribute('data-step', 'fan');
  await expect(details.getByTestId('sub-run-summary')).toHaveText(
    '1000 child runs: 10 failed, 990 succeeded',
  );
  await expect(details.getByTestId('sub-run')).toHaveCount(50);
  await expect(details.getByTestId('sub-run-shown')).toHaveText('Showing 50 of 1000');
  await details.getByRole('button', { name: 'Show 50 more' }).click();
  await expect(details.getByTestId('sub-run')).toHaveCount(100);
  await details.getByTestId('sub-run-state').selectOption('failed');
  await expect(details.getByTestId('sub-run')).toHaveCount(10);
  await details.getByTestId('sub-run-search').fill('item-0499');
  await expect(details.getByTestId('sub-run')).toHaveCount(1);
  await expect(details.getByTestId('sub-run')).toContainText('fan-0499');
  await expect(details.getByTestId('sub-run').getByRole('link')).toHaveAttribute('href', '/runs/fan-0499');
  // The page keeps answering while a thousand children are polled and filtered.
  const answered = await page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        const t0 = performance.now();
        requestAnimationFrame(() => resolve(performance.now() - t0));
      }),
  );
  expect(answered).toBeLessThan(1000);
  await screenshot(page, testInfo, 'parallel-children');

  // The call step links to its child run; the child links back to the parent run and step.
  await page
    .getByTestId('step-children-call-one')
    .getByRole('link', { name: new RegExp(childId) })
    .click();
  await expect(page).toHaveURL(new RegExp(`/runs/${childId}$`));
  await expect(page.getByTestId('parent-run')).toContainText(
    `started by step call-one of parent run pipeline ${parentId}`,
  );
  await page.getByTestId('parent-step-link').click();
  await expect(page).toHaveURL(new RegExp(`/runs/${parentId}\\?step=call-one$`));
  await expect(page.getByTestId('step-details')).toHaveAttribute('data-step', 'call-one');
  await expect(page.getByTestId('step-details').getByTestId('sub-run')).toHaveCount(1);
  await screenshot(page, testInfo, 'parent-step-from-child');
});

test('a real run of the new runner shows a precondition skip, a repeat count, child runs both ways and foreach items', async ({
  cluster,
  page,
}, testInfo) => {
  // Everything here is written by the runner itself: skip_reason, repeat_count, sub_runs and parent.
  await cluster.writeDag(
    'family',
    // A graph: the steps do not depend on each other (a skip would spread to a dependent).
    `steps:
  - name: check
    run: echo never
    preconditions:
      - condition: "\${DAG_NAME}"
        expected: other
  - name: poll
    run: echo polled
    repeat_policy:
      repeat: true
      limit: 3
      interval_sec: 0
  - name: call-one
    call: child
    params: "WHO=one"
  - name: fan
    call: child
    parallel:
      items: [a, b, c]
  - name: loop
    foreach:
      items: [{city: Oslo}, {city: Lima}]
      key: \${foreach.item.city}
      steps:
        - run: echo "visiting \${foreach.item.city}"
---
name: child
params:
  - WHO: nobody
steps:
  - run: echo "hello \${WHO}"
`,
  );
  const server = await cluster.startServer();
  const started = await apiPost<{ run_id: string }>(server, '/api/v1/dags/family/start', { params: [] });
  await page.goto(`${server.url}/runs/${started.run_id}`);
  await expect(page.getByTestId('run-status')).toHaveText('succeeded', { timeout: 60_000 });

  await expect(page.getByTestId('step-reason-check')).toContainText('skipped: precondition not met');
  await expect(page.getByTestId('step-counts-poll')).toHaveText('repeated 2×');
  await expect(page.getByTestId('step-children-fan')).toContainText('3 child runs: 3 succeeded');
  // A foreach step's items ran inside the run: counted in the table, listed by key in the step details.
  await expect(page.getByTestId('step-items-loop')).toContainText('2 items: 2 succeeded');
  await page.getByRole('button', { name: 'List the items of loop' }).click();
  await expect(page.getByTestId('step-details')).toHaveAttribute('data-step', 'loop');
  await expect(page.getByTestId('foreach-item')).toHaveText([/succeeded\s*Oslo/, /succeeded\s*Lima/]);

  await page.getByTestId('step-children-call-one').getByRole('link').first().click();
  await expect(page).toHaveURL(/\/runs\/[^?]+$/);
  await expect(page.getByTestId('run-status')).toHaveText('succeeded');
  await expect(page.getByTestId('parent-run')).toContainText(
    `started by step call-one of parent run family ${started.run_id}`,
  );
  await page.getByTestId('parent-step-link').click();
  await expect(page).toHaveURL(new RegExp(`/runs/${started.run_id}\\?step=call-one$`));
  await expect(page.getByTestId('step-details')).toHaveAttribute('data-step', 'call-one');
  await screenshot(page, testInfo, 'real-run-family');
});
