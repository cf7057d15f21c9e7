// The Playwright side of e2e/cluster.ts: a `cluster` fixture that gives each test its own DAGU_HOME and
// processes and always stops them, printing their last lines when the test failed; plus small helpers for
// the REST API and screenshots.

import { test as base, type Page, type TestInfo } from '@playwright/test';
import path from 'node:path';
import { DaguCluster, type Server } from './cluster';

export const test = base.extend<{ cluster: DaguCluster }>({
  // eslint-disable-next-line no-empty-pattern -- Playwright reads the fixtures a fixture uses from this pattern
  cluster: async ({}, use, testInfo) => {
    const cluster = await DaguCluster.create(testInfo.outputPath('processes'));
    let left: number[];
    try {
      await use(cluster);
    } finally {
      const failed = testInfo.status !== testInfo.expectedStatus;
      if (failed) console.log(`\nprocess output of "${testInfo.title}":\n${cluster.tails()}\n`);
      left = await cluster.stop();
      if (failed) {
        for (const file of cluster.logFiles()) {
          await testInfo.attach(path.basename(file), { path: file, contentType: 'text/plain' });
        }
      }
    }
    // The harness's own promise: nothing it started (or that those processes started) keeps running.
    if (left.length > 0) {
      throw new Error(`e2e: processes of the test's DAGU_HOME outlived the cluster: ${left.join(', ')}`);
    }
  },
});

export { expect } from '@playwright/test';

/** How long one capture may take: a fraction of the test's 60 s, so that a second try still fits. */
const CAPTURE_TIMEOUT_MS = 15_000;

/**
 * Saves a full-page screenshot into the test's output directory and attaches it to the report. Now and then
 * headless Chromium never delivers a full-page capture of a page that answers (once in ~40 CI runs, on a
 * page polling a run with 1,000 child runs: the capture waited out the test's 60 s after "fonts loaded").
 * The picture is evidence, not a check, so a capture that does not come is tried once more at the
 * viewport's size, after the page has shown it still paints frames; the retry is reported, never silent,
 * and a page that stopped answering fails the test.
 */
export async function screenshot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const file = testInfo.outputPath(`${name}.png`);
  try {
    await page.screenshot({ path: file, fullPage: true, timeout: CAPTURE_TIMEOUT_MS });
  } catch (err) {
    const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
    const painted = await Promise.race([
      page.evaluate(() => new Promise<boolean>((resolve) => requestAnimationFrame(() => resolve(true)))),
      new Promise<false>((resolve) => setTimeout(() => resolve(false), 5_000)),
    ]);
    if (!painted)
      throw new Error(`screenshot ${name}: the page painted no frame within 5 s (${why})`, {
        cause: err,
      });
    const note = `screenshot ${name}: the full-page capture did not come (${why}); took the viewport instead`;
    console.warn(note);
    testInfo.annotations.push({ type: 'warning', description: note });
    await page.screenshot({ path: file, timeout: CAPTURE_TIMEOUT_MS });
  }
  await testInfo.attach(name, { path: file, contentType: 'image/png' });
}

/** GET of a JSON API path; throws with the body on a non-2xx answer. */
export async function apiGet<T>(server: Server, apiPath: string): Promise<T> {
  const res = await fetch(`${server.url}${apiPath}`, { signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  if (!res.ok) throw new Error(`GET ${apiPath}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

/** POST of a JSON body as the console sends it (same origin); throws with the body on a non-2xx answer. */
export async function apiPost<T>(server: Server, apiPath: string, body: unknown): Promise<T> {
  const res = await fetch(`${server.url}${apiPath}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: server.url },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`POST ${apiPath}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

/**
 * A DAG of one step `s` that only workers whose labels match `selector` may run. The step prints `line` and
 * leaves a file named after its run ID in `marksDir`: evidence that the run ran that does not depend on
 * status reports or log shipping.
 */
export function markingDag(selector: Record<string, string>, marksDir: string, line: string): string {
  const labels = Object.entries(selector)
    .map(([k, v]) => `  ${k}: ${v}\n`)
    .join('');
  const command = `mkdir -p ${marksDir} && touch ${marksDir}/$DAG_RUN_ID && echo "${line}"`;
  return `worker_selector:\n${labels}steps:\n  - name: s\n    command: ${command}\n`;
}
