// Dagu 1.x runs the backtick parts of `env` values as commands, and the value gets their output. A file read
// with 1.x meaning names such entries in `env_eval` (server/core/dag/dagu1.ts); this runs them, in order, where
// the run's (or the step's) environment is built. `$( )` stays text, as in 1.x.

import { substituteCommand } from './commandSubstitution';

export interface EnvBacktickOptions {
  /** The shell the bodies run in, as words (`sh`). */
  shell: readonly string[];
  cwd: string;
  /** The environment the bodies see; each evaluated entry is added for the later ones. */
  env: NodeJS.ProcessEnv;
  /** How long one body may run; no limit by default, as in 1.x. */
  timeoutMs?: number | null;
  signal?: AbortSignal;
}

export type EnvBacktickResult = { ok: true; env: Record<string, string> } | { ok: false; error: string };

/**
 * `env` with the backtick parts of the entries in `names` replaced by their commands' output (trailing line
 * breaks removed). Entries not named are kept as they are. Fails with the first command that fails.
 */
export async function runEnvBackticks(
  env: Readonly<Record<string, string>>,
  names: readonly string[] | undefined,
  o: EnvBacktickOptions,
): Promise<EnvBacktickResult> {
  const out: Record<string, string> = Object.assign(Object.create(null) as Record<string, string>, env);
  if (!names || names.length === 0) return { ok: true, env: out };
  const seen: NodeJS.ProcessEnv = { ...o.env };
  for (const [name, value] of Object.entries(env)) {
    if (!names.includes(name)) {
      seen[name] = value;
      continue;
    }
    let text = '';
    let last = 0;
    for (const m of value.matchAll(/`([^`]*)`/g)) {
      text += value.slice(last, m.index);
      last = m.index + m[0].length;
      try {
        const stdout = await substituteCommand(o.shell, m[1], {
          cwd: o.cwd,
          env: seen,
          timeoutMs: o.timeoutMs ?? null,
          signal: o.signal,
        });
        text += stdout.replace(/\n+$/, '');
      } catch (err) {
        return { ok: false, error: `env ${name}: command \`${m[1]}\` failed: ${(err as Error).message}` };
      }
    }
    text += value.slice(last);
    out[name] = text;
    seen[name] = text;
  }
  return { ok: true, env: out };
}
