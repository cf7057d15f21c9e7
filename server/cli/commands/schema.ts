// `dagu schema <dag|config> [path]`: the keys of a DAG file or of config.yaml and what this product does with
// each, read from our reference pages (docs/dag-reference.md, docs/configuration.md) shipped beside bin/.
// Dagu prints its JSON schema here; ours is the reference's tables, which also say what is supported.

import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { EXIT_OK, EXIT_RUN_FAILED, UsageError } from '../exit';
import { describeSchemaPath, readDocKeys } from './schemaDocs';

const PAGES = { dag: 'dag-reference.md', config: 'configuration.md' } as const;

export function schemaCommand(which: string, keyPath: string | undefined): number {
  if (!Object.hasOwn(PAGES, which))
    throw new UsageError(`unknown schema ${JSON.stringify(which)}: use dag or config`);
  const page = PAGES[which as keyof typeof PAGES];
  const file = findPage(page);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(
      `cannot read the reference ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)}); ` +
        'it is installed with dagu, in docs/ beside bin/',
      EXIT_RUN_FAILED,
    );
  }
  const lines = describeSchemaPath(readDocKeys(text), keyPath);
  if (lines === null)
    throw new UsageError(
      `${JSON.stringify(keyPath)} is not a documented key of the ${which} reference ` +
        `(dagu schema ${which} lists the top-level keys)`,
      EXIT_RUN_FAILED,
    );
  process.stdout.write(`${lines.join('\n')}\n`);
  return EXIT_OK;
}

/**
 * `docs/<page>` of this installation: in the first folder above the launcher that runs us (`bin/dagu`, or
 * `server/cli/main.ts` from source; followed through links) that has it.
 */
function findPage(page: string): string {
  const launcher = process.argv[1] ? realpathSync(process.argv[1]) : path.join(process.cwd(), 'x');
  let dir = path.dirname(launcher);
  for (let up = 0; up < 4; up++) {
    const candidate = path.join(dir, 'docs', page);
    if (existsSync(candidate)) return candidate;
    dir = path.dirname(dir);
  }
  return path.resolve(path.dirname(launcher), '..', 'docs', page);
}
