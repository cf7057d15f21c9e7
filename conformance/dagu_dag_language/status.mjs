// Turns a Vitest JSON report of this suite into a Markdown table: case, pass/fail, and the first mismatch.
// Usage: npx vitest run --project integration conformance/dagu_dag_language --reporter=json --outputFile=r.json
//        node conformance/dagu_dag_language/status.mjs r.json > status.md

import { readFileSync } from 'node:fs';

const report = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const rows = report.testResults.flatMap((f) => f.assertionResults);
const reason = (t) => {
  const msg = t.failureMessages?.[0] ?? '';
  const mismatch = msg.split('\n').find((l) => l.includes('✗'));
  return (mismatch ?? msg.split('\n')[0]).trim().replace(/\|/g, '\\|').slice(0, 200);
};
const passed = rows.filter((t) => t.status === 'passed').length;
const out = [
  `# Dagu DAG language conformance: ${passed} passed, ${rows.length - passed} failed (${rows.length} cases)`,
  '',
  '| case | result | first mismatch |',
  '|---|---|---|',
  ...rows.map(
    (t) =>
      `| ${t.title.replace(/\|/g, '\\|')} | ${t.status === 'passed' ? 'pass' : 'FAIL'} | ${t.status === 'passed' ? '' : reason(t)} |`,
  ),
];
process.stdout.write(`${out.join('\n')}\n`);
