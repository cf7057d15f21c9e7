// Reads the log tables of docs/troubleshooting.md: rows of `| level | message | meaning | what to do |`.

import type { LogLevel, LogMessage } from './logMessages';

const LEVELS = ['debug', 'info', 'warn', 'error'];

/** One documented log line. `messages` are the code spans of the message cell. */
export interface LogRow {
  level: LogLevel;
  messages: string[];
  meaning: string;
  action: string;
  /** 1-based line in the page. */
  line: number;
}

/** The rows of every table whose first cell is a log level. */
export function logRows(markdown: string): LogRow[] {
  const rows: LogRow[] = [];
  markdown.split('\n').forEach((text, i) => {
    if (!text.startsWith('|')) return;
    // Cells are split at every `|` that is not escaped as `\|`.
    const cells = text
      .slice(1, text.trimEnd().endsWith('|') ? text.trimEnd().length - 1 : undefined)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim());
    if (cells.length !== 4 || !LEVELS.includes(cells[0])) return;
    rows.push({
      level: cells[0] as LogLevel,
      messages: [...cells[1].matchAll(/`([^`]+)`/g)].map((m) => m[1]),
      meaning: cells[2],
      action: cells[3],
      line: i + 1,
    });
  });
  return rows;
}

/** Whether a row documents a message: the same level and a code span that is the message (or starts with it). */
export function documents(row: LogRow, m: Pick<LogMessage, 'level' | 'text' | 'complete'>): boolean {
  return (
    row.level === m.level &&
    row.messages.some((span) => (m.complete ? span === m.text : span.startsWith(m.text)))
  );
}
