// Aligned text columns for the listing commands (`history`, `ls`, `ps`), two spaces apart like Dagu's.

/** The header and the rows as lines, each column as wide as its widest cell; the last column is not padded. */
export function formatTable(headers: readonly string[], rows: ReadonlyArray<readonly string[]>): string[] {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)];
}

/** A CSV field as RFC 4180 has it: quoted when it holds a comma, a quote or a line break. */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
