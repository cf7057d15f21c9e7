// Generates components/apiSchema.ts (the console's API types) from server/api/openapi.yaml with
// openapi-typescript, formatted by the project's Prettier settings so the checked-in file passes
// `prettier --check`. `npm run gen:api` writes it; server/api/openapi.test.ts compares it with a fresh run.
import openapiTS, { astToString } from 'openapi-typescript';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import prettier from 'prettier';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SPEC_FILE = 'server/api/openapi.yaml';
export const SCHEMA_FILE = 'components/apiSchema.ts';

const HEADER = `// GENERATED from ${SPEC_FILE} by scripts/gen-api-types.mjs: do not edit. Run \`npm run gen:api\`
// after changing the OpenAPI file. components/apiTypes.ts gives these types the names the console uses.
`;

/** The text components/apiSchema.ts should have for the OpenAPI file as it is now. */
export async function generateApiSchema(root = ROOT) {
  const ast = await openapiTS(pathToFileURL(path.join(root, SPEC_FILE)), { silent: true });
  const target = path.join(root, SCHEMA_FILE);
  const options = (await prettier.resolveConfig(target)) ?? {};
  return prettier.format(`${HEADER}\n${astToString(ast)}`, { ...options, filepath: target });
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const text = await generateApiSchema();
  writeFileSync(path.join(ROOT, SCHEMA_FILE), text);
  console.log(`wrote ${SCHEMA_FILE} from ${SPEC_FILE}`);
}
