// The part of the host environment a step process inherits. As in Dagu 2.x, steps do not see everything the
// dagu process was started with (tokens, proxies, our own settings): only a fixed list of names and prefixes
// passes, plus what the operator adds in config (`env_passthrough`, `env_passthrough_prefixes`).

/** Names that always pass. */
export const HOST_ENV_NAMES: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'SHELL',
  'TMPDIR',
  'TERM',
  'EDITOR',
  'VISUAL',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TZ',
  'LD_LIBRARY_PATH',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_CACHE_HOME',
  'XDG_STATE_HOME',
  'DOCKER_HOST',
  'DOCKER_TLS_VERIFY',
  'DOCKER_CERT_PATH',
  'DOCKER_API_VERSION',
];

/** Name prefixes that always pass. */
export const HOST_ENV_PREFIXES: readonly string[] = ['DAGU_', 'DAG_', 'LC_', 'KUBERNETES_'];

/** What the operator lets through besides the built-in lists. */
export interface HostEnvPassthrough {
  names: readonly string[];
  prefixes: readonly string[];
}

/** The variables of `env` a step may inherit; unset (undefined) entries are dropped. */
export function filterHostEnv(
  env: Readonly<Record<string, string | undefined>>,
  extra: HostEnvPassthrough = { names: [], prefixes: [] },
): Record<string, string> {
  const names = new Set([...HOST_ENV_NAMES, ...extra.names]);
  const prefixes = [...HOST_ENV_PREFIXES, ...extra.prefixes];
  // Null prototype: a host variable named __proto__ stays a variable.
  const out: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (names.has(name) || prefixes.some((p) => name.startsWith(p))) out[name] = value;
  }
  return out;
}
