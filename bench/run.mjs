// `npm run bench`: runs every benchmark script in bench/ and prints its figures.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const only = process.argv[2];
for (const f of readdirSync('bench')
  .filter((n) => n.endsWith('.bench.ts'))
  .sort()) {
  if (only && !f.startsWith(only)) continue;
  process.stdout.write(`\n# ${f}\n`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', `bench/${f}`, ...process.argv.slice(3)], {
    stdio: 'inherit',
  });
  if (r.status !== 0) process.exitCode = 1;
}
