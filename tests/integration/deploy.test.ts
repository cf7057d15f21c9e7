// The deployment files as CI checks them (issue 6): the Helm chart through `helm lint` and `helm template`
// with the default values and with overrides, its rendered pods started as real `bin/dagu` processes, the
// systemd units against the CLI's own help, and the Prometheus rules against the metrics the server registers.

import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { loadConfig } from '../../server/config/loadConfig';
import { SETTINGS } from '../../server/config/settings';
import { createMetrics } from '../../server/metrics/metrics';
import {
  DAGU,
  dagu,
  eventually,
  freePort,
  ROOT,
  startService,
  tempHome,
  type Service,
  type TempHome,
} from './harness';

const HELM = path.join(ROOT, 'node_modules', '.bin', 'helm');
const CHART = path.join(ROOT, 'deploy', 'helm', 'dagu');
const SYSTEMD = path.join(ROOT, 'deploy', 'systemd');
const PROMETHEUS = path.join(ROOT, 'deploy', 'prometheus');
const RELEASE = 'ci';

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface Probe {
  httpGet?: { path: string; port: string | number; scheme?: string };
}
interface Container {
  name: string;
  args?: string[];
  command?: string[];
  env?: EnvVar[];
  ports?: Array<{ name: string; containerPort: number }>;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  volumeMounts?: Array<{ name: string; mountPath: string; readOnly?: boolean }>;
}
interface Volume {
  name: string;
  persistentVolumeClaim?: { claimName: string };
  configMap?: { name: string };
  secret?: { secretName: string; items?: Array<{ key: string; path: string }> };
  emptyDir?: object;
}
interface PodSpec {
  containers: Container[];
  volumes?: Volume[];
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number; runAsGroup?: number; fsGroup?: number };
  automountServiceAccountToken?: boolean;
  terminationGracePeriodSeconds?: number;
  affinity?: { podAntiAffinity?: { preferredDuringSchedulingIgnoredDuringExecution?: unknown[] } };
}
interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  data?: Record<string, string>;
  spec?: Record<string, unknown>;
}
interface Deployment extends Manifest {
  spec: {
    replicas: number;
    strategy?: {
      type: string;
      rollingUpdate?: { maxSurge?: number | string; maxUnavailable?: number | string };
    };
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
  };
}
interface ServiceSpec {
  selector: Record<string, string>;
  ports: Array<{ name: string; port: number; targetPort: string | number }>;
}

// ---------------------------------------------------------------------------------------------------------
// helm and the rendered manifests

function helm(args: string[]) {
  return spawnSync(HELM, args, { encoding: 'utf8' });
}

/** `helm template` of the chart (or of `chart`) with `--set`/`-f` arguments; fails the test on an error. */
function render(args: string[] = [], chart = CHART): Manifest[] {
  const r = helm(['template', RELEASE, chart, '--namespace', 'dagu', ...args]);
  expect(r.status, r.stderr).toBe(0);
  return parseAllDocuments(r.stdout)
    .map((d) => d.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

function find(ms: Manifest[], kind: string, name: string): Manifest {
  const m = ms.find((x) => x.kind === kind && x.metadata.name === name);
  expect(m, `${kind} ${name} in ${ms.map((x) => `${x.kind}/${x.metadata.name}`).join(', ')}`).toBeDefined();
  return m!;
}

const deployment = (ms: Manifest[], component: string) =>
  find(ms, 'Deployment', `${RELEASE}-dagu-${component}`) as Deployment;
const podOf = (ms: Manifest[], component: string) => deployment(ms, component).spec.template.spec;
const containerOf = (ms: Manifest[], component: string) => podOf(ms, component).containers[0];
const COMPONENTS = ['server', 'scheduler', 'coordinator', 'worker'] as const;

function envValue(c: Container, name: string): EnvVar | undefined {
  return c.env?.find((e) => e.name === name);
}

/**
 * A container's environment as the kubelet would set it: plain values, and Secret references resolved from
 * the chart's own Secret or from `external` (`<secret>/<key>`), standing for the operator's Secrets.
 */
function resolvedEnv(
  ms: Manifest[],
  c: Container,
  external: Record<string, string> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const e of c.env ?? []) {
    const ref = e.valueFrom?.secretKeyRef;
    if (ref) {
      const own = ms.find((m) => m.kind === 'Secret' && m.metadata.name === ref.name)?.data?.[ref.key];
      const value =
        own !== undefined ? Buffer.from(own, 'base64').toString('utf8') : external[`${ref.name}/${ref.key}`];
      expect(value, `secret ${ref.name} key ${ref.key} of ${e.name}`).toBeDefined();
      env[e.name] = value!;
    } else {
      env[e.name] = e.value ?? '';
    }
  }
  return env;
}

/** dagu's configuration from exactly these variables (no defaults from this machine's environment). */
const configFrom = (env: Record<string, string>) => loadConfig({ env: env as unknown as NodeJS.ProcessEnv });

const configYaml = (ms: Manifest[]) => find(ms, 'ConfigMap', `${RELEASE}-dagu-config`).data!['config.yaml'];

/** Every environment variable dagu reads: the settings table's, plus the two that locate it. */
const KNOWN_ENV = new Set([
  ...SETTINGS.flatMap((s) => [s.env, ...(s.envAliases ?? [])]),
  'DAGU_HOME',
  'DAGU_CONFIG',
]);

// ---------------------------------------------------------------------------------------------------------
// the CLI's commands and flags, from its own help

function daguHelp(args: string[]): string {
  return execFileSync(process.execPath, [DAGU, ...args, '--help'], { encoding: 'utf8' });
}

let commands: Set<string>;
beforeAll(() => {
  const help = daguHelp([]);
  const section = help.slice(help.indexOf('Commands:'));
  commands = new Set([...section.matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map((m) => m[1]));
  expect(commands).toContain('scheduler');
});

/** Checks `dagu <command> --flag ...` against `dagu <command> --help`. */
function expectRealCommand(argv: string[], where: string) {
  const [command, ...rest] = argv;
  expect(commands, `${where}: dagu ${command}`).toContain(command);
  const help = daguHelp([command]);
  for (const flag of rest.filter((a) => a.startsWith('--'))) {
    expect(help, `${where}: dagu ${command} ${flag}`).toMatch(new RegExp(`\\s${flag.split('=')[0]}\\b`));
  }
}

// ---------------------------------------------------------------------------------------------------------

describe('the Helm chart', () => {
  it('passes helm lint with the default values and with overrides', () => {
    for (const args of [[], ['--set', 'auth.existingSecret=ops', '--set', 'worker.labels.zone=b']]) {
      const r = helm(['lint', '--strict', CHART, ...args]);
      expect(r.status, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toContain('0 chart(s) failed');
    }
  });

  it('renders the server, two schedulers, a coordinator and a worker on one ReadWriteMany claim', () => {
    const ms = render();
    const kinds = ms.map((m) => `${m.kind}/${m.metadata.name}`).sort();
    expect(kinds).toEqual(
      [
        'ConfigMap/ci-dagu-config',
        'Deployment/ci-dagu-coordinator',
        'Deployment/ci-dagu-scheduler',
        'Deployment/ci-dagu-server',
        'Deployment/ci-dagu-worker',
        'PersistentVolumeClaim/ci-dagu',
        'Secret/ci-dagu',
        'Service/ci-dagu-coordinator',
        'Service/ci-dagu-scheduler',
        'Service/ci-dagu-server',
      ].sort(),
    );
    expect(deployment(ms, 'scheduler').spec.replicas).toBe(2);
    expect(deployment(ms, 'coordinator').spec.replicas).toBe(1);
    const claim = find(ms, 'PersistentVolumeClaim', 'ci-dagu').spec!;
    expect(claim.accessModes).toEqual(['ReadWriteMany']);
    for (const c of COMPONENTS) expect(containerOf(ms, c).args?.[0]).toBe(c);
  });

  it("wires every Service to one Deployment's pods and a named port, and every Deployment to its own pods", () => {
    const ms = render();
    const deployments = ms.filter((m) => m.kind === 'Deployment') as Deployment[];
    const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
      Object.entries(selector).every(([k, v]) => labels[k] === v);
    for (const d of deployments)
      expect(matches(d.spec.selector.matchLabels, d.spec.template.metadata.labels), d.metadata.name).toBe(
        true,
      );
    for (const svc of ms.filter((m) => m.kind === 'Service')) {
      const spec = svc.spec as unknown as ServiceSpec;
      const selected = deployments.filter((d) => matches(spec.selector, d.spec.template.metadata.labels));
      expect(selected.map((d) => d.metadata.name)).toEqual([svc.metadata.name]);
      const portNames = selected[0].spec.template.spec.containers[0].ports?.map((p) => p.name);
      for (const p of spec.ports) expect(portNames, svc.metadata.name).toContain(p.targetPort);
    }
  });

  it('mounts the claim at the same DAGU_HOME in every pod, with the same config.yaml', () => {
    const ms = render(['--set', 'home=/data/dagu']);
    for (const component of COMPONENTS) {
      const pod = podOf(ms, component);
      const c = pod.containers[0];
      const data = (pod.volumes ?? []).find((v) => v.persistentVolumeClaim)!;
      expect(data.persistentVolumeClaim!.claimName, component).toBe('ci-dagu');
      expect(c.volumeMounts?.find((m) => m.name === data.name)?.mountPath, component).toBe('/data/dagu');
      expect(envValue(c, 'DAGU_HOME')?.value, component).toBe('/data/dagu');
      const config = (pod.volumes ?? []).find((v) => v.configMap)!;
      expect(config.configMap!.name).toBe('ci-dagu-config');
      const dir = c.volumeMounts?.find((m) => m.name === config.name)?.mountPath;
      expect(envValue(c, 'DAGU_CONFIG')?.value, component).toBe(`${dir}/config.yaml`);
      expect(envValue(c, 'DAGU_DEFAULT_EXECUTION_MODE')?.value, component).toBe('distributed');
    }
  });

  it('probes /health on the schedulers and the coordinator, /health?role=active for scheduler readiness, and the ports match', () => {
    const ms = render();
    const scheduler = containerOf(ms, 'scheduler');
    expect(scheduler.livenessProbe?.httpGet).toEqual({ path: '/health', port: 'health' });
    expect(scheduler.readinessProbe?.httpGet).toEqual({ path: '/health?role=active', port: 'health' });
    expect(scheduler.ports).toEqual([{ name: 'health', containerPort: 8090 }]);
    expect(envValue(scheduler, 'DAGU_SCHEDULER_PORT')?.value).toBe('8090');

    const coordinator = containerOf(ms, 'coordinator');
    expect(coordinator.livenessProbe?.httpGet).toEqual({
      path: '/health',
      port: 'coordinator',
      scheme: 'HTTP',
    });
    expect(coordinator.readinessProbe?.httpGet?.path).toBe('/health');
    expect(coordinator.ports).toEqual([{ name: 'coordinator', containerPort: 50055 }]);
    expect(envValue(coordinator, 'DAGU_COORDINATOR_PORT')?.value).toBe('50055');

    // The web server's health route is /api/v1/health (it serves no /health).
    const server = containerOf(ms, 'server');
    for (const p of [server.startupProbe, server.livenessProbe, server.readinessProbe])
      expect(p?.httpGet).toEqual({ path: '/api/v1/health', port: 'http' });
    expect(server.ports).toEqual([{ name: 'http', containerPort: 8080 }]);
    expect(envValue(server, 'DAGU_PORT')?.value).toBe('8080');

    for (const [svc, port] of [
      ['ci-dagu-server', 8080],
      ['ci-dagu-scheduler', 8090],
      ['ci-dagu-coordinator', 50055],
    ] as const) {
      const spec = find(ms, 'Service', svc).spec as { ports: Array<{ port: number }> };
      expect(spec.ports.map((p) => p.port)).toEqual([port]);
    }
    // Workers are reached by nobody: no port, so no probe.
    const worker = containerOf(ms, 'worker');
    expect(worker.ports).toBeUndefined();
    expect(worker.livenessProbe).toBeUndefined();
    expect(envValue(worker, 'DAGU_COORDINATOR_URL')?.value).toBe('http://ci-dagu-coordinator:50055');
  });

  it('spreads the schedulers over nodes and updates them without waiting for a standby to become Ready', () => {
    const ms = render();
    const d = deployment(ms, 'scheduler');
    expect(
      d.spec.template.spec.affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution,
    ).toHaveLength(1);
    // A rollout that keeps one old pod until a new one is Ready would wait for ever on the new standby.
    expect(d.spec.strategy?.rollingUpdate?.maxUnavailable).toBe('100%');
    // Above the 10 s the scheduler gives itself to stop and release the lock.
    expect(d.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(10);
    // The worker stops its runs within run.kill_grace (5s) + 20 s before it exits.
    expect(podOf(ms, 'worker').terminationGracePeriodSeconds).toBeGreaterThan(25);
  });

  it('runs every pod as the same non-root user, without a service account token', () => {
    const ms = render();
    for (const component of COMPONENTS) {
      const pod = podOf(ms, component);
      expect(pod.securityContext, component).toMatchObject({
        runAsNonRoot: true,
        runAsUser: 10001,
        runAsGroup: 10001,
        fsGroup: 10001,
      });
      expect(pod.automountServiceAccountToken, component).toBe(false);
    }
  });

  it('uses only DAGU_* variables dagu reads, and its configuration loader accepts every container', () => {
    const ms = render(['--set', 'worker.labels.zone=b', '--set', 'worker.labels.gpu=true']);
    const home = mkdtempSync(path.join(tmpdir(), 'dagu-chart-'));
    try {
      const configFile = path.join(home, 'config.yaml');
      writeFileSync(configFile, configYaml(ms));
      for (const component of COMPONENTS) {
        const env = resolvedEnv(ms, containerOf(ms, component));
        for (const name of Object.keys(env).filter((n) => n.startsWith('DAGU_')))
          expect(KNOWN_ENV, `${component}: ${name}`).toContain(name);
        const config = configFrom({ ...env, DAGU_HOME: home, DAGU_CONFIG: configFile });
        expect(config.home).toBe(home);
        expect(config.paths.config_file).toBe(configFile);
        expect(config.default_execution_mode).toBe('distributed');
        if (component === 'worker') {
          expect(config.worker.labels).toEqual({ gpu: 'true', zone: 'b' });
          expect(config.worker.max_active_runs).toBe(4);
          expect(config.coordinator.url).toBe('http://ci-dagu-coordinator:50055');
          expect(config.coordinator.token).toMatch(/^[A-Za-z0-9]{48}$/);
        }
        if (component === 'server') expect(config.auth.mode).toBe('token');
        if (component === 'coordinator') expect(config.coordinator.host).toBe('0.0.0.0');
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("takes the tokens from the operator's Secrets, and TLS, worker labels and replicas from values", () => {
    const ms = render([
      '--set',
      'auth.existingSecret=ops-auth,auth.existingSecretKey=console',
      '--set',
      'coordinator.existingSecret=ops-coord',
      '--set',
      'coordinator.tls.secretName=coord-tls',
      '--set',
      'worker.replicas=3,worker.maxActiveRuns=8',
      '--set',
      'worker.labels.zone=b',
    ]);
    // Both tokens come from elsewhere, so the chart makes no Secret of its own.
    expect(ms.filter((m) => m.kind === 'Secret')).toEqual([]);
    expect(envValue(containerOf(ms, 'server'), 'DAGU_AUTH_TOKEN')?.valueFrom).toEqual({
      secretKeyRef: { name: 'ops-auth', key: 'console' },
    });
    for (const component of ['coordinator', 'worker'])
      expect(envValue(containerOf(ms, component), 'DAGU_COORDINATOR_TOKEN')?.valueFrom).toEqual({
        secretKeyRef: { name: 'ops-coord', key: 'token' },
      });

    const coordinator = containerOf(ms, 'coordinator');
    expect(coordinator.livenessProbe?.httpGet?.scheme).toBe('HTTPS');
    const worker = containerOf(ms, 'worker');
    const external = { 'ops-auth/console': 'console-token', 'ops-coord/token': 'worker-token' };
    const home = mkdtempSync(path.join(tmpdir(), 'dagu-chart-'));
    try {
      const coordConfig = configFrom({ ...resolvedEnv(ms, coordinator, external), DAGU_HOME: home });
      expect(coordConfig.coordinator.tls.cert_file).toBe('/etc/dagu/coordinator-tls/tls.crt');
      expect(coordConfig.coordinator.tls.key_file).toBe('/etc/dagu/coordinator-tls/tls.key');
      const workerConfig = configFrom({ ...resolvedEnv(ms, worker, external), DAGU_HOME: home });
      expect(workerConfig.coordinator.url).toBe('https://ci-dagu-coordinator:50055');
      expect(workerConfig.coordinator.token).toBe('worker-token');
      expect(workerConfig.coordinator.tls.ca_file).toBe('/etc/dagu/coordinator-tls/ca.crt');
      expect(workerConfig.worker.labels).toEqual({ zone: 'b' });
      expect(workerConfig.worker.max_active_runs).toBe(8);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
    // The worker mounts the CA alone, never the coordinator's private key.
    const ca = podOf(ms, 'worker').volumes?.find((v) => v.secret?.secretName === 'coord-tls');
    expect(ca?.secret?.items).toEqual([{ key: 'ca.crt', path: 'ca.crt' }]);
    expect(deployment(ms, 'worker').spec.replicas).toBe(3);
  });

  it('passes the config value through config.yaml, which is how seed 002 reaches worker_wait_timeout', () => {
    const values = path.join(mkdtempSync(path.join(tmpdir(), 'dagu-chart-')), 'values.yaml');
    try {
      writeFileSync(
        values,
        'config:\n  coordinator:\n    worker_wait_timeout: 5m\n  queues:\n    enabled: true\n',
      );
      const ms = render(['-f', values]);
      const configFile = path.join(path.dirname(values), 'config.yaml');
      writeFileSync(configFile, configYaml(ms));
      const config = configFrom({ DAGU_HOME: path.dirname(values), DAGU_CONFIG: configFile });
      expect(config.coordinator.worker_wait_timeout_ms).toBe(5 * 60_000);
      // "The Helm chart gains no value for the new key on purpose."
      expect(readFileSync(path.join(CHART, 'values.yaml'), 'utf8')).not.toMatch(
        /^\s*worker_?[wW]ait_?[tT]imeout:/m,
      );
    } finally {
      rmSync(path.dirname(values), { recursive: true, force: true });
    }
  });

  it('turns persistence.nfs into a volume mounted with hard,actimeo=0, bound to the claim', () => {
    const ms = render([
      '--set',
      'persistence.nfs.server=nfs.example.internal,persistence.nfs.path=/export/dagu',
    ]);
    const pv = find(ms, 'PersistentVolume', 'dagu-ci-dagu').spec!;
    expect(pv.mountOptions).toEqual(['hard', 'actimeo=0']);
    expect(pv.accessModes).toEqual(['ReadWriteMany']);
    expect(pv.nfs).toEqual({ server: 'nfs.example.internal', path: '/export/dagu' });
    expect(pv.claimRef).toEqual({ namespace: 'dagu', name: 'ci-dagu' });
    expect(find(ms, 'PersistentVolumeClaim', 'ci-dagu').spec!.volumeName).toBe('dagu-ci-dagu');
  });

  it('refuses values its schema does not allow, naming the key', () => {
    for (const [set, key] of [
      ['scheduler.replica=3', 'replica'],
      ['home=relative/path', 'home'],
      ['worker.labels.bad\\ key=x', 'worker.labels'],
      ['worker.labels.zone=a\\,b', 'worker.labels.zone'],
      ['executionMode=remote', 'executionMode'],
    ]) {
      const r = helm(['template', RELEASE, CHART, '--set', set]);
      expect(r.status, set).not.toBe(0);
      expect(r.stderr, set).toContain(key);
    }
  });

  it('renders its NOTES with the default values and with sign-in turned off', () => {
    // `helm template` does not print NOTES.txt; a copy of the chart with one more template includes it.
    const dir = mkdtempSync(path.join(tmpdir(), 'dagu-chart-'));
    try {
      cpSync(CHART, path.join(dir, 'dagu'), { recursive: true });
      writeFileSync(
        path.join(dir, 'dagu', 'templates', 'notes-check.yaml'),
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\ndata:\n' +
          '  notes: {{ include (print .Template.BasePath "/NOTES.txt") . | quote }}\n',
      );
      const notes = (args: string[]) =>
        find(
          render(['--show-only', 'templates/notes-check.yaml', ...args], path.join(dir, 'dagu')),
          'ConfigMap',
          'notes',
        ).data!.notes;
      const on = notes([]);
      expect(on).toContain('port-forward svc/ci-dagu-server 8080');
      expect(on).toContain("get secret ci-dagu -o jsonpath='{.data.auth-token}'");
      expect(on).toContain('Stopping a worker pod');
      expect(notes(['--set', 'auth.enabled=false'])).toContain('WARNING: auth.enabled is false');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// ---------------------------------------------------------------------------------------------------------

describe("the chart's pods on real processes", () => {
  let h: TempHome;
  const services: Service[] = [];
  afterEach(async () => {
    await Promise.all(services.splice(0).map((s) => s.stop()));
    h.cleanup();
  });

  /** A rendered container's environment, moved to this machine's temp home (and `overrides`). */
  function podEnv(ms: Manifest[], component: string, overrides: Record<string, string>): NodeJS.ProcessEnv {
    const configFile = path.join(h.home, 'chart-config.yaml');
    writeFileSync(configFile, configYaml(ms));
    // This machine's variables minus any DAGU_* one, so the dagu process sees the pod's settings and no others.
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of Object.keys(env)) if (name.startsWith('DAGU_')) delete env[name];
    return Object.assign(env, resolvedEnv(ms, containerOf(ms, component)), {
      DAGU_HOME: h.home,
      DAGU_CONFIG: configFile,
      DAGU_LOG_FORMAT: 'json',
      ...overrides,
    });
  }

  /** Starts a rendered container's command with its rendered environment. */
  function startPod(ms: Manifest[], component: string, overrides: Record<string, string>): Service {
    const s = startService(containerOf(ms, component).args!, podEnv(ms, component, overrides));
    services.push(s);
    return s;
  }

  const status = (url: string, token?: string) =>
    fetch(url, { headers: token ? { Authorization: `Bearer ${token}` } : {} }).then(
      (r) => r.status,
      () => 0,
    );

  it('the active scheduler is Ready on its readiness path and the standby is not; both are live', async () => {
    h = tempHome();
    const ms = render();
    const c = containerOf(ms, 'scheduler');
    const ports = [await freePort(), await freePort()];
    for (const port of ports)
      startPod(ms, 'scheduler', {
        DAGU_HOST: '127.0.0.1',
        DAGU_SCHEDULER_PORT: String(port),
        DAGU_SCHEDULER_LOCK_STALE_THRESHOLD: '3s',
        DAGU_SCHEDULER_LOCK_RETRY_INTERVAL: '500ms',
      });
    const probe = (port: number, p: Probe | undefined) =>
      status(`http://127.0.0.1:${port}${p!.httpGet!.path}`);
    const ready = await eventually(async () => {
      const codes = await Promise.all(ports.map((p) => probe(p, c.readinessProbe)));
      return [...codes].sort().join(',') === '200,503' && codes;
    }, 30_000);
    expect(ready.filter((x) => x === 200)).toHaveLength(1);
    for (const port of ports) expect(await probe(port, c.livenessProbe)).toBe(200);
  });

  it('the worker registers under its rendered labels and token, and runs a DAG without a selector', async () => {
    h = tempHome();
    const ms = render(['--set', 'worker.labels.zone=b,worker.labels.gpu=true']);
    const port = await freePort();
    const coordinator = startPod(ms, 'coordinator', {
      DAGU_COORDINATOR_HOST: '127.0.0.1',
      DAGU_COORDINATOR_PORT: String(port),
    });
    await coordinator.waitFor(/Coordinator listening/, 30_000);
    const liveness = containerOf(ms, 'coordinator').livenessProbe!.httpGet!;
    expect(await status(`${liveness.scheme!.toLowerCase()}://127.0.0.1:${port}${liveness.path}`)).toBe(200);

    startPod(ms, 'worker', {
      DAGU_COORDINATOR_URL: `http://127.0.0.1:${port}`,
      DAGU_WORKER_WORK_DIR: path.join(h.home, 'worker-local'),
    });
    const token = resolvedEnv(ms, containerOf(ms, 'coordinator')).DAGU_COORDINATOR_TOKEN;
    expect(await status(`http://127.0.0.1:${port}/api/v1/workers`)).toBe(401);
    const worker = await eventually(async () => {
      const r = await fetch(`http://127.0.0.1:${port}/api/v1/workers`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      const body = (await r.json()) as {
        workers: Array<{ labels: object; max_active_runs: number; health: string }>;
      };
      return body.workers.find((w) => w.health === 'healthy');
    }, 30_000);
    expect(worker.labels).toEqual({ gpu: 'true', zone: 'b' });
    expect(worker.max_active_runs).toBe(4);

    // executionMode distributed: a DAG without a selector, started from a scheduler pod's environment,
    // runs on that worker.
    h.writeDag('hello', 'steps:\n  - name: s\n    command: echo hello from the worker\n');
    const r = await dagu(['start', 'hello'], podEnv(ms, 'scheduler', {}), 45_000);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('to a worker matching {}');
  });

  it('the server answers its probes without a token and keeps /metrics behind the rendered token', async () => {
    h = tempHome();
    const ms = render();
    const port = await freePort();
    startPod(ms, 'server', { DAGU_HOST: '127.0.0.1', DAGU_PORT: String(port) });
    const c = containerOf(ms, 'server');
    await eventually(
      async () => (await status(`http://127.0.0.1:${port}${c.startupProbe!.httpGet!.path}`)) === 200,
      45_000,
    );
    expect(await status(`http://127.0.0.1:${port}${c.livenessProbe!.httpGet!.path}`)).toBe(200);
    expect(await status(`http://127.0.0.1:${port}/metrics`)).toBe(401);
    const token = resolvedEnv(ms, c).DAGU_AUTH_TOKEN;
    expect(await status(`http://127.0.0.1:${port}/metrics`, token)).toBe(200);
  });
});

// ---------------------------------------------------------------------------------------------------------

/** A systemd unit file as section → key → values (keys like Environment= may repeat). */
function parseUnit(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[(.+)\]$/.exec(line);
    if (section) {
      current = new Map();
      sections.set(section[1], current);
      continue;
    }
    const eq = line.indexOf('=');
    expect(current, `a key outside a section: ${line}`).not.toBeNull();
    const key = line.slice(0, eq);
    current!.set(key, [...(current!.get(key) ?? []), line.slice(eq + 1)]);
  }
  return sections;
}

/** Environment= values: "A=B" "C=D" or A=B, as name → value. */
function unitEnvironment(values: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const v of values)
    for (const m of v.matchAll(/"([^"]*)"|(\S+)/g)) {
      const pair = m[1] ?? m[2];
      out.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
    }
  return out;
}

describe('the systemd units', () => {
  const units = readdirSync(SYSTEMD).filter((f) => f.endsWith('.service'));

  it('cover the scheduler, server, coordinator and worker', () => {
    expect(units.sort()).toEqual([
      'dagu-coordinator.service',
      'dagu-scheduler.service',
      'dagu-server.service',
      'dagu-worker.service',
    ]);
  });

  it('restart always, kill only the main process and share one DAGU_HOME on the shared mount', () => {
    const homes = new Set<string>();
    for (const unit of units) {
      const service = parseUnit(readFileSync(path.join(SYSTEMD, unit), 'utf8')).get('Service')!;
      expect(service.get('Restart'), unit).toEqual(['always']);
      expect(service.get('KillMode'), unit).toEqual(['process']);
      const home = unitEnvironment(service.get('Environment') ?? []).get('DAGU_HOME');
      expect(home, unit).toMatch(/^\//);
      homes.add(home!);
      const unitSection = parseUnit(readFileSync(path.join(SYSTEMD, unit), 'utf8')).get('Unit')!;
      expect(unitSection.get('RequiresMountsFor'), unit).toEqual([home]);
    }
    expect([...homes]).toHaveLength(1);
  });

  it('start real dagu commands with real flags, and set only variables dagu reads', () => {
    for (const unit of units) {
      const service = parseUnit(readFileSync(path.join(SYSTEMD, unit), 'utf8')).get('Service')!;
      const [exec] = service.get('ExecStart')!;
      const [binary, ...argv] = exec.split(/\s+/);
      expect(path.basename(binary), unit).toBe('dagu');
      expectRealCommand(argv, unit);
      for (const name of unitEnvironment(service.get('Environment') ?? []).keys())
        if (name.startsWith('DAGU_')) expect(KNOWN_ENV, `${unit}: ${name}`).toContain(name);
      // The unit's environment (with the shared home swapped for a temp one) is one dagu accepts.
      const env = Object.fromEntries(unitEnvironment(service.get('Environment') ?? []));
      const home = mkdtempSync(path.join(tmpdir(), 'dagu-unit-'));
      try {
        expect(() => configFrom({ ...env, DAGU_HOME: home }), unit).not.toThrow();
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    }
  });

  it("pass systemd's own check without a warning", () => {
    // Copies whose ExecStart names this checkout's bin/dagu, so the check can also see an executable there.
    const dir = mkdtempSync(path.join(tmpdir(), 'dagu-unit-'));
    try {
      const copies = units.map((unit) => {
        const text = readFileSync(path.join(SYSTEMD, unit), 'utf8');
        writeFileSync(path.join(dir, unit), text.replaceAll('/usr/local/bin/dagu', DAGU));
        return path.join(dir, unit);
      });
      const r = spawnSync('systemd-analyze', ['verify', '--man=no', ...copies], { encoding: 'utf8' });
      expect(r.error).toBeUndefined();
      expect(r.stderr + r.stdout).toBe('');
      expect(r.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('ship environment file examples that set only variables dagu reads', () => {
    const examples = readdirSync(SYSTEMD).filter((f) => f.endsWith('.env.example'));
    expect(examples.sort()).toEqual(['coordinator.env.example', 'worker.env.example']);
    for (const file of examples) {
      const names = readFileSync(path.join(SYSTEMD, file), 'utf8')
        .split('\n')
        .map((l) => /^#?(DAGU_[A-Z_]+)=/.exec(l.trim())?.[1])
        .filter((n): n is string => n !== undefined);
      expect(names, file).toContain('DAGU_COORDINATOR_TOKEN');
      for (const name of names) expect(KNOWN_ENV, `${file}: ${name}`).toContain(name);
    }
  });
});

// ---------------------------------------------------------------------------------------------------------

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

function rulesOf(file: string): Rule[] {
  const doc = parse(readFileSync(path.join(PROMETHEUS, file), 'utf8')) as {
    groups: Array<{ rules: Rule[] }>;
  };
  return doc.groups.flatMap((g) => g.rules);
}

describe('the Prometheus rules', () => {
  const files = readdirSync(PROMETHEUS).filter((f) => f.endsWith('.yaml'));

  it("keep the operator guide's two scheduler alerts as written", () => {
    const rules = rulesOf('alerts.yaml');
    expect(rules.map((r) => [r.alert, r.expr, r.for])).toEqual([
      ['DaguNoActiveScheduler', 'dagu_scheduler_instances{status="active"} != 1', '2m'],
      ['DaguNoStandbyScheduler', 'dagu_scheduler_instances{status="standby"} < 1', '10m'],
    ]);
  });

  it('name only metrics and labels the server registers, and every rule says how bad and what to do', () => {
    const home = mkdtempSync(path.join(tmpdir(), 'dagu-metrics-'));
    try {
      const { registry } = createMetrics(configFrom({ DAGU_HOME: home }));
      expect(files.length).toBeGreaterThanOrEqual(2);
      for (const file of files) {
        for (const rule of rulesOf(file)) {
          const where = `${file}: ${rule.alert}`;
          expect(rule.labels?.severity, where).toMatch(/^(critical|warning)$/);
          expect(rule.annotations?.summary, where).toBeTruthy();
          expect(rule.annotations?.description, where).toBeTruthy();
          // Brackets balance: a cheap stand-in for promtool, which this machine does not have.
          for (const [open, close] of ['()', '{}'])
            expect(rule.expr.split(open).length, where).toBe(rule.expr.split(close).length);
          const names = [...rule.expr.matchAll(/\b(dagu_[a-z_]+)\b/g)].map((m) => m[1]);
          expect(names.length, where).toBeGreaterThan(0);
          const labels = new Set<string>();
          for (const name of names) {
            const metric = registry.getSingleMetric(name);
            expect(metric, `${where}: ${name}`).toBeDefined();
            // prom-client keeps a metric's label names on the instance; its type declarations do not show them.
            for (const l of (metric as unknown as { labelNames: string[] }).labelNames) labels.add(l);
          }
          const used = [
            ...[...rule.expr.matchAll(/\{([^}]*)\}/g)].flatMap((m) =>
              [...m[1].matchAll(/(\w+)\s*[=!~]/g)].map((x) => x[1]),
            ),
            ...[...rule.expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)].flatMap((m) =>
              m[1].split(',').map((x) => x.trim()),
            ),
          ];
          for (const l of used) expect(labels, `${where}: label ${l}`).toContain(l);
        }
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
