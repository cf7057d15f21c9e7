// Playwright: the console in Debian's Chromium (/usr/bin/chromium; never a downloaded browser), against real
// `bin/dagu` processes. Each test starts its own cluster (schedulers, server, coordinator, workers) on a
// temporary DAGU_HOME through the `cluster` fixture of e2e/clusterTest.ts; process logs, screenshots and
// failure output land in test-results/.

import { defineConfig, devices } from '@playwright/test';

export default defineConfig({
  testDir: './e2e',
  outputDir: './test-results',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  workers: 1,
  forbidOnly: true,
  reporter: [['list']],
  use: {
    // Every test navigates to its own server's URL (ports are picked per test).
    trace: 'off',
  },
  projects: [
    {
      name: 'chromium',
      use: {
        ...devices['Desktop Chrome'],
        launchOptions: {
          executablePath: process.env.DAGU_E2E_CHROMIUM ?? '/usr/bin/chromium',
          args: [
            '--headless',
            '--no-sandbox',
            '--disable-gpu',
            '--disable-dev-shm-usage',
            '--disable-quic',
            '--no-first-run',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
          ],
        },
      },
    },
  ],
});
