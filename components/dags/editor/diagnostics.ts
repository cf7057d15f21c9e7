// Where the editor underlines a problem the server found: the server gives 1-based line and column (or none),
// CodeMirror wants document offsets. Pure: the document comes in through the two calls it needs.

/** The part of CodeMirror's `Text` this needs (a test passes a small fake). */
export interface LineSource {
  readonly lines: number;
  line(n: number): { from: number; to: number };
}

/**
 * The range to mark for a problem at `line`:`column`: from the column to the end of the line (at least one
 * character where the line has one); the first line when the problem has no place; clamped into the text.
 */
export function diagnosticRange(
  doc: LineSource,
  line: number | null,
  column: number | null,
): { from: number; to: number } {
  const n = Math.min(Math.max(line ?? 1, 1), doc.lines);
  const { from, to } = doc.line(n);
  const start = Math.min(from + Math.max((column ?? 1) - 1, 0), to);
  return { from: start, to };
}
