import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dotenvLoadOrder, loadDotenv, parseDotenv } from './dotenv';
import { tempDir } from './testSupport';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

describe('dotenv', () => {
  it('loads .env first, then the listed files once each', () => {
    expect(dotenvLoadOrder(['a.env', '.env', 'a.env'])).toEqual(['.env', 'a.env']);
    expect(dotenvLoadOrder([])).toEqual(['.env']);
  });

  it('reads each file from the working directory, else the DAG file directory, and skips missing ones', async () => {
    const work = join(dir, 'work');
    const file = join(dir, 'dags');
    mkdirSync(work);
    mkdirSync(file);
    writeFileSync(join(work, '.env'), 'A=work\nB="quoted value"\n');
    writeFileSync(join(file, '.env'), 'A=file-dir\n');
    writeFileSync(join(file, 'extra.env'), '# comment\nA=extra\nC=3\n');
    const result = await loadDotenv(['extra.env', 'missing.env'], [work, file]);
    expect(result.values).toEqual([
      ['A', 'work'],
      ['B', 'quoted value'],
      ['A', 'extra'],
      ['C', '3'],
    ]);
    expect(result.warnings).toEqual([]);
  });

  it('reads an absolute path as given', async () => {
    writeFileSync(join(dir, 'abs.env'), 'X=1\n');
    expect((await loadDotenv([join(dir, 'abs.env')], ['/nonexistent'])).values).toEqual([['X', '1']]);
  });
});

describe('parseDotenv (the rules of the Go library Dagu reads .env files with)', () => {
  const parsed = (text: string) => Object.fromEntries(parseDotenv(text));

  it('fills $NAME and ${NAME} in unquoted and double-quoted values from the lines before, else empty', () => {
    expect(
      parsed(
        [
          'HOST=db.local',
          'URL=http://$HOST:${PORT}/x',
          'Q="at ${HOST}"',
          "S='at ${HOST}'",
          'ESC=\\$HOST',
          'LOWER=${host} $(cmd) $',
          'PORT=5432',
        ].join('\n'),
      ),
    ).toEqual({
      HOST: 'db.local',
      URL: 'http://db.local:/x',
      Q: 'at db.local',
      S: 'at ${HOST}',
      ESC: '$HOST',
      LOWER: '${host} $(cmd) $',
      PORT: '5432',
    });
  });

  it('unescapes double-quoted values (\\n, \\r, \\" and any other \\x) and keeps single-quoted ones as written', () => {
    expect(parsed('A="l1\\nl2"\nB="say \\"hi\\" \\q"\nC=\'raw\\n\'\n')).toEqual({
      A: 'l1\nl2',
      B: 'say "hi" q',
      C: 'raw\\n',
    });
  });

  it('reads export, KEY: value, comments, CRLF and a multi-line quoted value', () => {
    expect(
      parsed('# top\r\nexport A=1\r\nB: two # note\r\nC=x#y\r\nD="first\nsecond"\r\n  E = spaced  \r\n'),
    ).toEqual({ A: '1', B: 'two', C: 'x#y', D: 'first\nsecond', E: 'spaced' });
  });

  it('refuses a name with a character Dagu does not allow, and an unterminated quote', () => {
    expect(() => parseDotenv('MY-KEY=x\n')).toThrow(/unexpected character "-" in variable name/);
    expect(() => parseDotenv('A="open\n')).toThrow(/unterminated quoted value/);
  });

  it('skips a file it cannot parse with a warning, and keeps loading the others', async () => {
    writeFileSync(join(dir, '.env'), 'MY-KEY=x\n');
    writeFileSync(join(dir, 'ok.env'), 'A=1\n');
    const result = await loadDotenv(['ok.env'], [dir]);
    expect(result.values).toEqual([['A', '1']]);
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toMatch(/failed to load dotenv file .*unexpected character/);
  });
});
