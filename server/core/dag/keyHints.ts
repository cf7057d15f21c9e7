// Hints for unknown keys in DAG files: the snake_case form of a camelCase key, a known alias, or a near miss.

/** Keys people bring from other versions of Dagu or other tools, and what this one calls them. */
const ALIASES: Record<string, string> = {
  working_dir: 'dir',
  run: 'command',
  labels: 'tags',
  depend: 'depends',
  dependencies: 'depends',
  timeout: 'timeout_sec',
  retry: 'retry_policy',
  handlers: 'handler_on',
  cron: 'schedule',
};

/** The message for a key that is not in `allowed`, with the most useful hint there is. */
export function unknownKeyMessage(key: string, allowed: readonly string[]): string {
  const snake = key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  if (snake !== key && allowed.includes(snake)) return `unknown key "${key}" (use snake_case: ${snake})`;
  const alias = ALIASES[snake];
  if (alias && allowed.includes(alias)) return `unknown key "${key}" (use ${alias})`;
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
