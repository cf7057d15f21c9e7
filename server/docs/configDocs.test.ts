// docs/configuration.md is generated from the settings table; this fails CI when the two drift apart.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../config/settings';
import { CONFIG_DOC_FILE, generateConfigDocs } from '../../scripts/gen-config-docs.mjs';

const ROOT = path.resolve(import.meta.dirname, '../..');
const page = readFileSync(path.join(ROOT, CONFIG_DOC_FILE), 'utf8');

describe('the configuration reference', () => {
  it('is what the settings table generates (run `npm run gen:docs` after changing a setting)', async () => {
    expect(page, `${CONFIG_DOC_FILE} is stale: run \`npm run gen:docs\``).toBe(
      await generateConfigDocs(ROOT),
    );
  });

  it('has a row for every setting, naming its key and its environment variable', () => {
    const missing = SETTINGS.filter((s) => !page.includes(`| \`${s.key}\` | \`${s.env}\``)).map((s) => s.key);
    expect(missing).toEqual([]);
  });
});
