// What copying a data directory into PostgreSQL (or comparing the two) found, per kind of record: the
// counts the command prints and every item that differs, is missing on one side, or could not be read.

/** `copy`: insert what the database lacks, change nothing else. `verify`: read both sides, write nothing. */
export type TransferMode = 'copy' | 'verify';

/** The kinds of records, in the order they are copied and printed. */
export const KINDS = [
  'DAG definitions',
  'runs',
  'run logs',
  'run artifacts',
  'active runs',
  'queue items',
  'events',
  'failover history',
  'scheduler state',
  'suspend flags',
  'DAG state',
  'workers',
  'coordinators',
  'cancel requests',
  'dispatch tasks',
] as const;

export type Kind = (typeof KINDS)[number];

/** The counts of one kind. */
export interface KindCounts {
  /** Readable records in the files. */
  inFiles: number;
  /** Records in the database before this pass wrote anything. */
  inDatabase: number;
  /** Records this pass inserted (copy only). */
  copied: number;
  /** Records found in the database exactly as in the files. */
  already: number;
  /** Records in both whose content differs (never overwritten). */
  differing: number;
  /** Records of the files that are in the database only (verify), or in the files only (verify). */
  onlyInDatabase: number;
  onlyInFiles: number;
  /**
   * Records or files of the files that could not be read, or that belong to a run that could not be, so
   * were not copied or compared.
   */
  skipped: number;
}

/** One item worth a line of output. */
export interface Finding {
  kind: Kind;
  /** The record's key: a run ID, an event ID, a file path for an unreadable file. */
  item: string;
  /**
   * `skipped`: the record or file could not be read. `skipped with its run`: the record is readable but
   * belongs to a run the copy skips (its status is unreadable), so it would be an orphan in the database.
   */
  what: 'differs' | 'only in the files' | 'only in the database' | 'skipped' | 'skipped with its run';
  detail: string;
}

export interface TransferReport {
  mode: TransferMode;
  counts: Record<Kind, KindCounts>;
  findings: Finding[];
  /** Things the operator should know that are not about one record. */
  notes: string[];
}

export function emptyReport(mode: TransferMode): TransferReport {
  const counts = {} as Record<Kind, KindCounts>;
  for (const kind of KINDS) {
    counts[kind] = {
      inFiles: 0,
      inDatabase: 0,
      copied: 0,
      already: 0,
      differing: 0,
      onlyInDatabase: 0,
      onlyInFiles: 0,
      skipped: 0,
    };
  }
  return { mode, counts, findings: [], notes: [] };
}

/** Whether the report shows any difference between the two sides (what makes `--verify` exit 1). */
export function hasDifferences(report: TransferReport): boolean {
  return report.findings.some((f) => f.what !== 'skipped' && f.what !== 'skipped with its run');
}

/** Notes an unreadable source record or file: reported, skipped, never fatal. */
export function noteSkipped(
  report: TransferReport,
  kind: Kind,
  item: string,
  detail: string,
  what: 'skipped' | 'skipped with its run' = 'skipped',
): void {
  report.counts[kind].skipped++;
  report.findings.push({ kind, item, what, detail });
}
