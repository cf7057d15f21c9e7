// The keys a DAG file may use, as the parser itself reports them, and the keys docs/dag-reference.md
// documents, so a test can hold the two to each other.

import { parseDag } from '../core/dag/parseDag';

const PROBE = 'zz_probe_key_nobody_uses';

/**
 * A DAG file with the probe key in every map whose keys the parser checks: the DAG, its retry policy, signal
 * handling, handlers, a handler step, and a step with its `continue_on` and retry policy.
 */
const PROBE_DAG = `
${PROBE}: 1
retry_policy: { limit: 1, ${PROBE}: 1 }
signal_handling: { ${PROBE}: 1 }
handler_on:
  ${PROBE}: 1
  failure: { command: "true", ${PROBE}: 1 }
steps:
  - name: a
    command: "true"
    ${PROBE}: 1
    continue_on: { ${PROBE}: 1 }
    retry_policy: { limit: 1, ${PROBE}: 1 }
`;

/**
 * Where the docs describe each map: a handler is documented as a step, and one retry-policy table serves
 * both levels because one reader (readRetryPolicy) reads both.
 */
function documentedPrefix(field: string): string {
  return field
    .replace(/\[\d+\]/g, '[]')
    .replace(/^handler_on\.(success|failure|abort|exit)\b/, 'steps[]')
    .replace(/^steps\[\]\.retry_policy\b/, 'retry_policy');
}

/** Every key path the DAG parser accepts (`name`, `steps[].command`, `retry_policy.limit`, ...), sorted. */
export function dagSchemaKeys(): string[] {
  const result = parseDag(PROBE_DAG, { file: null, defaultName: 'probe' });
  if (result.ok) throw new Error('the probe DAG was accepted: the parser no longer rejects unknown keys');
  const keys = new Set<string>();
  for (const e of result.errors) {
    const allowed = /^unknown key "[^"]+" \(allowed: (.+)\)$/.exec(e.message);
    if (!e.field.endsWith(PROBE) || !allowed) {
      throw new Error(`unexpected error from the probe DAG: ${e.field}: ${e.message}`);
    }
    const map = documentedPrefix(e.field.slice(0, -PROBE.length));
    for (const key of allowed[1].split(', ')) keys.add(`${map}${key}`);
  }
  return [...keys].sort();
}

/** Key paths of a Markdown page: the first cell of a table row, when it is one code span like `steps[].dir`. */
export function documentedDagKeys(markdown: string): string[] {
  const keys = new Set<string>();
  for (const line of markdown.split('\n')) {
    const m = /^\|\s*`([a-z_]+(?:\[\])?(?:\.[a-z_]+(?:\[\])?)*)`\s*\|/.exec(line);
    if (m) keys.add(m[1]);
  }
  return [...keys].sort();
}
