// The REST API as served by `dagu server`: JSON answers, JSON errors, and the guards on mutations.

import { HELLO_DAG, HELLO_DAG_NAME } from './fixtures';
import { expect, test } from './clusterTest';

test('the API lists the DAG and answers unknown things with a JSON 404', async ({ cluster, request }) => {
  await cluster.writeDag(HELLO_DAG_NAME, HELLO_DAG);
  const { url } = await cluster.startServer();

  const dags = await request.get(`${url}/api/v1/dags`);
  expect(dags.status()).toBe(200);
  expect((await dags.json()).dags.map((d: { name: string }) => d.name)).toContain(HELLO_DAG_NAME);

  const run = await request.get(`${url}/api/v1/runs/no-such-run`);
  expect(run.status()).toBe(404);
  expect(await run.json()).toEqual({ error: { code: 'not_found', message: 'run no-such-run not found' } });

  const route = await request.get(`${url}/api/v1/no/such/route`);
  expect(route.status()).toBe(404);
  expect((await route.json()).error.code).toBe('not_found');
});

test('mutations refuse other origins, invalid fields and oversized bodies, and start nothing', async ({
  cluster,
  request,
}) => {
  await cluster.writeDag(HELLO_DAG_NAME, HELLO_DAG);
  const { url } = await cluster.startServer();
  const start = `${url}/api/v1/dags/${HELLO_DAG_NAME}/start`;
  const runCount = async () =>
    (await (await request.get(`${url}/api/v1/runs?dag=${HELLO_DAG_NAME}`)).json()).items.length;
  const before = await runCount();

  const crossOrigin = await request.post(start, { headers: { Origin: 'http://evil.example' }, data: {} });
  expect(crossOrigin.status()).toBe(403);

  const badField = await request.post(start, { headers: { Origin: url }, data: { params: [1] } });
  expect(badField.status()).toBe(400);
  expect((await badField.json()).error.message).toMatch(/^params\.0: /);

  const tooBig = await request.post(start, { data: { params: ['x'.repeat(70 * 1024)] } });
  expect(tooBig.status()).toBe(413);

  expect(await runCount()).toBe(before);
});
