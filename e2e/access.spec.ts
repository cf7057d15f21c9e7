// Access control as a user meets it: a server bound beyond loopback without auth warns on every page; a
// server with auth.token asks the console for the token, refuses the API without it, and still refuses a
// mutation from another origin that carries it.

import { HELLO_DAG, HELLO_DAG_NAME } from './fixtures';
import { expect, screenshot, test } from './clusterTest';

test('a server listening on every address without auth shows the banner and logs the warning', async ({
  cluster,
  page,
}, testInfo) => {
  await cluster.writeDag(HELLO_DAG_NAME, HELLO_DAG);
  const server = await cluster.startServer('server', { host: '0.0.0.0' });

  await page.goto(`${server.url}/`);
  const banner = page.getByTestId('security-banner');
  await expect(banner).toBeVisible();
  await expect(banner).toContainText('without authentication');
  await page.goto(`${server.url}/queue`);
  await expect(page.getByTestId('security-banner')).toBeVisible();
  await screenshot(page, testInfo, 'exposed-banner');
  await expect.poll(() => server.tail(200)).toContain('listen on 0.0.0.0:');
  expect(server.tail(200)).toContain('without authentication: anyone who can reach this address');
});

test('with auth.token the console asks for the token and the API refuses requests without it', async ({
  cluster,
  page,
  request,
}, testInfo) => {
  const token = `e2e-token-${Date.now()}`;
  await cluster.writeDag(HELLO_DAG_NAME, HELLO_DAG);
  const server = await cluster.startServer('server', { env: { DAGU_AUTH_TOKEN: token } });
  const { url } = server;

  // The API: no token, a wrong one, the right one.
  const anonymous = await request.get(`${url}/api/v1/dags`);
  expect(anonymous.status()).toBe(401);
  expect((await anonymous.json()).error.code).toBe('unauthorized');
  const wrong = await request.get(`${url}/api/v1/dags`, { headers: { Authorization: 'Bearer nope' } });
  expect(wrong.status()).toBe(401);
  const bearer = { Authorization: `Bearer ${token}` };
  expect((await request.get(`${url}/api/v1/dags`, { headers: bearer })).status()).toBe(200);
  expect((await request.get(`${url}/metrics`)).status()).toBe(401);
  expect((await request.get(`${url}/metrics`, { headers: bearer })).status()).toBe(200);

  // A page of another origin holding the token still cannot start anything.
  const start = `${url}/api/v1/dags/${HELLO_DAG_NAME}/start`;
  const crossOrigin = await request.post(start, {
    headers: { ...bearer, Origin: 'http://evil.example' },
    data: {},
  });
  expect(crossOrigin.status()).toBe(403);
  const runs = await request.get(`${url}/api/v1/runs?dag=${HELLO_DAG_NAME}`, { headers: bearer });
  expect((await runs.json()).items).toHaveLength(0);

  // The console: a sign-in form; a wrong token is refused, the right one opens the overview.
  await page.goto(`${url}/`);
  const field = page.getByLabel('Access token');
  await expect(field).toBeVisible();
  await expect(page.getByTestId('security-banner')).toHaveCount(0);
  await field.fill('not-the-token');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText('The server did not accept this token.')).toBeVisible();
  await field.fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('active-instance')).toHaveText('none');
  await page.goto(`${url}/dags`);
  await expect(page.getByRole('link', { name: HELLO_DAG_NAME }).first()).toBeVisible();
  await screenshot(page, testInfo, 'signed-in');
});

test('with auth.basic every page and the API need the password, which the browser then sends', async ({
  cluster,
  browser,
  request,
}, testInfo) => {
  await cluster.writeDag(HELLO_DAG_NAME, HELLO_DAG);
  const server = await cluster.startServer('server', {
    env: { DAGU_AUTH_BASIC_USERNAME: 'ops', DAGU_AUTH_BASIC_PASSWORD: 'e2e-secret' },
  });
  const page = await request.get(`${server.url}/queue`);
  expect(page.status()).toBe(401);
  expect(page.headers()['www-authenticate']).toContain('Basic');
  expect((await request.get(`${server.url}/api/v1/overview`)).status()).toBe(401);
  expect((await request.get(`${server.url}/livez`)).status()).toBe(200);

  const wrong = await browser.newContext({ httpCredentials: { username: 'ops', password: 'wrong' } });
  expect((await wrong.request.get(`${server.url}/api/v1/overview`)).status()).toBe(401);
  await wrong.close();

  const context = await browser.newContext({ httpCredentials: { username: 'ops', password: 'e2e-secret' } });
  const signedIn = await context.newPage();
  await signedIn.goto(`${server.url}/`);
  await expect(signedIn.getByTestId('active-instance')).toHaveText('none');
  await signedIn.goto(`${server.url}/dags`);
  await expect(signedIn.getByRole('link', { name: HELLO_DAG_NAME }).first()).toBeVisible();
  await screenshot(signedIn, testInfo, 'basic-auth');
  await context.close();
});
