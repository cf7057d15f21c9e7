// The Helm chart as the deploy tests see it: `helm template` output parsed into typed manifests, the
// accessors that pick a component's Deployment, pod and container, and a container's environment resolved
// the way the kubelet would set it.

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { ROOT } from '../harness';

const HELM = path.join(ROOT, 'node_modules', '.bin', 'helm');
export const CHART = path.join(ROOT, 'deploy', 'helm', 'dagu');
/** The release name every render uses, so resource names are `ci-dagu-<component>`. */
export const RELEASE = 'ci';

/** A container's environment variable: a plain value or a reference to a Secret's key. */
export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
/** A liveness, readiness or startup probe (the chart uses HTTP probes only). */
export interface Probe {
  httpGet?: { path: string; port: string | number; scheme?: string };
}
/** The fields of a rendered container the tests read. */
export interface Container {
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
/** A pod volume: the shared claim, the config map, a Secret or scratch space. */
export interface Volume {
  name: string;
  persistentVolumeClaim?: { claimName: string };
  configMap?: { name: string };
  secret?: { secretName: string; items?: Array<{ key: string; path: string }> };
  emptyDir?: object;
}
/** The fields of a rendered pod template the tests read. */
export interface PodSpec {
  containers: Container[];
  volumes?: Volume[];
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number; runAsGroup?: number; fsGroup?: number };
  automountServiceAccountToken?: boolean;
  terminationGracePeriodSeconds?: number;
  affinity?: { podAntiAffinity?: { preferredDuringSchedulingIgnoredDuringExecution?: unknown[] } };
}
/** Any rendered Kubernetes object. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  data?: Record<string, string>;
  spec?: Record<string, unknown>;
}
/** A rendered Deployment, with the pod template typed. */
export interface Deployment extends Manifest {
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
/** A rendered Service's spec. */
export interface ServiceSpec {
  selector: Record<string, string>;
  ports: Array<{ name: string; port: number; targetPort: string | number }>;
}

export function helm(args: string[]) {
  return spawnSync(HELM, args, { encoding: 'utf8' });
}

/** `helm template` of the chart (or of `chart`) with `--set`/`-f` arguments; fails the test on an error. */
export function render(args: string[] = [], chart = CHART): Manifest[] {
  const r = helm(['template', RELEASE, chart, '--namespace', 'dagu', ...args]);
  expect(r.status, r.stderr).toBe(0);
  return parseAllDocuments(r.stdout)
    .map((d) => d.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

export function find(ms: Manifest[], kind: string, name: string): Manifest {
  const m = ms.find((x) => x.kind === kind && x.metadata.name === name);
  expect(m, `${kind} ${name} in ${ms.map((x) => `${x.kind}/${x.metadata.name}`).join(', ')}`).toBeDefined();
  return m!;
}

export const deployment = (ms: Manifest[], component: string) =>
  find(ms, 'Deployment', `${RELEASE}-dagu-${component}`) as Deployment;
export const podOf = (ms: Manifest[], component: string) => deployment(ms, component).spec.template.spec;
export const containerOf = (ms: Manifest[], component: string) => podOf(ms, component).containers[0];
export const COMPONENTS = ['server', 'scheduler', 'coordinator', 'worker'] as const;

export function envValue(c: Container, name: string): EnvVar | undefined {
  return c.env?.find((e) => e.name === name);
}

/**
 * A container's environment as the kubelet would set it: plain values, and Secret references resolved from
 * the chart's own Secret or from `external` (`<secret>/<key>`), standing for the operator's Secrets.
 */
export function resolvedEnv(
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

/** The config.yaml the chart's ConfigMap hands every pod. */
export const configYaml = (ms: Manifest[]) =>
  find(ms, 'ConfigMap', `${RELEASE}-dagu-config`).data!['config.yaml'];

/**
 * The Secret and key behind a file a container reads (`file` lies in a mounted Secret volume), as the kubelet
 * would project it: an `items` entry maps a key to a path, without items every key is a file of its name.
 */
export function mountedSecretFile(
  pod: PodSpec,
  c: Container,
  file: string,
): { secretName: string; key: string } | undefined {
  for (const mount of c.volumeMounts ?? []) {
    const secret = pod.volumes?.find((v) => v.name === mount.name)?.secret;
    const relative = path.posix.relative(mount.mountPath, file);
    if (!secret || relative.startsWith('..') || path.posix.isAbsolute(relative)) continue;
    const key = secret.items ? secret.items.find((i) => i.path === relative)?.key : relative;
    if (key !== undefined) return { secretName: secret.secretName, key };
  }
  return undefined;
}
