// The log-message extractor is what holds docs/troubleshooting.md to the code, so it is tested on its own.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { extractLogMessages, productSourceFiles } from './logMessages';

const texts = (source: string) => extractLogMessages(source, 'x.ts').map((m) => m.text);

describe('extractLogMessages', () => {
  it('finds string, double-quoted and template messages with their level and line', () => {
    const source = [
      "logger.info('Scheduler started', { dir });",
      'log.warn("Queue pass failed; retrying");',
      'this.d.logger.error(`Could not stop within ${s}s; exiting`);',
      'log.debug(`No placeholder here`);',
    ].join('\n');
    expect(extractLogMessages(source, 'server/a.ts')).toEqual([
      { level: 'info', text: 'Scheduler started', complete: true, where: 'server/a.ts:1' },
      { level: 'warn', text: 'Queue pass failed; retrying', complete: true, where: 'server/a.ts:2' },
      { level: 'error', text: 'Could not stop within ', complete: false, where: 'server/a.ts:3' },
      { level: 'debug', text: 'No placeholder here', complete: true, where: 'server/a.ts:4' },
    ]);
  });

  it('reads a message that starts on the line after the call', () => {
    const source = 'log.warn(\n  // why\n  "A long message",\n  { a: 1 },\n);';
    expect(extractLogMessages(source, 'x.ts')).toEqual([
      { level: 'warn', text: 'A long message', complete: true, where: 'x.ts:1' },
    ]);
  });

  it('takes both branches of a conditional message', () => {
    expect(texts("logger.info(held ? 'A worker claimed a held run' : 'A worker took a run');")).toEqual([
      'A worker claimed a held run',
      'A worker took a run',
    ]);
  });

  it('joins literals added together and stops at the first part that is not a literal', () => {
    expect(texts("log.info('Took ' + 'over');")).toEqual(['Took over']);
    const [m] = extractLogMessages("log.info('Took over ' + who + ' at once');", 'x.ts');
    expect(m).toMatchObject({ text: 'Took over ', complete: false });
  });

  it('ignores calls whose first argument is not a literal, comments, strings and other methods', () => {
    const source = [
      "r.error(node, 'steps', 'name is required');",
      'logger.warn(exposureWarning(listen));',
      "// logger.info('commented out')",
      'const s = "logger.info(\'inside a string\')";',
      "throw new Error('not a log line');",
      "logger.log('not a level');",
      "logger.info('');",
    ].join('\n');
    expect(texts(source)).toEqual([]);
  });
});

describe('productSourceFiles', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('lists shipped .ts files and leaves out tests, contracts, test helpers and simulations', () => {
    dir = mkdtempSync(path.join(tmpdir(), 'dagu-log-sources-'));
    const files = [
      'a/service.ts',
      'a/service.test.ts',
      'a/store.contract.ts',
      'a/testSupport.ts',
      'a/testing/harness.ts',
      'a/sim/world.ts',
      'a/types.d.ts',
      'a/readme.md',
      'b/testament.ts',
    ];
    for (const f of files) {
      mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
      writeFileSync(path.join(dir, f), '');
    }
    expect(productSourceFiles(dir).map((f) => path.relative(dir, f))).toEqual([
      'a/service.ts',
      'b/testament.ts',
    ]);
  });
});
