// Generates components/dags/editor/dagKeyDocs.json, the editor's side panel of key documentation, from the
// key tables of docs/dag-reference.md (the same rows `dagu schema dag <key>` prints), so the console documents
// exactly the DAG language this product reads. `npm run gen:keydocs` writes it; a unit test fails while the
// checked-in table differs from the page.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const REFERENCE_FILE = 'docs/dag-reference.md';
export const KEY_DOCS_FILE = 'components/dags/editor/dagKeyDocs.json';

/** The table as JSON text: `{path: [{key, status, shapes, meaning}]}`, rows of DAG keys only, in page order. */
export async function generateKeyDocs() {
  const { readDocKeys } = await import(
    pathToFileURL(path.join(ROOT, 'server/cli/commands/schemaDocs.ts')).href
  );
  const table = {};
  for (const row of readDocKeys(readFileSync(path.join(ROOT, REFERENCE_FILE), 'utf8'))) {
    const cells = Object.fromEntries(row.fields);
    const meaning = cells.Meaning ?? cells.Why;
    // Key rows only: the environment-variable tables have a Value column instead.
    if (meaning === undefined || !/^[a-z_][a-z0-9_]*(\[\])?(\.[a-z_][a-z0-9_]*(\[\])?)*$/.test(row.key))
      continue;
    (table[row.path] ??= []).push({
      key: row.key,
      status: cells.Status ?? '',
      shapes: cells['Shapes and default'] ?? '',
      meaning,
    });
  }
  return `${JSON.stringify(table, null, 1)}\n`;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  // Written as Prettier writes it, so that `npm run check` (part of `npm test`) passes without a second step.
  const prettier = await import('prettier');
  const file = path.join(ROOT, KEY_DOCS_FILE);
  const options = (await prettier.resolveConfig(file)) ?? {};
  writeFileSync(file, await prettier.format(await generateKeyDocs(), { ...options, filepath: file }));
  console.log(`wrote ${KEY_DOCS_FILE} from ${REFERENCE_FILE}`);
}
