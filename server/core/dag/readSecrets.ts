// `secrets:`: variables whose values a provider gives when the run starts, laid over the run's environment and
// masked wherever the run shows text (step logs, status, run log). Dagu's `env` and `file` providers need
// nothing outside this host and work here; its cloud and vault providers and its team secret registry (`ref`)
// are refused with the reason. The names are checked as Dagu's parseSecretRefs checks them.

import type { SecretRef } from '../types';
import { isNull, type DagReader, type Entry } from './dagReader';

/** Providers read here: `env` (a variable of the DAG's env or the host) and `file` (a file's whole content). */
export const SECRET_PROVIDERS = ['env', 'file'] as const;

/** Dagu's other providers, each needing a service this product does not talk to. */
const OTHER_PROVIDERS: Readonly<Record<string, string>> = {
  vault: 'HashiCorp Vault',
  aws: 'AWS Secrets Manager',
  gcp: 'Google Secret Manager',
  azure: 'Azure Key Vault',
  kubernetes: 'Kubernetes secrets',
  alibaba: 'Alibaba Cloud KMS',
};

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const REF_PATH = /^[a-z0-9][a-z0-9-]*(\/[a-z0-9][a-z0-9-]*)*$/;

/** Names Dagu sets for a run or a step, which a secret may not take (Dagu's reservedSecretEnvNames). */
export const RESERVED_SECRET_NAMES: readonly string[] = [
  'DAG_NAME',
  'DAG_RUN_ID',
  'DAG_RUN_LOG_FILE',
  'DAG_RUN_STEP_NAME',
  'DAG_RUN_STEP_STDOUT_FILE',
  'DAG_RUN_STEP_STDERR_FILE',
  'DAG_RUN_STATUS',
  'DAG_WIKI_DIR',
  'DAG_DOCS_DIR',
  'DAG_PARAMS_JSON',
  'DAGU_PARAMS_JSON',
  'DAG_RUN_WORK_DIR',
  'DAG_RUN_ARTIFACTS_DIR',
  'DAG_PUSHBACK',
  'DAG_PUSHBACK_ITERATION',
  'DAG_PUSHBACK_PREVIOUS_STDOUT_FILE',
  'DAGU_EXTERNAL_STEP_RETRY',
  'DAGU_QUEUE_DISPATCH_RETRY',
];

const KEYS = ['name', 'ref', 'provider', 'key', 'options'];

export function readSecrets(r: DagReader, entry: Entry | undefined): SecretRef[] {
  if (!entry || isNull(entry.value)) return [];
  const items = r.list(entry, 'secrets');
  if (!items) return [];
  const secrets: SecretRef[] = [];
  const names = new Set<string>();
  items.forEach((item, i) => {
    const map = r.map(item, KEYS, 'a secret', undefined, true);
    if (!map) return;
    const name = r.string(map.get('name'));
    if (name === undefined || name === '') {
      if (!map.get('name') || isNull(map.get('name')!.value))
        r.errorAt(item, `secret at index ${i}: 'name' field is required`);
      return;
    }
    const fail = (message: string) => r.errorAt(item, message);
    if (!NAME.test(name))
      return fail(`secret ${JSON.stringify(name)} must be a valid environment variable name`);
    if (name.startsWith('DAGU_')) return fail(`secret ${JSON.stringify(name)} must not start with DAGU_`);
    if (RESERVED_SECRET_NAMES.includes(name))
      return fail(`secret ${JSON.stringify(name)} collides with Dagu-managed runtime environment variable`);
    if (names.has(name)) return fail(`duplicate secret name ${JSON.stringify(name)}`);
    names.add(name);
    const ref = r.string(map.get('ref'))?.trim() ?? '';
    const provider = r.string(map.get('provider'))?.trim() ?? '';
    const key = r.string(map.get('key'))?.trim() ?? '';
    const options = readOptions(r, map.get('options'));
    if ((ref !== '' && (provider !== '' || key !== '')) || (ref === '' && (provider === '' || key === '')))
      return fail(
        `secret ${JSON.stringify(name)}: exactly one of 'ref' or 'provider' plus 'key' is required`,
      );
    if (ref !== '') {
      if (options !== null && Object.keys(options).length > 0)
        return fail(`secret ${JSON.stringify(name)}: 'options' cannot be used with registry ref`);
      if (!REF_PATH.test(ref))
        return fail(
          `secret ${JSON.stringify(name)}: registry ref must be a slash-separated lowercase slug path`,
        );
      r.unsupported(
        map.get('ref')!.keyNode,
        map.get('ref')!.field,
        "Dagu's secret registry (ref) is not supported by this product (it keeps no team secrets; use provider env or file)",
      );
      return;
    }
    if (Object.hasOwn(OTHER_PROVIDERS, provider)) {
      r.unsupported(
        map.get('provider')!.value,
        map.get('provider')!.field,
        `Dagu's ${provider} secret provider is not supported by this product (it does not talk to ${OTHER_PROVIDERS[provider]}; use provider env or file)`,
      );
      return;
    }
    if (!(SECRET_PROVIDERS as readonly string[]).includes(provider))
      return r.errorAt(map.get('provider')!, `unknown secret provider: ${provider}`);
    secrets.push({ name, provider: provider as SecretRef['provider'], key });
  });
  return secrets;
}

/** Provider options: a map of strings (none of the providers read here takes any). */
function readOptions(r: DagReader, entry: Entry | undefined): Record<string, string> | null {
  if (!entry || isNull(entry.value)) return null;
  const map = r.map(entry, null, 'options');
  if (!map) return null;
  const out: Record<string, string> = {};
  for (const item of map.values()) {
    const v = r.string(item);
    if (v !== undefined) out[item.key] = v;
  }
  return out;
}
