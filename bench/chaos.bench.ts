// Chaos soak (issue 6): three schedulers on one data directory under a supervisor, a coordinator and two
// workers, and a seeded chaos driver; prints the figures with the seed and exits 1 if a must-be-0 figure is not.
// On PostgreSQL (--backend postgres) the members share only a throwaway database and the faults include the
// database's own (restart, stall past T, connections killed, a scheduler cut off).
// Run: npm run bench -- chaos [--backend file|postgres] [--cycles N] [--seed S] [--keep]

import { runSoak } from './chaos/soak';

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const backend = flag('--backend') ?? 'file';
if (backend !== 'file' && backend !== 'postgres')
  throw new Error(`--backend: expected file or postgres, got ${backend}`);
const cycles = Number(flag('--cycles') ?? 20);
const seed = Number(flag('--seed') ?? Math.floor(Math.random() * 2 ** 31));
if (!Number.isInteger(cycles) || cycles < 1)
  throw new Error(`--cycles: expected a positive integer, got ${flag('--cycles')}`);
if (!Number.isInteger(seed)) throw new Error(`--seed: expected an integer, got ${flag('--seed')}`);

const started = performance.now();
const result = await runSoak({
  backend,
  cycles,
  seed,
  keep: process.argv.includes('--keep'),
  log: (l) => process.stdout.write(`  ${l}\n`),
});
// The failures first: a log cut short still names them.
if (result.failures.length > 0) {
  process.stdout.write(`\nFAILED (seed ${seed}):\n${result.failures.map((f) => `  ${f}`).join('\n')}\n`);
  process.exitCode = 1;
}
if (result.skips.length > 0)
  process.stdout.write(
    `\nslots not run, for a reason the design allows:\n${result.skips.map((s) => `  ${s}`).join('\n')}\n`,
  );
process.stdout.write(`\n${result.lines.join('\n')}\n`);
process.stdout.write(`wall time ${((performance.now() - started) / 60_000).toFixed(1)} min\n`);
if (result.failures.length > 0) process.stdout.write(`FAILED (seed ${seed}): see above\n`);
