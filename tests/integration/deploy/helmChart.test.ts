// The Helm chart as CI checks it (issue 6): `helm lint` and `helm template` with the default values and with
// overrides, the rendered objects wired to one another, and every container's environment accepted by
// dagu's own configuration loader.

import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configFrom, KNOWN_ENV } from './daguEnv';
import {
  CHART,
  COMPONENTS,
  configYaml,
  containerOf,
  deployment,
  envValue,
  find,
  helm,
  podOf,
  RELEASE,
  render,
  resolvedEnv,
  type Deployment,
  type ServiceSpec,
} from './manifests';

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

  it('renders its NOTES with the default values, with sign-in turned off and with PostgreSQL', () => {
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
      expect(on).toContain('The shared volume must be ReadWriteMany');
      const pg = notes(['--set', 'storage.backend=postgres,storage.postgres.existingSecret=pg-conn']);
      expect(pg).toContain('connection URL from Secret pg-conn (key url)');
      expect(pg).toContain('exec deploy/ci-dagu-server -- dagu storage schema');
      expect(pg).not.toContain('ReadWriteMany');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
