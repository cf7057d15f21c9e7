// Dagu features this product does not run, each with the reason a user is told. A key listed here is a real
// Dagu key (so not "unknown"), but a file using it is refused: running it without the feature would silently
// do something else.

const NO_CONTAINERS = 'it runs no container runtime';
const NO_K8S = 'it does not talk to Kubernetes';
const NO_SSH = 'it runs no remote shells';
const NO_S3 = 'it has no object-storage client';
const NO_REDIS = 'it has no Redis client';
const NO_LLM = 'it calls no language models';
const NO_SQL = 'it has no database clients';

/** Root keys of Dagu's DAG file that this product refuses, with the reason. */
export const UNSUPPORTED_ROOT_KEYS: Readonly<Record<string, string>> = {
  container: `Dagu's DAG-level container is not supported by this product (${NO_CONTAINERS})`,
  registry_auths: `Dagu's container registry credentials are not supported by this product (${NO_CONTAINERS})`,
  kubernetes: `Dagu's Kubernetes defaults are not supported by this product (${NO_K8S})`,
  ssh: `Dagu's DAG-level ssh is not supported by this product (${NO_SSH})`,
  s3: `Dagu's S3 defaults are not supported by this product (${NO_S3})`,
  redis: `Dagu's DAG-level redis is not supported by this product (${NO_REDIS})`,
  llm: `Dagu's LLM defaults are not supported by this product (${NO_LLM})`,
  harness: `Dagu's agent harness is not supported by this product (${NO_LLM})`,
  harnesses: `Dagu's agent harnesses are not supported by this product (${NO_LLM})`,
  tools: `Dagu's agent tools are not supported by this product (${NO_LLM})`,
  tasks: `Dagu's agent tasks are not supported by this product (${NO_LLM})`,
  resources: "Dagu's resource limits are not supported by this product (it sets no cgroup limits)",
  webhook:
    "Dagu's webhook triggers are not supported by this product (start runs with dagu start or the API)",
  otel: "Dagu's OpenTelemetry export is not supported by this product (it exports Prometheus metrics)",
};

/** Step keys of Dagu's DAG file that this product refuses, with the reason. */
export const UNSUPPORTED_STEP_KEYS: Readonly<Record<string, string>> = {
  container: `Dagu's container steps are not supported by this product (${NO_CONTAINERS})`,
  llm: `Dagu's LLM steps are not supported by this product (${NO_LLM})`,
  messages: `Dagu's LLM steps are not supported by this product (${NO_LLM})`,
  tools: `Dagu's agent tools are not supported by this product (${NO_LLM})`,
  shell_packages: "Dagu's nix-shell packages are not supported by this product (it runs no nix-shell)",
};

/** Executor families (the part of an action before the dot, or a legacy `type`) that this product refuses. */
const UNSUPPORTED_FAMILIES: Readonly<Record<string, string>> = {
  docker: `Dagu's container steps are not supported by this product (${NO_CONTAINERS})`,
  container: `Dagu's container steps are not supported by this product (${NO_CONTAINERS})`,
  k8s: `Dagu's Kubernetes steps are not supported by this product (${NO_K8S})`,
  kubernetes: `Dagu's Kubernetes steps are not supported by this product (${NO_K8S})`,
  ssh: `Dagu's ssh steps are not supported by this product (${NO_SSH})`,
  sftp: `Dagu's sftp steps are not supported by this product (${NO_SSH})`,
  s3: `Dagu's S3 steps are not supported by this product (${NO_S3})`,
  redis: `Dagu's Redis steps are not supported by this product (${NO_REDIS})`,
  chat: `Dagu's LLM chat steps are not supported by this product (${NO_LLM})`,
  harness: `Dagu's agent harness steps are not supported by this product (${NO_LLM})`,
  postgres: `Dagu's PostgreSQL steps are not supported by this product (${NO_SQL})`,
  sqlite: `Dagu's SQLite steps are not supported by this product (${NO_SQL})`,
  foreach: "Dagu's foreach executor is not chosen by action or type here (write the step's foreach: key)",
  gha: "Dagu's GitHub Actions steps are not supported by this product (it runs no GitHub Actions runner)",
  'github-action':
    "Dagu's GitHub Actions steps are not supported by this product (it runs no GitHub Actions runner)",
  github_action:
    "Dagu's GitHub Actions steps are not supported by this product (it runs no GitHub Actions runner)",
  action:
    "Dagu's action runtime (remote actions) is not supported by this product (it fetches no action packages; use a run step)",
};

/** Every action name Dagu 2.x knows, for telling "unsupported here" from "unknown to Dagu too". */
export const DAGU_ACTIONS: ReadonlySet<string> = new Set([
  'archive.create',
  'archive.extract',
  'archive.list',
  'artifact.list',
  'artifact.read',
  'artifact.write',
  'chat.completion',
  'container.run',
  'data.convert',
  'data.pick',
  'docker.run',
  'file.copy',
  'file.delete',
  'file.list',
  'file.mkdir',
  'file.move',
  'file.read',
  'file.stat',
  'file.write',
  'git.checkout',
  'git.worktree.add',
  'git.worktree.remove',
  'harness.run',
  'human.task',
  'k8s.run',
  'kubernetes.run',
  'outputs.write',
  'postgres.import',
  'postgres.query',
  'router.route',
  's3.delete',
  's3.download',
  's3.list',
  's3.upload',
  'sftp.download',
  'sftp.upload',
  'sqlite.import',
  'sqlite.query',
  'ssh.run',
  'state.delete',
  'state.diff',
  'state.get',
  'state.list',
  'state.set',
  'template.render',
  'wait.duration',
  'wait.file',
  'wait.http',
  'wait.until',
]);

/** Families of Dagu's built-in actions this product runs: a name in one of them that it does not know is a typo. */
const SUPPORTED_FAMILIES = new Set([
  'command',
  'shell',
  'exec',
  'dag',
  'http',
  'jq',
  'mail',
  'log',
  'noop',
  'file',
  'wait',
  'router',
  'outputs',
  'data',
  'template',
  'git',
  'state',
  'archive',
  'artifact',
  'human',
]);

/** A custom action's name, as Dagu's schema allows it (`greet`, `release.announce`, `embedded_echo`). */
const CUSTOM_ACTION_NAME = /^[A-Za-z][A-Za-z0-9_-]*(\.[A-Za-z][A-Za-z0-9_-]*)*$/;

const REMOTE_ACTIONS =
  "Dagu's remote actions (name@version, owner/repo@version, source:...@version) are not supported by this product (it fetches no action packages; use a run step)";
const CUSTOM_ACTIONS =
  "is not one of Dagu's built-in actions, and no custom action of that name is declared under actions: (or " +
  'step_types:); actions a Go program embedding Dagu registers are not supported by this product';

/**
 * Why an action (`docker.run`) or a legacy executor type (`docker`) is refused, or null when it is not one of
 * Dagu's that this product refuses (then it is either supported or a mistake: see unknownActionMessage).
 * Remote actions are refused here too: Dagu fetches them, which this product does not. A custom action declared
 * under `actions:` never gets here (customSteps.ts expands it first).
 */
export function unsupportedActionReason(name: string): string | null {
  const family = name.split('.')[0];
  if (DAGU_ACTIONS.has(name) || (!name.includes('.') && family in UNSUPPORTED_FAMILIES)) {
    return UNSUPPORTED_FAMILIES[family] ?? null;
  }
  // Redis actions are `redis.<command>`, any Redis command.
  if (family === 'redis' && name.includes('.')) return UNSUPPORTED_FAMILIES.redis;
  // `duckdb@v1`, `owner/repo@v1`, `source:./x@local`: packages fetched and run by Dagu's action runtime.
  if (name.includes('@')) return REMOTE_ACTIONS;
  // A name only a program embedding Dagu could know (it registers actions of its own), or a typo.
  if (undeclaredCustomName(name)) return `action ${JSON.stringify(name)} ${CUSTOM_ACTIONS}`;
  return null;
}

/** A custom action's name that no family of Dagu's built-in actions, supported or not, owns. */
function undeclaredCustomName(name: string): boolean {
  const family = name.split('.')[0];
  if (DAGU_ACTIONS.has(name) || SUPPORTED_FAMILIES.has(family) || family in UNSUPPORTED_FAMILIES)
    return false;
  return (
    CUSTOM_ACTION_NAME.test(name) && !KNOWN_NAMES.some((a) => a.startsWith(`${family}.`)) && name !== 'wait'
  );
}

/** The error for an action name that is neither run here nor refused as a Dagu feature (`http.get`, `a b`). */
/** Every action name of Dagu's this product knows, run here or refused. */
const KNOWN_NAMES = [
  ...DAGU_ACTIONS,
  'dag.run',
  'dag.enqueue',
  'http.request',
  'jq.filter',
  'mail.send',
  'log.write',
];

export function unknownActionMessage(name: string): string {
  const family = name.split('.')[0];
  const known = KNOWN_NAMES.filter((a) => a.startsWith(`${family}.`)).sort();
  if (name === 'wait')
    return 'unknown action "wait" (use action: wait.duration, wait.until, wait.file or wait.http)';
  if (known.length > 0) return `unknown action ${JSON.stringify(name)} (${family} has ${known.join(', ')})`;
  return `unknown action ${JSON.stringify(name)}`;
}
