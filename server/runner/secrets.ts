// Resolves a run's `secrets:` when it starts, after its env and dotenv, as Dagu's agent does: the `env` provider
// reads the DAG's env (dotenv included), then a value a parent process handed down, then the host; the `file`
// provider reads a file's whole content (nothing trimmed), a relative path looked up in the DAG's working
// directory and then beside the DAG file. Any secret that cannot be read fails the run before its first step.

import { isAbsolute, join } from 'node:path';
import type { SecretRef } from '../core/types';
import * as files from '../store/fileCalls';
import { errorText } from './statusReporter';

/** A value resolved by a parent process for a child, read by the `env` provider before the host's own. */
export const PRESOLVED_SECRET_PREFIX = '_DAGU_PRESOLVED_SECRET_';

export interface SecretSources {
  /** The DAG's env and dotenv variables (not params, not the host's). */
  dagEnv: Readonly<Record<string, string>>;
  /** The dagu process's whole environment. */
  hostEnv: Readonly<Record<string, string | undefined>>;
  /** Where a relative `file` key is looked for, in order: the DAG's working directory, the DAG file's. */
  baseDirs: readonly string[];
}

export type SecretsResolved = { ok: true; values: Array<[string, string]> } | { ok: false; error: string };

export async function resolveSecrets(
  refs: readonly SecretRef[],
  src: SecretSources,
): Promise<SecretsResolved> {
  const values: Array<[string, string]> = [];
  for (const ref of refs) {
    const got = ref.provider === 'env' ? fromEnv(ref.key, src) : await fromFile(ref.key, src.baseDirs);
    if (!got.ok) {
      return {
        ok: false,
        error: `failed to resolve secrets: failed to resolve secret ${JSON.stringify(ref.name)} from provider ${JSON.stringify(ref.provider)}: ${got.error}`,
      };
    }
    values.push([ref.name, got.value]);
  }
  return { ok: true, values };
}

type Got = { ok: true; value: string } | { ok: false; error: string };

function fromEnv(key: string, src: SecretSources): Got {
  if (Object.hasOwn(src.dagEnv, key)) return { ok: true, value: src.dagEnv[key] };
  const handed = src.hostEnv[PRESOLVED_SECRET_PREFIX + key];
  if (handed !== undefined) return { ok: true, value: handed };
  const host = src.hostEnv[key];
  if (host !== undefined) return { ok: true, value: host };
  return { ok: false, error: `environment variable ${JSON.stringify(key)} is not set` };
}

/** Larger than any credential: a key naming a log or a device by mistake fails instead of filling memory. */
const MAX_SECRET_FILE_BYTES = 1024 * 1024;

async function fromFile(key: string, baseDirs: readonly string[]): Promise<Got> {
  const path = await locate(key, baseDirs);
  try {
    const info = await files.stat(path);
    if (info.isDirectory()) return { ok: false, error: `secret path is a directory, not a file: ${path}` };
    if (!info.isFile()) return { ok: false, error: `secret path is not a regular file: ${path}` };
    if (info.size > MAX_SECRET_FILE_BYTES)
      return { ok: false, error: `secret file ${path} is larger than 1 MiB (${info.size} bytes)` };
    return { ok: true, value: await files.readText(path) };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ok: false, error: `secret file not found: ${path}` };
    if (code === 'EACCES' || code === 'EPERM')
      return { ok: false, error: `permission denied reading secret file: ${path}` };
    return { ok: false, error: `failed to read secret file ${path}: ${errorText(err)}` };
  }
}

/** An absolute key as it is; a relative one in the first base directory that has it, else as written. */
async function locate(key: string, baseDirs: readonly string[]): Promise<string> {
  if (isAbsolute(key)) return key;
  for (const dir of baseDirs) {
    if (dir === '') continue;
    const candidate = join(dir, key);
    if (
      await files.stat(candidate).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  }
  return key;
}
