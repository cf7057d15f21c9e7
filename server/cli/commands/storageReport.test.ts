import { describe, expect, it } from 'vitest';
import { emptyReport, noteSkipped } from '../../store/transfer/transferReport';
import { formatTransferReport } from './storageReport';

describe('formatTransferReport', () => {
  it('prints a copy as counts per kind, every record left alone or skipped, and a verdict', () => {
    const r = emptyReport('copy');
    Object.assign(r.counts.runs, { inFiles: 3, copied: 2, differing: 1 });
    r.findings.push({
      kind: 'runs',
      item: 'r9',
      what: 'differs',
      detail: 'attempt 1 is failed in the files',
    });
    noteSkipped(r, 'queue items', '/d/queue/q/x.json', 'invalid JSON');
    const lines = formatTransferReport(r);
    expect(lines[0]).toMatch(/^kind +in files +copied +already there +differing +skipped$/);
    expect(lines).toContain('differs: run r9: attempt 1 is failed in the files');
    expect(lines).toContain('skipped (unreadable): queue items: /d/queue/q/x.json: invalid JSON');
    expect(lines.at(-1)).toBe(
      'Copied 2 records, 0 already there; 1 record differing, left as the database has it; 1 skipped as unreadable.',
    );
  });

  it('prints a record skipped with its unreadable run apart from an unreadable one, and no difference', () => {
    const r = emptyReport('verify');
    noteSkipped(r, 'runs', 'r1', '/d/runs/r1/attempts/1/status.json: invalid JSON');
    noteSkipped(
      r,
      'queue items',
      'q-7',
      'run r1 is not copied, as its status is unreadable (…)',
      'skipped with its run',
    );
    noteSkipped(
      r,
      'active runs',
      'r1',
      'run r1 is not copied, as its status is unreadable (…)',
      'skipped with its run',
    );
    const lines = formatTransferReport(r);
    expect(lines).toContain(
      'skipped with its run: queue item q-7: run r1 is not copied, as its status is unreadable (…)',
    );
    expect(lines).toContain(
      'skipped with its run: active run r1: run r1 is not copied, as its status is unreadable (…)',
    );
    expect(lines.find((l) => l.startsWith('queue items'))).toMatch(/ 1$/);
    expect(lines.at(-1)).toBe(
      'No differences: the database holds every readable record of the files; 1 skipped as unreadable; 2 skipped with their unreadable runs.',
    );
  });

  it('prints a verification with both sides and says when there is no difference', () => {
    const r = emptyReport('verify');
    Object.assign(r.counts.events, { inFiles: 5, inDatabase: 5, already: 5 });
    const lines = formatTransferReport(r);
    expect(lines[0]).toMatch(/only in files +only in database +skipped$/);
    expect(lines.find((l) => l.startsWith('events'))).toMatch(/^events +5 +5 +5 +0 +0 +0 +0$/);
    expect(lines.at(-1)).toBe('No differences: the database holds every readable record of the files.');
    r.findings.push({ kind: 'events', item: 'e1', what: 'only in the database', detail: '' });
    expect(formatTransferReport(r).at(-1)).toBe('1 difference.');
  });
});
