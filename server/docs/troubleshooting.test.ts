// docs/troubleshooting.md lists every message the product logs, each with its level, what it means and what
// to do; a log line added or renamed in server/ without a row here fails CI with the missing lines listed.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { productLogMessages } from './logMessages';
import { documents, logRows } from './logTable';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PAGE = 'docs/troubleshooting.md';
const rows = logRows(readFileSync(path.join(ROOT, PAGE), 'utf8'));
const messages = productLogMessages(ROOT);

/**
 * Messages logged through a helper rather than as a literal, so the extractor cannot see them; each is
 * documented by hand. server/api/security.ts exposureWarning(): the unauthenticated-server warning.
 */
const LOGGED_THROUGH_HELPERS = ['The console and API listen on '];

describe('the troubleshooting page', () => {
  it('finds the log calls of the product', () => {
    expect(messages.length).toBeGreaterThan(100);
    expect(messages.map((m) => m.text)).toContain('Took over the scheduler lock from a failed instance');
  });

  it('has a row, with the same level, for every message the product logs', () => {
    const missing = messages
      .filter((m) => !rows.some((row) => documents(row, m)))
      .map((m) => `${m.level} "${m.text}"${m.complete ? '' : '…'} (${m.where})`);
    expect(
      missing,
      `log lines without a row in ${PAGE} (| level | \`message\` | meaning | what to do |)`,
    ).toEqual([]);
  });

  it('says for every row what it means and what to do', () => {
    const thin = rows.filter((r) => r.messages.length === 0 || r.meaning === '' || r.action === '');
    expect(thin.map((r) => `${PAGE}:${r.line}`)).toEqual([]);
  });

  it('documents no message the product no longer logs', () => {
    const stale = rows
      .flatMap((r) => r.messages.map((span) => ({ span, line: r.line })))
      .filter(
        ({ span }) =>
          !messages.some((m) => (m.complete ? span === m.text : span.startsWith(m.text))) &&
          !LOGGED_THROUGH_HELPERS.some((prefix) => span.startsWith(prefix)),
      )
      .map(({ span, line }) => `${PAGE}:${line}: "${span}"`);
    expect(stale).toEqual([]);
  });
});

describe('reading the log tables', () => {
  const page = [
    '| Level | Message | Meaning | What to do |',
    '| --- | --- | --- | --- |',
    '| warn | `Queue pass failed; retrying` | Reading failed \\| retried. | Check the storage. |',
    '| error | `Stopped being the active scheduler: <reason>; exiting` | Lost the lock. | Nothing. |',
    '| Message | Meaning | What to do |',
    '| `dagu: …` | not a log table | — |',
  ].join('\n');
  const [retry, stopped, ...others] = logRows(page);

  it('reads level, message, meaning and action of each row of a log table', () => {
    expect(others).toEqual([]);
    expect(retry).toEqual({
      level: 'warn',
      messages: ['Queue pass failed; retrying'],
      meaning: 'Reading failed \\| retried.',
      action: 'Check the storage.',
      line: 3,
    });
  });

  it('matches a whole message exactly and a template by its start, at the same level only', () => {
    expect(documents(retry, { level: 'warn', text: 'Queue pass failed; retrying', complete: true })).toBe(
      true,
    );
    expect(documents(retry, { level: 'warn', text: 'Queue pass failed', complete: true })).toBe(false);
    expect(documents(retry, { level: 'error', text: 'Queue pass failed; retrying', complete: true })).toBe(
      false,
    );
    expect(
      documents(stopped, { level: 'error', text: 'Stopped being the active scheduler: ', complete: false }),
    ).toBe(true);
  });
});
