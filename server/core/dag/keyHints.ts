// Hints for keys a DAG file may not use: Dagu 1.x camelCase spellings, keys Dagu removed, and near misses.

/** Keys Dagu 2.x removed, with what replaces them (the same hint at every level they appeared). */
const REMOVED_KEYS: Record<string, string> = {
  precondition: 'use preconditions',
  dir: 'use working_dir',
  executor: 'use action and with',
  cancel: 'the handler is now called abort',
};

/** camelCase spellings whose snake_case form is not a plain conversion. */
const IRREGULAR_CAMEL: Record<string, string> = {
  artifactDir: 'artifacts.dir',
  enableArtifact: 'artifacts.enabled',
  forwardHeaders: 'webhook.forward_headers',
  disableRunIdEdit: 'disable_run_id_edit',
  disableSSL: 'disable_ssl',
  baseURL: 'base_url',
};

/**
 * The message for a key that is not in `allowed`: a removed key says what replaced it, a camelCase key its
 * snake_case form (Dagu rejects both the same way), anything else a near miss or the allowed list.
 */
export function unknownKeyMessage(key: string, allowed: readonly string[]): string {
  const removed = REMOVED_KEYS[key];
  if (removed) return `key "${key}" was removed from Dagu's DAG language; ${removed}`;
  // Reached only by maps whose keys keep their case (the others fold it before asking).
  if (key !== key.toLowerCase() && allowed.includes(key.toLowerCase())) {
    return `unknown key "${key}": here, as in Dagu, these keys are matched in lower case only; use ${key.toLowerCase()}`;
  }
  const snake =
    IRREGULAR_CAMEL[key] ??
    key.replace(/^[A-Z]/, (c) => c.toLowerCase()).replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  if (snake !== key && (allowed.includes(snake) || key in IRREGULAR_CAMEL)) {
    return `unknown key "${key}": Dagu keys are snake_case; use ${snake}`;
  }
  const near = allowed.find((k) => editDistance(k, snake) <= (k.length > 4 ? 2 : 1));
  if (near) return `unknown key "${key}" (did you mean ${near}?)`;
  return `unknown key "${key}" (allowed: ${allowed.join(', ')})`;
}

/** Levenshtein distance: how many single-character edits turn `a` into `b`. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}
