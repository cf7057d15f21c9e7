import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseDag } from '../core/dag/parseDag';
import type { DagSpec } from '../core/types';
import { loadDag } from './dagCatalog';
import { FileDagSpecCache, type CachedDag, type DagSpecCache } from './dagSpecCache';

const TEXT = 'schedule: "*/5 * * * *"\nenv:\n  - A: "1"\nsteps:\n  - name: s\n    command: echo hi\n';

function parsed(file: string, text = TEXT): CachedDag {
  const r = parseDag(text, { file, defaultName: 'etl' });
  if (!r.ok) throw new Error('fixture does not parse');
  return { dag: r.dag, warnings: r.warnings };
}

describe('FileDagSpecCache', () => {
  let root: string;
  let dir: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'dagu-dagcache-'));
    dir = path.join(root, 'cache', 'dags');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));
  const cache = (build = 'b1') => new FileDagSpecCache({ dir, build });
  const file = '/dags/etl.yaml';

  it('misses, then returns what was kept for the same file, text and build', async () => {
    expect(await cache().get(file, TEXT)).toBeNull();
    await cache().put(file, TEXT, parsed(file));
    expect(await cache().get(file, TEXT)).toStrictEqual(parsed(file));
  });

  it('never returns a parse for other text, another file or another build', async () => {
    await cache().put(file, TEXT, parsed(file));
    expect(await cache().get(file, `${TEXT}# edited\n`)).toBeNull();
    expect(await cache().get(file, TEXT.slice(0, -1))).toBeNull();
    expect(await cache().get('/other/etl.yaml', TEXT)).toBeNull();
    expect(await cache('b2').get(file, TEXT)).toBeNull();
  });

  it('keeps files of the same name in different folders apart', async () => {
    const other = '/elsewhere/etl.yaml';
    const otherText = TEXT.replace('echo hi', 'echo other');
    await cache().put(file, TEXT, parsed(file));
    await cache().put(other, otherText, parsed(other, otherText));
    expect((await cache().get(file, TEXT))?.dag.steps[0].command).toEqual(['echo hi']);
    expect((await cache().get(other, otherText))?.dag.steps[0].command).toEqual(['echo other']);
  });

  it('writes entries only its owner can read', async () => {
    await cache().put(file, TEXT, parsed(file));
    const [name] = readdirSync(dir);
    expect(statSync(path.join(dir, name)).mode & 0o777).toBe(0o600);
  });

  it('treats a corrupt or foreign entry as a miss, and the next parse replaces it', async () => {
    await cache().put(file, TEXT, parsed(file));
    const entry = path.join(dir, readdirSync(dir)[0]);
    for (const junk of ['', '{"format":1', 'null', '[]', JSON.stringify({ format: 99 })]) {
      writeFileSync(entry, junk);
      expect(await cache().get(file, TEXT)).toBeNull();
    }
    await cache().put(file, TEXT, parsed(file));
    expect(await cache().get(file, TEXT)).toStrictEqual(parsed(file));
  });

  it('keeps nothing that JSON would change', async () => {
    const odd = parsed(file);
    (odd.dag as unknown as { catchup_window_ms: number }).catchup_window_ms = Infinity;
    await cache().put(file, TEXT, odd);
    expect(await cache().get(file, TEXT)).toBeNull();
  });

  it('never throws when it cannot write', async () => {
    writeFileSync(path.join(root, 'cache'), 'a file where the folder should be'); // fails even for root
    await expect(cache().put(file, TEXT, parsed(file))).resolves.toBeUndefined();
    expect(await cache().get(file, TEXT)).toBeNull();
  });
});

describe('loadDag with a cache', () => {
  let dagsDir: string;
  beforeEach(() => {
    dagsDir = mkdtempSync(path.join(tmpdir(), 'dagu-dags-'));
  });
  afterEach(() => rmSync(dagsDir, { recursive: true, force: true }));

  /** A cache in memory that records what it was asked. */
  function memoryCache(): DagSpecCache & { gets: number; puts: number; entries: Map<string, CachedDag> } {
    const entries = new Map<string, CachedDag>();
    return {
      gets: 0,
      puts: 0,
      entries,
      async get(f, text) {
        this.gets++;
        return entries.get(`${f}\n${text}`) ?? null;
      },
      async put(f, text, p) {
        this.puts++;
        entries.set(`${f}\n${text}`, p);
      },
    };
  }

  it('returns the kept parse of an unchanged file without parsing it', async () => {
    const file = path.join(dagsDir, 'etl.yaml');
    writeFileSync(file, TEXT);
    const c = memoryCache();
    const first = await loadDag(dagsDir, 'etl', { cache: c });
    expect(first.ok).toBe(true);
    expect(c.puts).toBe(1);
    // What the cache holds is what loadDag returns: proof that the file was not parsed again.
    const kept = c.entries.get(`${file}\n${TEXT}`)!;
    const marked: DagSpec = { ...kept.dag, description: 'from the cache' };
    c.entries.set(`${file}\n${TEXT}`, { dag: marked, warnings: [] });
    const second = await loadDag(dagsDir, 'etl', { cache: c });
    expect(second).toEqual({ ok: true, dag: marked, warnings: [] });
    expect(c.puts).toBe(1);
  });

  it('parses an edited file and reports its errors, keeping nothing of an invalid one', async () => {
    const file = path.join(dagsDir, 'etl.yaml');
    writeFileSync(file, TEXT);
    const c = memoryCache();
    await loadDag(dagsDir, 'etl', { cache: c });
    writeFileSync(file, 'steps:\n  - name: s\n    comand: echo hi\n');
    const r = await loadDag(dagsDir, 'etl', { cache: c });
    expect(r.ok).toBe(false);
    expect('errors' in r && r.errors.find((e) => e.message.includes('comand'))).toMatchObject({
      file,
      line: 3,
    });
    expect(c.puts).toBe(1);
  });
});
