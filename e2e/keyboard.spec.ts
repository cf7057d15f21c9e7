// The console without a mouse, and in dark mode: the first Tab reaches "Skip to content", the navigation and
// a run's step graph work with the keyboard, and the dark theme really is dark.

import type { StartResult } from '../components/apiTypes';
import { HELLO_DAG, HELLO_DAG_NAME, HELLO_LINE } from './fixtures';
import { apiPost, expect, screenshot, test } from './clusterTest';

test('the skip link, the navigation and the step graph work with the keyboard', async ({
  cluster,
  page,
}, testInfo) => {
  await cluster.writeDag(HELLO_DAG_NAME, HELLO_DAG);
  const server = await cluster.startServer();
  const started = await apiPost<StartResult>(server, `/api/v1/dags/${HELLO_DAG_NAME}/start`, {});

  await page.goto(`${server.url}/`);
  await expect(page.getByTestId('active-instance')).toHaveText('none');
  await page.keyboard.press('Tab');
  const skip = page.getByRole('link', { name: 'Skip to content' });
  await expect(skip).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/#main$/);

  // Tab through the navigation to "Runs" and follow it with Enter.
  await page.goto(`${server.url}/`);
  const runsLink = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Runs' });
  for (let i = 0; i < 10 && !(await runsLink.evaluate((el) => el === document.activeElement)); i++) {
    await page.keyboard.press('Tab');
  }
  await expect(runsLink).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/runs$/);

  // A run's steps are buttons: focus one and press Enter to see its log.
  await page.goto(`${server.url}/runs/${started.run_id}`);
  await expect(page.getByTestId('run-status')).toHaveText('succeeded');
  const node = page.locator('[data-testid="step-node"][data-step="greet"]');
  await node.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('log-tail')).toContainText(HELLO_LINE);
  await screenshot(page, testInfo, 'keyboard-run');
});

test('dark mode renders light text on a dark page', async ({ cluster, browser }, testInfo) => {
  await cluster.writeDag(HELLO_DAG_NAME, HELLO_DAG);
  const server = await cluster.startServer();
  const context = await browser.newContext({ colorScheme: 'dark' });
  const page = await context.newPage();
  await page.goto(`${server.url}/dags`);
  await expect(page.getByTestId(`dag-row-${HELLO_DAG_NAME}`)).toBeVisible();
  // Relative luminance of the body's background and of a heading's text, from their computed colours.
  const [background, text, backgroundCss] = await page.evaluate(() => {
    const luminance = (css: string) => {
      const probe = document.createElement('canvas').getContext('2d')!;
      probe.fillStyle = css;
      probe.fillRect(0, 0, 1, 1);
      const [r, g, b] = probe.getImageData(0, 0, 1, 1).data;
      const lin = (c: number) => (c / 255 <= 0.03928 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
      return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
    };
    const heading = document.querySelector('h1') ?? document.body;
    const bodyBackground = getComputedStyle(document.body).backgroundColor;
    return [luminance(bodyBackground), luminance(getComputedStyle(heading).color), bodyBackground] as const;
  });
  // A transparent body would read as black here without being dark: the page must paint its own background.
  expect(backgroundCss).not.toBe('rgba(0, 0, 0, 0)');
  expect(background).toBeLessThan(0.05);
  // WCAG contrast ratio of the heading on the page: at least 4.5:1.
  expect((text + 0.05) / (background + 0.05)).toBeGreaterThan(4.5);
  await screenshot(page, testInfo, 'dark-mode');
  await context.close();
});
