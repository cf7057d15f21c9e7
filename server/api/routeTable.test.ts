import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { API_ROUTES } from '../../app/api/v1/routeTable';

const API_DIR = path.resolve(import.meta.dirname, '../../app/api/v1');

/** Every route.ts under app/api/v1, as a path with `:param` segments (the catch-all left out). */
function routeFiles(dir: string, prefix = '/api/v1'): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) {
      if (name.startsWith('[...')) continue;
      const seg = name.startsWith('[') ? `:${name.slice(1, -1)}` : name;
      out.push(...routeFiles(full, `${prefix}/${seg}`));
    } else if (name === 'route.ts') out.push(prefix);
  }
  return out;
}

describe('the API route table', () => {
  it('lists every route handler file, so dagu server serves the same API as Next', () => {
    expect(API_ROUTES.map((r) => r.path).sort()).toEqual(routeFiles(API_DIR).sort());
  });
});
