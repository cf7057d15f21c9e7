// The Helm chart with storage.backend postgres (issue 18): no shared volume at all, the connection from the
// operator's Secrets, a clear refusal without one, the default render untouched, and the rendered settings
// opening a real PostgreSQL through dagu's own connection code.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openPgPool, StorageConfigError } from '../../../server/store/postgres/connect';
import { eventually, freePort, startService, type Service } from '../harness';
import { usePostgres } from '../postgres/pgTestCluster';
import { configFrom, KNOWN_ENV } from './daguEnv';
import {
  CHART,
  COMPONENTS,
  configYaml,
  containerOf,
  deployment,
  envValue,
  helm,
  mountedSecretFile,
  podOf,
  RELEASE,
  render,
  resolvedEnv,
  type Manifest,
  type Probe,
} from './manifests';

/** Fixed tokens, so that two renders of the same values are the same text. */
const TOKENS = ['--set', 'auth.token=console-token,coordinator.token=worker-token'];
const WITH_URL_SECRET = ['--set', 'storage.backend=postgres,storage.postgres.existingSecret=pg-conn'];
/** The components that open the database; workers reach the control plane through the coordinator. */
const DATABASE_COMPONENTS = ['server', 'scheduler', 'coordinator'] as const;

const storageEnvOf = (ms: Manifest[], component: string) =>
  (containerOf(ms, component).env ?? [])
    .map((e) => e.name)
    .filter((n) => n.startsWith('DAGU_STORAGE_') || n.startsWith('DAGU_POSTGRES_'));

/** The volume mounted at DAGU_HOME in a component's pod. */
function homeVolume(ms: Manifest[], component: string) {
  const c = containerOf(ms, component);
  const home = envValue(c, 'DAGU_HOME')?.value;
  const mount = c.volumeMounts?.find((m) => m.mountPath === home);
  expect(mount, `${component}: a volume at DAGU_HOME ${home}`).toBeDefined();
  return podOf(ms, component).volumes?.find((v) => v.name === mount!.name);
}

describe('the Helm chart with storage.backend postgres', () => {
  it('renders exactly the default manifests with storage.backend file, whatever storage.postgres holds', () => {
    const byDefault = render(TOKENS);
    const file = render([
      ...TOKENS,
      '--set',
      'storage.backend=file,storage.postgres.existingSecret=pg-conn,storage.postgres.schema=ops',
    ]);
    expect(file).toEqual(byDefault);
    for (const component of COMPONENTS) {
      expect(storageEnvOf(byDefault, component), component).toEqual([]);
      expect(homeVolume(byDefault, component)?.persistentVolumeClaim?.claimName, component).toBe('ci-dagu');
    }
  });

  it('creates and mounts no claim: DAGU_HOME is an emptyDir of each pod, even with persistence values set', () => {
    const ms = render([
      ...WITH_URL_SECRET,
      '--set',
      'scheduler.replicas=3,server.replicas=2',
      '--set',
      'persistence.existingClaim=old-claim,persistence.nfs.server=nfs.example.internal,persistence.nfs.path=/x',
    ]);
    const kinds = ms.map((m) => m.kind);
    expect(kinds).not.toContain('PersistentVolumeClaim');
    expect(kinds).not.toContain('PersistentVolume');
    for (const component of COMPONENTS) {
      const pod = podOf(ms, component);
      expect(
        pod.volumes?.filter((v) => v.persistentVolumeClaim),
        component,
      ).toEqual([]);
      expect(homeVolume(ms, component)?.emptyDir, component).toEqual({});
    }
    // Several schedulers and servers with nothing shared between them but the database.
    expect(deployment(ms, 'scheduler').spec.replicas).toBe(3);
    expect(deployment(ms, 'server').spec.replicas).toBe(2);
  });

  it("sets the backend in every container and the URL from the operator's Secret where the database is opened", () => {
    const ms = render([
      ...WITH_URL_SECRET,
      '--set',
      'storage.postgres.existingSecretKey=dsn,storage.postgres.schema=ops,storage.postgres.poolSize=4',
    ]);
    expect(ms.filter((m) => m.kind === 'Secret').map((m) => Object.keys(m.data ?? {}))).toEqual([
      ['auth-token', 'coordinator-token'],
    ]);
    const url = 'postgres://dagu:s3cret@db.example.internal:5432/dagu?sslmode=require';
    const home = mkdtempSync(path.join(tmpdir(), 'dagu-chart-'));
    try {
      for (const component of COMPONENTS) {
        const c = containerOf(ms, component);
        expect(envValue(c, 'DAGU_STORAGE_BACKEND')?.value, component).toBe('postgres');
        const env = resolvedEnv(ms, c, { 'pg-conn/dsn': url });
        for (const name of Object.keys(env).filter((n) => n.startsWith('DAGU_')))
          expect(KNOWN_ENV, `${component}: ${name}`).toContain(name);
        const config = configFrom({ ...env, DAGU_HOME: home });
        expect(config.storage.backend, component).toBe('postgres');
        if (component === 'worker') {
          // The steps a worker runs inherit its DAGU_* variables: no database credentials there.
          expect(storageEnvOf(ms, component)).toEqual(['DAGU_STORAGE_BACKEND']);
          continue;
        }
        expect(envValue(c, 'DAGU_POSTGRES_URL')?.valueFrom, component).toEqual({
          secretKeyRef: { name: 'pg-conn', key: 'dsn' },
        });
        expect(config.storage.postgres, component).toMatchObject({
          url,
          password_file: null,
          schema: 'ops',
          pool_size: 4,
        });
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('mounts only the password key of the password Secret, read-only, at the file DAGU_POSTGRES_PASSWORD_FILE names', () => {
    const ms = render([
      '--set',
      'storage.backend=postgres,storage.postgres.url=postgres://dagu@db.example.internal:5432/dagu',
      '--set',
      'storage.postgres.passwordSecret=pg-password,storage.postgres.passwordSecretKey=pw',
    ]);
    for (const component of DATABASE_COMPONENTS) {
      const c = containerOf(ms, component);
      expect(envValue(c, 'DAGU_POSTGRES_URL')?.value, component).toBe(
        'postgres://dagu@db.example.internal:5432/dagu',
      );
      const file = envValue(c, 'DAGU_POSTGRES_PASSWORD_FILE')?.value;
      expect(file, component).toMatch(/^\//);
      expect(mountedSecretFile(podOf(ms, component), c, file!), component).toEqual({
        secretName: 'pg-password',
        key: 'pw',
      });
      const volume = podOf(ms, component).volumes?.find((v) => v.secret?.secretName === 'pg-password');
      expect(volume?.secret?.items, component).toEqual([{ key: 'pw', path: 'password' }]);
      expect(c.volumeMounts?.find((m) => m.name === volume?.name)?.readOnly, component).toBe(true);
    }
    expect(podOf(ms, 'worker').volumes?.map((v) => v.name)).not.toContain(
      podOf(ms, 'server').volumes?.find((v) => v.secret?.secretName === 'pg-password')?.name,
    );
  });

  it('refuses to render postgres without a Secret, or with the connection given twice or a password in values', () => {
    for (const [set, message] of [
      [
        'storage.backend=postgres',
        'storage.backend is postgres: set storage.postgres.existingSecret (a Secret holding the connection URL) or storage.postgres.passwordSecret',
      ],
      [
        'storage.backend=postgres,storage.postgres.url=postgres://dagu@db/dagu',
        'storage.backend is postgres: set storage.postgres.existingSecret',
      ],
      [
        'storage.backend=postgres,storage.postgres.passwordSecret=pw',
        'storage.postgres.passwordSecret needs storage.postgres.url',
      ],
      [
        'storage.backend=postgres,storage.postgres.existingSecret=pg,storage.postgres.url=postgres://dagu@db/dagu',
        'storage.postgres.url and storage.postgres.existingSecret both give the connection URL',
      ],
      [
        'storage.backend=postgres,storage.postgres.passwordSecret=pw,storage.postgres.url=postgres://dagu:hunter2@db/dagu',
        'storage.postgres.url contains a password',
      ],
      ['storage.backend=mysql', 'storage.backend'],
      ['storage.postgres.schema=Dagu-Prod', 'storage.postgres.schema'],
      ['storage.postgres.poolSize=0', 'storage.postgres.poolSize'],
    ]) {
      const r = helm(['template', RELEASE, CHART, '--set', set]);
      expect(r.status, set).not.toBe(0);
      expect(r.stderr, set).toContain(message);
      expect(r.stderr, set).not.toContain('hunter2@');
    }
  });

  it('passes helm lint --strict in both ways of giving the connection', () => {
    for (const args of [
      WITH_URL_SECRET,
      ['--set', 'storage.backend=postgres,storage.postgres.url=postgres://dagu@db/dagu'],
    ]) {
      const r = helm(['lint', '--strict', CHART, ...args, '--set', 'storage.postgres.passwordSecret=pw']);
      expect(r.status, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toContain('0 chart(s) failed');
    }
  });
});

describe("the chart's PostgreSQL settings against a real database", () => {
  const pg = usePostgres();
  const ROLE = 'dagu_app';
  // Characters a URL must escape, so the password's way from the Secret into the connection is tested too.
  const PASSWORD = 'from the Secret: p@ss/%w0rd';
  let dir: string;

  // A login role that must give its password: from here on the cluster trusts only its superuser.
  beforeAll(async () => {
    const { cluster } = pg();
    await cluster.psql(`create role ${ROLE} login password '${PASSWORD}'`);
    await cluster.psql(`grant create on database postgres to ${ROLE}`);
    const hba = await cluster.psql('show hba_file');
    const lines = [
      `host all ${ROLE} 127.0.0.1/32 scram-sha-256`,
      'host all all 127.0.0.1/32 trust',
      'local all all trust',
    ];
    await cluster.psql(`copy (values ${lines.map((l) => `('${l}')`).join(', ')}) to '${hba}'`);
    await cluster.psql('select pg_reload_conf()');
  });
  const services: Service[] = [];
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'dagu-chart-pg-'));
  });
  afterEach(async () => {
    await Promise.all(services.splice(0).map((s) => s.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  /** The scheduler pod's settings opened by dagu's own code: the role, the schema it made, the pool size. */
  async function expectOpens(env: Record<string, string>, schema: string, poolSize: number) {
    const opened = await openPgPool(configFrom({ ...env, DAGU_HOME: dir }), { by: 'chart-test' });
    try {
      expect(opened.settings.poolSize).toBe(poolSize);
      expect(opened.settings.safeUrl).not.toContain('p%40ss');
      const who = await opened.pool.query<{ user: string }>('select current_user as user');
      expect(who.rows[0].user).toBe(ROLE);
      const tables = await opened.pool.query(
        `select 1 from information_schema.tables where table_schema = $1 and table_name = 'schema_migrations'`,
        [schema],
      );
      expect(tables.rowCount).toBe(1);
    } finally {
      await opened.pool.end();
    }
  }

  it("opens the database with the URL from the operator's Secret and the rendered schema and pool size", async () => {
    const ms = render([
      ...WITH_URL_SECRET,
      '--set',
      'storage.postgres.schema=chart_url,storage.postgres.poolSize=3',
    ]);
    const url = (password: string) =>
      `postgresql://${ROLE}:${encodeURIComponent(password)}@127.0.0.1:${pg().cluster.port}/postgres`;
    const c = containerOf(ms, 'scheduler');
    const wrong = await openPgPool(
      configFrom({ ...resolvedEnv(ms, c, { 'pg-conn/url': url('not-the-password') }), DAGU_HOME: dir }),
      { by: 'chart-test' },
    ).catch((err: unknown) => err);
    expect(wrong).toBeInstanceOf(StorageConfigError);
    expect(String(wrong)).toContain(`password authentication failed for user "${ROLE}"`);
    expect(String(wrong)).not.toContain('not-the-password');
    await expectOpens(resolvedEnv(ms, c, { 'pg-conn/url': url(PASSWORD) }), 'chart_url', 3);
  });
  it('opens the database with the URL from values and the password from the mounted Secret file', async () => {
    const url = `postgresql://${ROLE}@127.0.0.1:${pg().cluster.port}/postgres`;
    const ms = render([
      '--set',
      `storage.backend=postgres,storage.postgres.url=${url}`,
      '--set',
      'storage.postgres.passwordSecret=pg-password,storage.postgres.schema=chart_file,storage.postgres.poolSize=2',
    ]);
    const c = containerOf(ms, 'scheduler');
    const env = resolvedEnv(ms, c);
    expect(mountedSecretFile(podOf(ms, 'scheduler'), c, env.DAGU_POSTGRES_PASSWORD_FILE)).toEqual({
      secretName: 'pg-password',
      key: 'password',
    });
    // The Secret's key as the kubelet projects it (with the trailing newline `kubectl create secret
    // --from-file` keeps), at a local path standing for the pod's.
    const withPassword = (password: string) => {
      const file = path.join(dir, 'password');
      writeFileSync(file, `${password}\n`);
      return { ...env, DAGU_POSTGRES_PASSWORD_FILE: file };
    };
    const wrong = await openPgPool(configFrom({ ...withPassword('not-the-password'), DAGU_HOME: dir }), {
      by: 'chart-test',
    }).catch((err: unknown) => err);
    expect(String(wrong)).toContain(`password authentication failed for user "${ROLE}"`);
    await expectOpens(withPassword(PASSWORD), 'chart_file', 2);
  });
  it('runs two scheduler pods on homes of their own: one active and Ready, the other a standby', async () => {
    const ms = render([...WITH_URL_SECRET, '--set', 'storage.postgres.schema=chart_pods']);
    const c = containerOf(ms, 'scheduler');
    const url = `postgresql://${ROLE}:${encodeURIComponent(PASSWORD)}@127.0.0.1:${pg().cluster.port}/postgres`;
    const ports = [await freePort(), await freePort()];
    writeFileSync(path.join(dir, 'config.yaml'), configYaml(ms));
    for (const [i, port] of ports.entries()) {
      // This machine's variables minus any DAGU_* one, then the pod's, on an emptyDir of its own.
      const env: NodeJS.ProcessEnv = { ...process.env };
      for (const name of Object.keys(env)) if (name.startsWith('DAGU_')) delete env[name];
      const home = path.join(dir, `pod-${i}`);
      Object.assign(env, resolvedEnv(ms, c, { 'pg-conn/url': url }), {
        DAGU_HOME: home,
        DAGU_CONFIG: path.join(dir, 'config.yaml'),
        DAGU_LOG_FORMAT: 'json',
        DAGU_HOST: '127.0.0.1',
        DAGU_SCHEDULER_PORT: String(port),
        DAGU_SCHEDULER_LOCK_STALE_THRESHOLD: '3s',
        DAGU_SCHEDULER_LOCK_RETRY_INTERVAL: '500ms',
      });
      services.push(startService(c.args!, env));
    }
    const probe = (port: number, p: Probe | undefined) =>
      fetch(`http://127.0.0.1:${port}${p!.httpGet!.path}`).then(
        (r) => r.status,
        () => 0,
      );
    const ready = await eventually(async () => {
      const codes = await Promise.all(ports.map((p) => probe(p, c.readinessProbe)));
      return [...codes].sort().join(',') === '200,503' && codes;
    }, 30_000);
    expect(ready.filter((x) => x === 200)).toHaveLength(1);
    for (const port of ports) expect(await probe(port, c.livenessProbe)).toBe(200);
    // The lock they share is the database's: its lease row names the Ready one.
    const lease = await pg().pool.query<{ pid: number; released: boolean }>(
      'select pid, released from chart_pods.scheduler_lease',
    );
    expect(lease.rows).toEqual([{ pid: services[ready.indexOf(200)].child.pid, released: false }]);
  });
});
