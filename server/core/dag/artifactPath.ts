// The rules an artifact path follows, as Dagu checks them for `stdout: {artifact}`, `stderr: {artifact}` and
// the `artifact.*` actions: relative, slash-separated, no `..` segment (so it cannot leave the run's
// artifacts directory), and naming something below the directory. Pure: the runner joins the clean path to
// the directory itself.

/** What cleaning gave: the clean relative path (`.` for the directory itself), or why it is refused. */
export type CleanedArtifactPath = { ok: true; path: string } | { ok: false; error: string };

/** DAG_RUN_ARTIFACTS_DIR, the variable a run's steps find their artifacts directory in. */
export const ARTIFACTS_DIR_VAR = 'DAG_RUN_ARTIFACTS_DIR';

function hasDrive(text: string): boolean {
  return /^[A-Za-z]:/.test(text);
}

/**
 * Cleans an artifact path: trimmed, backslashes read as slashes, `.` and empty segments dropped. `allowRoot`:
 * an empty path or `.` stands for the directory itself (`artifact.list`); otherwise it is refused.
 */
export function cleanArtifactPath(raw: string, allowRoot = false): CleanedArtifactPath {
  const text = raw.trim();
  if (text === '') {
    return allowRoot ? { ok: true, path: '.' } : { ok: false, error: 'artifact path must not be empty' };
  }
  const slashed = text.replace(/\\/g, '/');
  if (slashed.startsWith('/') || slashed === '~' || slashed.startsWith('~/') || hasDrive(slashed)) {
    return { ok: false, error: 'artifact path must be relative' };
  }
  const segments = slashed.split('/');
  if (segments.includes('..')) {
    return { ok: false, error: 'artifact path must not contain parent directory segments (..)' };
  }
  const kept = segments.filter((s) => s !== '' && s !== '.');
  if (kept.length === 0) {
    return allowRoot ? { ok: true, path: '.' } : { ok: false, error: 'artifact path must name a file' };
  }
  return { ok: true, path: kept.join('/') };
}

/** Whether a text holds a `${...}` reference, so it can only be checked once resolved. */
export function hasReference(text: string): boolean {
  return /\$\{[^{}]+\}|\$[A-Za-z_]/.test(text);
}

const NAME = ARTIFACTS_DIR_VAR;
/**
 * A text that refers to the run's artifacts directory, in any of the forms Dagu looks for when it decides to
 * turn artifacts on by itself: `${DAG_RUN_ARTIFACTS_DIR}`, `${env.DAG_RUN_ARTIFACTS_DIR}`,
 * `${context.paths.artifacts_dir}`, `$DAG_RUN_ARTIFACTS_DIR`, PowerShell's `$env:…`, cmd's `%…%`, and
 * `env("…")` / `env('…')`.
 */
const REFERENCE = new RegExp(
  [
    `\\$\\{${NAME}\\}`,
    `\\$\\{env\\.${NAME}\\}`,
    `\\$\\{context\\.paths\\.artifacts_dir\\}`,
    `\\$${NAME}(?![A-Za-z0-9_])`,
    `\\$env:${NAME}(?![A-Za-z0-9_])`,
    `%${NAME}%`,
    `env\\(["']${NAME}["']\\)`,
  ].join('|'),
);

export function refersToArtifactsDir(text: string): boolean {
  return REFERENCE.test(text);
}
