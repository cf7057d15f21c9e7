// The text `dagu storage migrate` prints: a table of counts per kind of record, then one line per record
// that differs, is missing on one side, could not be read or went with a run that could not, then a one-line
// verdict.

import {
  KINDS,
  hasDifferences,
  type Finding,
  type Kind,
  type TransferReport,
} from '../../store/transfer/transferReport';
import { formatTable } from './table';

/** How one record of each kind is named in a finding's line. */
const ONE: Record<Kind, string> = {
  'DAG definitions': 'DAG',
  runs: 'run',
  'run logs': 'logs of run',
  'run artifacts': 'artifacts of run',
  'active runs': 'active run',
  'queue items': 'queue item',
  events: 'event',
  'failover history': 'failover',
  'scheduler state': 'scheduler',
  'suspend flags': 'suspend flag of',
  'DAG state': 'state entry',
  workers: 'worker',
  coordinators: 'coordinator',
  'cancel requests': 'cancel request of',
  'dispatch tasks': 'dispatch task',
};

export function formatTransferReport(report: TransferReport): string[] {
  const lines =
    report.mode === 'copy'
      ? formatTable(
          ['kind', 'in files', 'copied', 'already there', 'differing', 'skipped'],
          KINDS.map((k) => {
            const c = report.counts[k];
            return [k, c.inFiles, c.copied, c.already, c.differing, c.skipped].map(String);
          }),
        )
      : formatTable(
          [
            'kind',
            'in files',
            'in database',
            'same',
            'differing',
            'only in files',
            'only in database',
            'skipped',
          ],
          KINDS.map((k) => {
            const c = report.counts[k];
            return [
              k,
              c.inFiles,
              c.inDatabase,
              c.already,
              c.differing,
              c.onlyInFiles,
              c.onlyInDatabase,
              c.skipped,
            ].map(String);
          }),
        );
  const findings = report.findings.map(findingLine);
  if (findings.length > 0) lines.push('', ...findings);
  if (report.notes.length > 0) lines.push('', ...report.notes.map((n) => `note: ${n}`));
  lines.push('', verdict(report));
  return lines;
}

function findingLine(f: Finding): string {
  const name = `${ONE[f.kind]} ${f.item}`;
  switch (f.what) {
    case 'differs':
      return `differs: ${name}: ${f.detail}`;
    case 'only in the files':
      return `only in the files: ${name}`;
    case 'only in the database':
      return `only in the database: ${name}`;
    case 'skipped':
      return `skipped (unreadable): ${f.kind}: ${f.item}: ${f.detail}`;
    case 'skipped with its run':
      return `skipped with its run: ${name}: ${f.detail}`;
  }
}

function verdict(report: TransferReport): string {
  const total = (pick: (k: Kind) => number) => KINDS.reduce((n, k) => n + pick(k), 0);
  const withRun = report.findings.filter((f) => f.what === 'skipped with its run').length;
  const skipped = total((k) => report.counts[k].skipped) - withRun;
  const unreadable =
    (skipped > 0 ? `; ${skipped} skipped as unreadable` : '') +
    (withRun > 0 ? `; ${withRun} skipped with their unreadable runs` : '');
  if (report.mode === 'copy') {
    const copied = total((k) => report.counts[k].copied);
    const already = total((k) => report.counts[k].already);
    const differing = total((k) => report.counts[k].differing);
    const kept =
      differing > 0
        ? `; ${plural(differing, 'record')} differing, left as the database has ${differing === 1 ? 'it' : 'them'}`
        : '';
    return `Copied ${plural(copied, 'record')}, ${already} already there${kept}${unreadable}.`;
  }
  const differences = report.findings.filter(
    (f) => f.what !== 'skipped' && f.what !== 'skipped with its run',
  ).length;
  return hasDifferences(report)
    ? `${plural(differences, 'difference')}${unreadable}.`
    : `No differences: the database holds every readable record of the files${unreadable}.`;
}

function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}
