import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { API_ROUTES } from './apiRoutes';
import type { Services } from './services';
import { generateApiSchema, SCHEMA_FILE, SPEC_FILE } from '../../scripts/gen-api-types.mjs';
import { testRunStatus } from '../testing/testRunStatus';
import { BUILD_DECISIONS, BUILD_PHASES, BUILD_REASONS, type StepBuildStatus } from '../core/build/types';
import { T0, testServices, type TestServices } from './testServices';

const ROOT = path.resolve(import.meta.dirname, '../..');

// ---- The OpenAPI file, and its schemas as zod validators ----

type JsonSchema = { [key: string]: unknown };
interface Operation {
  responses: Record<string, { $ref?: string; content?: Record<string, { schema: JsonSchema }> }>;
}
interface Spec {
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
  };
}

const spec = parse(readFileSync(path.join(ROOT, SPEC_FILE), 'utf8')) as Spec;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/**
 * zod's fromJSONSchema reads JSON Schema 2020-12, which OpenAPI 3.1 schemas are, but resolves `$ref`s only
 * into `$defs`: the component schemas are handed over as `$defs` and the refs pointed there.
 */
function retarget(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(retarget);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      k === '$ref' && typeof v === 'string' ? v.replace('#/components/schemas/', '#/$defs/') : retarget(v),
    ]),
  );
}

const defs = retarget(spec.components.schemas) as Record<string, JsonSchema>;

function validatorFor(schema: JsonSchema): z.ZodType {
  return z.fromJSONSchema(
    { $schema: 'https://json-schema.org/draft/2020-12/schema', $defs: defs, ...(retarget(schema) as object) },
    { registry: z.registry() },
  );
}

const named = (name: string) => validatorFor({ $ref: `#/components/schemas/${name}` });

/** Problems of `value` against `validator`, one line each ("steps.0.status: Invalid option ..."). */
function problems(validator: z.ZodType, value: unknown): string[] {
  const result = validator.safeParse(value);
  if (result.success) return [];
  return result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
}

/** The JSON schema the file gives for this answer; fails the test when the status is not documented. */
function documentedSchema(method: string, template: string, status: number): JsonSchema {
  const op = spec.paths[template]?.[method.toLowerCase()];
  if (!op) throw new Error(`${method} ${template} is not in ${SPEC_FILE}`);
  let response = op.responses[String(status)];
  if (!response) throw new Error(`${method} ${template} does not document status ${status}`);
  if (response.$ref) response = spec.components.responses[response.$ref.split('/').pop()!];
  const schema = response.content?.['application/json']?.schema;
  if (!schema) throw new Error(`${method} ${template} ${status} has no JSON schema`);
  return schema;
}

// ---- Calling the real route handlers ----

const toTemplate = (routePath: string) => routePath.replace(/:(\w+)/g, '{$1}');

interface Answer {
  status: number;
  body: unknown;
  /** The OpenAPI path it was served under, e.g. `/api/v1/runs/{id}`. */
  template: string;
}

/** The services the handlers answer with (set by the tests that call them). */
let current: Services | null = null;

async function call(
  method: 'GET' | 'POST',
  url: string,
  init: { body?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const u = new URL(url, 'http://127.0.0.1:8080');
  for (const route of API_ROUTES) {
    const names: string[] = [];
    const source = route.path.replace(/:(\w+)/g, (_m, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
    const m = new RegExp(`^${source}$`).exec(u.pathname);
    if (!m) continue;
    const handler = route.handlers[method];
    if (!handler) throw new Error(`no ${method} handler for ${route.path}`);
    const params = Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1])]));
    const res = await handler(current!, new Request(u, { method, ...init }), params);
    return { status: res.status, body: await res.json(), template: toTemplate(route.path) };
  }
  throw new Error(`no route for ${url}`);
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  call('POST', url, {
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers },
  });

/** Asserts the answer has the expected status and that the OpenAPI file allows its body for that status. */
function expectDocumented(answer: Answer, method: 'GET' | 'POST', status: number): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  const schema = documentedSchema(method, answer.template, status);
  expect(problems(validatorFor(schema), answer.body)).toEqual([]);
}

// ---- The tests ----

describe('the OpenAPI file', () => {
  it('is what components/apiSchema.ts was generated from (run `npm run gen:api` after editing it)', async () => {
    const checkedIn = readFileSync(path.join(ROOT, SCHEMA_FILE), 'utf8');
    expect(checkedIn, `${SCHEMA_FILE} is stale: run \`npm run gen:api\``).toBe(await generateApiSchema(ROOT));
  }, 30_000);

  it('describes exactly the routes of the route table under /api/v1', () => {
    const documented = Object.entries(spec.paths)
      .filter(([p]) => p.startsWith('/api/v1/'))
      .flatMap(([p, item]) => METHODS.filter((m) => m in item).map((m) => `${m.toUpperCase()} ${p}`));
    const served = API_ROUTES.flatMap((r) =>
      Object.keys(r.handlers).map((m) => `${m} ${toTemplate(r.path)}`),
    );
    expect(documented.sort()).toEqual(served.sort());
  });

  it('documents /metrics and /livez beside the API', () => {
    expect(Object.keys(spec.paths['/metrics'])).toContain('get');
    expect(Object.keys(spec.paths['/livez'])).toContain('get');
  });

  it('resolves every $ref to a component that exists', () => {
    const refs = JSON.stringify(spec).match(/"\$ref":"[^"]+"/g) ?? [];
    const missing = refs
      .map((r) => r.slice('"$ref":"'.length, -1))
      .filter((ref) => {
        const [, , kind, name] = ref.split('/');
        return !(spec.components as Record<string, Record<string, unknown> | undefined>)[kind]?.[name];
      });
    expect(missing).toEqual([]);
  });
});

describe('validating against the OpenAPI schemas', () => {
  const sample = {
    dag_name: 'etl',
    run_id: 'r1',
    attempt: 1,
    status: 'succeeded',
    trigger_type: 'manual',
    schedule_time: null,
    queue: 'etl',
    created_at: '2026-11-30T01:14:30Z',
    queued_at: null,
    started_at: '2026-11-30T01:14:31Z',
    finished_at: '2026-11-30T01:14:32Z',
    error: null,
  };
  const runSummary = named('RunSummary');

  it('accepts an answer of the documented shape', () => {
    expect(problems(runSummary, sample)).toEqual([]);
    expect(problems(runSummary, { ...sample, status: 'corrupt', trigger_type: null })).toEqual([]);
  });

  it('refuses a field the file does not declare', () => {
    expect(problems(runSummary, { ...sample, surprise: 1 }).join()).toMatch(/surprise/);
  });

  it('refuses a missing required field, a wrong type, an unknown state and null where none is allowed', () => {
    const { error: _error, ...withoutError } = sample;
    expect(problems(runSummary, withoutError)).toEqual([expect.stringMatching(/^error:/)]);
    expect(problems(runSummary, { ...sample, attempt: '1' })).toEqual([expect.stringMatching(/^attempt:/)]);
    expect(problems(runSummary, { ...sample, status: 'exploded' })).not.toEqual([]);
    expect(problems(runSummary, { ...sample, dag_name: null })).toEqual([
      expect.stringMatching(/^dag_name:/),
    ]);
    expect(problems(runSummary, { ...sample, created_at: 7 })).toEqual([
      expect.stringMatching(/^created_at:/),
    ]);
  });

  it('checks nested references, maps of labels and date-times', () => {
    const worker = named('WorkerListing');
    const good = {
      stale_threshold_ms: 30_000,
      workers: [
        {
          worker_id: 'w1',
          labels: { zone: 'b' },
          max_active_runs: 2,
          host: 'w1.example',
          state: 'healthy',
          health: 'healthy',
          registered_at: '2026-11-30T01:00:00Z',
          last_heartbeat_at: '2026-11-30T01:14:29.5Z',
          heartbeat_age_ms: 500,
          running: [{ run_id: 'r1', attempt: 1, dag_name: null, status: null }],
        },
      ],
    };
    expect(problems(worker, good)).toEqual([]);
    const bad = structuredClone(good);
    Object.assign(bad.workers[0], { labels: { zone: 2 }, last_heartbeat_at: 'yesterday' });
    bad.workers[0].running[0].status = 'lost' as never;
    expect(problems(worker, bad).map((p) => p.split(':')[0])).toEqual([
      'workers.0.labels.zone',
      'workers.0.last_heartbeat_at',
      'workers.0.running.0.status',
    ]);
  });
});

describe('answers of the real handlers', () => {
  let svc: TestServices;
  const useServices = (next: TestServices) => {
    svc = next;
    current = svc;
  };
  beforeEach(() => useServices(testServices()));
  afterEach(() => {
    current = null;
    svc.cleanup();
  });

  const HELLO = [
    'description: says hello',
    'tags: [demo]',
    'schedule: "*/5 * * * *"',
    'retry_policy: {limit: 2, interval_sec: 30}',
    'handler_on:',
    '  failure:',
    '    command: echo failed',
    'steps:',
    '  - name: greet',
    '    command: echo hello',
    '    output: GREETING',
    '  - name: bye',
    '    script: echo bye',
    '    depends: [greet]',
    '',
  ].join('\n');
  /** A DAG that runs on workers with `zone: b`: starting it hands it to the dispatcher (no local process). */
  const ZONED = 'worker_selector:\n  zone: b\nsteps:\n  - name: a\n    command: echo a\n';

  async function enqueueHello(): Promise<string> {
    const answer = await post('/api/v1/dags/hello/enqueue', { params: ['A=1'] });
    expectDocumented(answer, 'POST', 200);
    return (answer.body as { run_id: string }).run_id;
  }

  async function registerWorker(running: Array<{ run_id: string; attempt: number }> = []): Promise<void> {
    await svc.workers.put({
      worker_id: 'w1',
      labels: { zone: 'b' },
      max_active_runs: 2,
      running,
      host: 'w1.example',
      pid: 4242,
      registered_at_ms: T0 - 60_000,
      last_heartbeat_ms: T0 - 1_000,
    });
  }

  it('DAG list and DAG detail, including a DAG file with errors', async () => {
    svc.writeDag('hello', HELLO);
    svc.writeDag('broken', 'steps:\n  - name: a\n');
    await enqueueHello();
    expectDocumented(await call('GET', '/api/v1/dags'), 'GET', 200);
    expectDocumented(await call('GET', '/api/v1/dags/hello'), 'GET', 200);
    expectDocumented(await call('GET', '/api/v1/dags/broken'), 'GET', 200);
    expectDocumented(await call('GET', '/api/v1/dags/missing'), 'GET', 404);
    expectDocumented(await call('GET', '/api/v1/dags/hello/history'), 'GET', 200);
    expectDocumented(await call('GET', '/api/v1/dags/hello/history?limit=0'), 'GET', 400);
    expectDocumented(await call('GET', '/api/v1/dags/missing/history'), 'GET', 404);
  });

  it('DAG detail of a DAG with a human task and a wait handler', async () => {
    svc.writeDag(
      'gate',
      'handler_on:\n  wait:\n    run: echo waiting\nsteps:\n  - id: review\n    action: human.task\n    with:\n      prompt: Go?\n      form: { type: object, properties: { n: { type: integer } } }\n',
    );
    expectDocumented(await call('GET', '/api/v1/dags/gate'), 'GET', 200);
  });

  it('DAG detail of a DAG with artifacts, stream artifacts and an artifact action', async () => {
    svc.writeDag(
      'arts',
      [
        'artifacts: {enabled: true, dir: /srv/arts}',
        'steps:',
        '  - id: w',
        '    action: artifact.write',
        '    with: {path: a.md, content: x}',
        '  - id: s',
        '    run: echo',
        '    stdout: {artifact: out.txt}',
        '    stderr: {artifact: err.txt}',
        '',
      ].join('\n'),
    );
    expectDocumented(await call('GET', '/api/v1/dags/arts'), 'GET', 200);
  });

  it('the artifacts of a run: the list, a download and a hostile path', async () => {
    await svc.runs.createRun(testRunStatus({ run_id: 'r-arts', dag_name: 'arts', status: 'succeeded' }));
    await svc.artifacts.put('r-arts', 'a.md', new TextEncoder().encode('x'));
    expectDocumented(await call('GET', '/api/v1/runs/r-arts/artifacts'), 'GET', 200);
    expectDocumented(await call('GET', '/api/v1/runs/r-arts/artifacts/download?path=..%2Fx'), 'GET', 400);
    expectDocumented(await call('GET', '/api/v1/runs/r-arts/artifacts/download?path=nope'), 'GET', 404);
  });

  it('a human task completion and its refusal', async () => {
    svc.writeDag('gate', 'steps:\n  - id: review\n    action: human.task\n    with: { prompt: Go? }\n');
    const waiting = testRunStatus({ run_id: 'r-wait', dag_name: 'gate', status: 'waiting' });
    waiting.steps = [
      {
        name: 'review',
        status: 'waiting',
        started_at: null,
        finished_at: null,
        exit_code: null,
        error: null,
        retry_count: 0,
        stdout: null,
        stderr: null,
        output: null,
        human_task: { id: 'review', prompt: 'Go?', form: null, max_size: 1024 },
      },
    ];
    await svc.runs.createRun(waiting);
    svc.startProcess = async () => 1;
    const post = (body: unknown) =>
      call('POST', '/api/v1/runs/r-wait/human-tasks/review/complete', {
        body: JSON.stringify(body),
        headers: { 'Content-Type': 'application/json' },
      });
    expectDocumented(await post({ inputs: { x: 1 } }), 'POST', 400);
    expectDocumented(await post({}), 'POST', 200);
    expectDocumented(await call('GET', '/api/v1/runs/r-wait'), 'GET', 200);
  });

  it('DAG detail of a build DAG, with its inputs and path outputs', async () => {
    svc.writeDag(
      'make',
      [
        'type: build',
        'working_dir: /srv/make',
        'steps:',
        '  - id: compile',
        '    inputs: [{name: source, path: app.c}]',
        '    outputs: [{name: binary, path: app.bin}]',
        '    run: cc "${inputs.source}" -o "${outputs.binary}"',
        '',
      ].join('\n'),
    );
    const answer = await call('GET', '/api/v1/dags/make');
    expectDocumented(answer, 'GET', 200);
    expect(answer.body).toMatchObject({
      errors: [],
      dag: {
        type: 'build',
        steps: [
          { inputs: [{ name: 'source', path: 'app.c' }], outputs: [{ name: 'binary', path: 'app.bin' }] },
        ],
      },
    });
  });

  it('DAG detail of a DAG with a step approval', async () => {
    svc.writeDag(
      'gated',
      'steps:\n  - name: build\n    run: make\n  - name: review\n    run: "true"\n    depends: [build]\n    approval: { prompt: Ship?, input: [T], required: [T], rewind_to: build }\n',
    );
    expectDocumented(await call('GET', '/api/v1/dags/gated'), 'GET', 200);
  });

  it('step approvals: approve refused, push back, reject', async () => {
    svc.writeDag(
      'gated',
      'steps:\n  - name: build\n    run: make\n  - name: review\n    run: "true"\n    depends: [build]\n    approval: { input: [T], required: [T], rewind_to: build }\n',
    );
    const step = (name: string, status: 'succeeded' | 'waiting') => ({
      name,
      status,
      started_at: null,
      finished_at: null,
      exit_code: null,
      error: null,
      retry_count: 0,
      stdout: `gated/r-gate/1/${name}.out`,
      stderr: null,
      output: null,
    });
    const waiting = testRunStatus({ run_id: 'r-gate', dag_name: 'gated', status: 'waiting' });
    waiting.steps = [
      step('build', 'succeeded'),
      {
        ...step('review', 'waiting'),
        depends: ['build'],
        approval: { prompt: '', input: ['T'], required: ['T'], rewind_to: 'build' },
      },
    ];
    await svc.runs.createRun(waiting);
    svc.startProcess = async () => 1;
    const post = (answer: string, body: unknown) =>
      call('POST', `/api/v1/runs/r-gate/approvals/review/${answer}`, {
        body: JSON.stringify(body),
        headers: { 'Content-Type': 'application/json' },
      });
    expectDocumented(await post('approve', {}), 'POST', 400);
    expectDocumented(await post('push-back', { inputs: { T: 'x' } }), 'POST', 200);
    expectDocumented(await call('GET', '/api/v1/runs/r-gate'), 'GET', 200);
    expectDocumented(await post('reject', { reason: 'no' }), 'POST', 409);
  });

  it('runs: the list, one run, a step log, a dequeue and a stop refused', async () => {
    svc.writeDag('hello', HELLO);
    const runId = await enqueueHello();
    const run = (await call('GET', `/api/v1/runs/${runId}`)).body as {
      steps: Array<{ stdout: string | null }>;
    };
    run.steps[0].stdout = svc.writeLog(`hello/${runId}/1/greet.out`, 'hello\n');
    await svc.runs.writeStatus(run as never);

    expectDocumented(await call('GET', '/api/v1/runs?limit=5'), 'GET', 200);
    // The route passes `labels` on: the run has none, so `!team` keeps it and `team` does not.
    const byLabels = async (labels: string) => {
      const res = await call('GET', `/api/v1/runs?labels=${encodeURIComponent(labels)}`);
      expectDocumented(res, 'GET', 200);
      return (res.body as { items: Array<{ run_id: string }> }).items.map((r) => r.run_id);
    };
    expect(await byLabels('!team')).toEqual([runId]);
    expect(await byLabels('team=data')).toEqual([]);
    expectDocumented(await call('GET', `/api/v1/runs?labels=${'a'.repeat(1025)}`), 'GET', 400);
    expectDocumented(await call('GET', `/api/v1/runs/${runId}`), 'GET', 200);
    expectDocumented(await call('GET', `/api/v1/runs/${runId}/logs/greet?tail=3`), 'GET', 200);
    expectDocumented(await call('GET', `/api/v1/runs/${runId}/logs/bye?stream=stderr`), 'GET', 200);
    expectDocumented(await call('GET', `/api/v1/run-timings?ids=${runId},missing`), 'GET', 200);
    expectDocumented(await call('GET', '/api/v1/run-timings?ids='), 'GET', 400);
    expectDocumented(await call('POST', `/api/v1/runs/${runId}/dequeue`), 'POST', 200);
    expectDocumented(await call('POST', `/api/v1/runs/${runId}/stop`), 'POST', 409);
  });

  it('start on the workers, and retry of a finished run (202) or of an unfinished one (409)', async () => {
    svc.writeDag('zoned', ZONED);
    await registerWorker();
    const started = await post('/api/v1/dags/zoned/start', {});
    expectDocumented(started, 'POST', 200);
    expect(started.body).toMatchObject({ outcome: 'dispatched' });
    const runId = (started.body as { run_id: string }).run_id;
    expectDocumented(await call('POST', `/api/v1/runs/${runId}/retry`), 'POST', 409);

    await svc.runs.createRun(
      testRunStatus({
        run_id: 'done-1',
        dag_name: 'zoned',
        status: 'failed',
        finished_at: '2026-11-30T01:00:00Z',
      }),
    );
    const retried = await call('POST', '/api/v1/runs/done-1/retry');
    expectDocumented(retried, 'POST', 202);
    expect(retried.body).toMatchObject({ run_id: 'done-1', attempt: 2 });
  });

  it('the queue with queued, dispatched and held runs, its filters, and a cancel', async () => {
    svc.writeDag('hello', HELLO);
    svc.writeDag('zoned', ZONED);
    const queuedId = await enqueueHello();
    await registerWorker([
      { run_id: queuedId, attempt: 1 },
      { run_id: 'gone', attempt: 3 },
    ]);
    expectDocumented(await post('/api/v1/dags/zoned/start', {}), 'POST', 200);
    // A held run: a task no worker matches, with a hold, and the run's record saying why it waits.
    const dag = ((await call('GET', '/api/v1/dags/zoned')).body as { dag: never }).dag;
    const reason = { type: 'WorkerReady', status: 'False', reason: 'NoMatchingWorker' } as const;
    await svc.runs.createRun(
      testRunStatus({
        run_id: 'held-1',
        dag_name: 'zoned',
        queued_at: '2026-11-30T01:14:00Z',
        worker_selector: { zone: 'c' },
        conditions: [{ ...reason, message: 'no worker has zone: c', checked_at: '2026-11-30T01:14:20Z' }],
      }),
    );
    await svc.tasks.enqueue({
      run_id: 'held-1',
      dag_name: 'zoned',
      attempt: 1,
      operation: 'start',
      trigger_type: 'manual',
      worker_selector: { zone: 'c' },
      dag,
      params: [],
      schedule_time: null,
      previous: null,
      parent: null,
      enqueued_at_ms: T0 - 30_000,
      hold_until_ms: T0 + 60_000,
      wait_ms: 90_000,
    });

    const queue = await call('GET', '/api/v1/queue');
    expectDocumented(queue, 'GET', 200);
    const kinds = (queue.body as { items: Array<{ kind: string }> }).items.map((i) => i.kind);
    expect(kinds.sort()).toEqual(['dispatched', 'held', 'queued']);
    expectDocumented(await call('GET', '/api/v1/queue?reason=NoMatchingWorker&limit=1'), 'GET', 200);
    expectDocumented(await call('GET', '/api/v1/queue?limit=none'), 'GET', 400);
    expectDocumented(await call('GET', '/api/v1/workers'), 'GET', 200);

    const cancelled = await post('/api/v1/queue/cancel', { run_ids: [queuedId, 'held-1', 'no-such-run'] });
    expectDocumented(cancelled, 'POST', 200);
    expect((cancelled.body as { results: Array<{ ok: boolean }> }).results.map((r) => r.ok)).toEqual([
      true,
      true,
      false,
    ]);
    expectDocumented(await post('/api/v1/queue/cancel', { run_ids: [] }), 'POST', 400);
  });

  it('the overview with an active and a standby instance and a failover', async () => {
    svc.writeDag('hello', HELLO);
    await enqueueHello();
    await registerWorker();
    const instance = (id: string, role: 'active' | 'standby') => ({
      version: 1 as const,
      id,
      host: `${id}.example`,
      pid: 100,
      role,
      since: '2026-11-30T01:10:00Z',
      port: 0,
      lock_holder: 'sched-b',
      last_renewal_seen: '2026-11-30T01:14:28Z',
      updated_at: '2026-11-30T01:14:29Z',
    });
    await svc.instances.publish(instance('sched-a', 'standby'));
    await svc.instances.publish(instance('sched-b', 'active'));
    await svc.events.append('scheduler.lock.acquired', {
      instance: 'sched-a',
      host: 'sched-a.example',
      epoch: 1,
    });
    await svc.events.append('scheduler.lock.acquired', {
      instance: 'sched-b',
      host: 'sched-b.example',
      previous_instance: 'sched-a',
      previous_host: 'sched-a.example',
      gap_ms: 21_500,
      observed_gap_ms: 21_480,
      epoch: 2,
    });
    const overview = await call('GET', '/api/v1/overview');
    expectDocumented(overview, 'GET', 200);
    expect(overview.body).toMatchObject({
      active_instance: 'sched-b',
      failovers: [{ from_instance: 'sched-a' }, {}],
    });
  });

  it('events and health', async () => {
    svc.writeDag('hello', HELLO);
    await enqueueHello();
    expectDocumented(await call('GET', '/api/v1/events?limit=10'), 'GET', 200);
    expectDocumented(await call('GET', '/api/v1/health'), 'GET', 200);
  });

  it('the session and the 401 of a server with auth.token', async () => {
    expectDocumented(await call('GET', '/api/v1/session'), 'GET', 200);
    expectDocumented(await post('/api/v1/session', { token: 'anything' }), 'POST', 409);
    svc.cleanup();
    useServices(testServices((c) => ({ ...c, auth: { mode: 'token', token: 's3cret' } })));

    expectDocumented(await call('GET', '/api/v1/runs'), 'GET', 401);
    expectDocumented(
      await call('GET', '/api/v1/runs', { headers: { authorization: 'Bearer s3cret' } }),
      'GET',
      200,
    );
    expectDocumented(await call('GET', '/api/v1/health'), 'GET', 200);
    expectDocumented(await post('/api/v1/session', { token: 'wrong' }), 'POST', 401);
    expectDocumented(await post('/api/v1/session', { token: 's3cret' }), 'POST', 200);
    expectDocumented(
      await call('GET', '/api/v1/session', { headers: { cookie: 'dagu_token=s3cret' } }),
      'GET',
      200,
    );
    expectDocumented(await call('POST', '/api/v1/session/logout'), 'POST', 200);
    expectDocumented(
      await call('POST', '/api/v1/session/logout', { headers: { origin: 'https://elsewhere.example' } }),
      'POST',
      403,
    );
  });

  it("a start and an enqueue that disable reuse, and a run of a build DAG with its steps' decisions", async () => {
    svc.writeDag('hello', HELLO);
    const queued = await post('/api/v1/dags/hello/enqueue', { no_reuse: true });
    expectDocumented(queued, 'POST', 200);
    expect(queued.body).toMatchObject({ no_reuse: true });
    // The run process records the run: here, at once, with no_reuse when it was asked for --no-reuse.
    svc.startProcess = async (args) => {
      const runId = args[args.indexOf('--run-id') + 1];
      const noReuse = args.includes('--no-reuse') ? { no_reuse: true as const } : {};
      await svc.runs.createRun(
        testRunStatus({ run_id: runId, dag_name: 'hello', status: 'running', ...noReuse }),
      );
      return 4242;
    };
    const started = await post('/api/v1/dags/hello/start', { no_reuse: true });
    expectDocumented(started, 'POST', 200);
    expect(started.body).toMatchObject({ status: { no_reuse: true } });
    expectDocumented(await post('/api/v1/dags/hello/start', { no_reuse: 'yes' }), 'POST', 400);

    const step = (name: string, build: StepBuildStatus) => ({
      name,
      status: 'succeeded' as const,
      started_at: '2026-11-30T01:14:31Z',
      finished_at: '2026-11-30T01:14:32Z',
      exit_code: 0,
      error: null,
      retry_count: 0,
      stdout: null,
      stderr: null,
      output: null,
      build,
    });
    const run = testRunStatus({ run_id: 'r-build', dag_name: 'make', status: 'succeeded', no_reuse: true });
    run.steps = [
      step('compile', {
        decision: 'reuse',
        phase: 'complete',
        reason: 'matched',
        fingerprint: 'sha256:ab',
        materialization_key: 'make/compile/srv/app.bin',
        producer_run: { dag_name: 'make', run_id: 'r-before' },
        producer_attempt: 1,
      }),
      step('package', { decision: 'execute', phase: 'complete', reason: 'input_changed', detail: 'binary' }),
      step('notify', {
        decision: 'always',
        phase: 'complete',
        reason: 'ineligible',
        detail: 'no path output',
      }),
    ];
    await svc.runs.createRun(run);
    const served = await call('GET', '/api/v1/runs/r-build');
    expectDocumented(served, 'GET', 200);
    expect(served.body).toMatchObject({
      no_reuse: true,
      steps: [
        { build: { decision: 'reuse', producer_run: { run_id: 'r-before' }, producer_attempt: 1 } },
        { build: { decision: 'execute', reason: 'input_changed', detail: 'binary' } },
        { build: { decision: 'always' } },
      ],
    });
  });

  it("lists exactly core/build/types.ts's decisions, phases and reasons", () => {
    const props = (
      spec.components.schemas.StepBuildStatus as { properties: Record<string, { enum: string[] }> }
    ).properties;
    expect(props.decision.enum).toEqual([...BUILD_DECISIONS]);
    expect(props.phase.enum).toEqual([...BUILD_PHASES]);
    expect(props.reason.enum).toEqual([...BUILD_REASONS]);
  });

  it('error answers: bad input, a wrong state, another origin, a body too large', async () => {
    svc.writeDag('hello', HELLO);
    const runId = await enqueueHello();
    expectDocumented(await call('GET', '/api/v1/runs?limit=0'), 'GET', 400);
    expectDocumented(await call('GET', '/api/v1/runs/no-such-run'), 'GET', 404);
    expectDocumented(await call('GET', '/api/v1/events?follow=maybe'), 'GET', 400);
    expectDocumented(await post('/api/v1/dags/hello/start', { params: [1] }), 'POST', 400);
    expectDocumented(await post('/api/v1/dags/hello/enqueue', { run_id: runId }), 'POST', 409);
    expectDocumented(
      await post('/api/v1/dags/hello/enqueue', {}, { origin: 'https://elsewhere.example' }),
      'POST',
      403,
    );
    expectDocumented(await post('/api/v1/dags/hello/enqueue', { params: ['x'.repeat(70_000)] }), 'POST', 413);
  });
});
