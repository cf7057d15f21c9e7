// CSV and TSV as Go's encoding/csv reads and writes them, with the reader settings Dagu's data actions use:
// lazy quotes (a stray `"` is kept as text), leading white space of each field dropped (with a tab as the
// delimiter that drops empty TSV fields too, as it does in Dagu), blank lines skipped, and every record
// holding as many fields as the first one.

/** A problem reading or writing CSV, worded as Go's encoding/csv words it. */
export class CsvError extends Error {}

const INVALID_DELIMITER = 'csv: invalid field or comment delimiter';

function validDelimiter(d: string): boolean {
  return d !== '' && d !== '"' && d !== '\r' && d !== '\n' && d !== '\uFFFD' && [...d].length === 1;
}

/** unicode.IsSpace */
function isGoSpace(c: string): boolean {
  return (
    c === ' ' ||
    c === '\t' ||
    c === '\n' ||
    c === '\v' ||
    c === '\f' ||
    c === '\r' ||
    c === '\u0085' ||
    c === '\u00A0' ||
    c === '\u1680' ||
    (c >= '\u2000' && c <= '\u200A') ||
    c === '\u2028' ||
    c === '\u2029' ||
    c === '\u202F' ||
    c === '\u205F' ||
    c === '\u3000'
  );
}

function trimLeadingSpace(line: string): string {
  let i = 0;
  for (const c of line) {
    if (!isGoSpace(c)) break;
    i += c.length;
  }
  return line.slice(i);
}

const lengthNL = (line: string) => (line.endsWith('\n') ? 1 : 0);

/** Every record of `text` (csv.Reader.ReadAll with LazyQuotes and TrimLeadingSpace). */
export function readRecords(text: string, comma: string): string[][] {
  if (!validDelimiter(comma)) throw new CsvError(INVALID_DELIMITER);
  let pos = 0;
  let numLine = 0;
  const readLine = (): string | null => {
    if (pos >= text.length) {
      numLine++;
      return null;
    }
    const nl = text.indexOf('\n', pos);
    let line = nl === -1 ? text.slice(pos) : text.slice(pos, nl + 1);
    pos = nl === -1 ? text.length : nl + 1;
    if (nl === -1 && line.endsWith('\r')) line = line.slice(0, -1);
    numLine++;
    if (line.endsWith('\r\n')) line = `${line.slice(0, -2)}\n`;
    return line;
  };

  const records: string[][] = [];
  let fieldsPerRecord = 0;
  for (;;) {
    let line: string | null;
    do line = readLine();
    while (line !== null && line.length === lengthNL(line));
    if (line === null) return records;
    const recLine = numLine;
    const fields: string[] = [];
    parse: for (;;) {
      line = trimLeadingSpace(line);
      if (line === '' || line[0] !== '"') {
        const i = line.indexOf(comma);
        fields.push(i >= 0 ? line.slice(0, i) : line.slice(0, line.length - lengthNL(line)));
        if (i < 0) break;
        line = line.slice(i + comma.length);
        continue;
      }
      line = line.slice(1);
      let field = '';
      for (;;) {
        const i = line.indexOf('"');
        if (i >= 0) {
          field += line.slice(0, i);
          line = line.slice(i + 1);
          if (line.startsWith('"')) {
            field += '"';
            line = line.slice(1);
          } else if (line.startsWith(comma)) {
            line = line.slice(comma.length);
            fields.push(field);
            continue parse;
          } else if (line.length === lengthNL(line)) {
            fields.push(field);
            break parse;
          } else {
            field += '"'; // a bare quote inside a quoted field (lazy quotes)
          }
        } else if (line.length > 0) {
          field += line;
          line = readLine() ?? '';
        } else {
          fields.push(field); // the end of the input inside a quoted field (lazy quotes)
          break parse;
        }
      }
    }
    if (fieldsPerRecord === 0) fieldsPerRecord = fields.length;
    else if (fields.length !== fieldsPerRecord)
      throw new CsvError(`record on line ${recLine}: wrong number of fields`);
    records.push(fields);
  }
}

/** Records as csv.Writer writes them: quoted only where needed, `\n` line ends. */
export function writeRecords(records: string[][], comma: string): string {
  if (!validDelimiter(comma)) throw new CsvError(INVALID_DELIMITER);
  const out: string[] = [];
  for (const record of records) {
    out.push(record.map((field) => (needsQuotes(field, comma) ? quote(field) : field)).join(comma), '\n');
  }
  return out.join('');
}

function needsQuotes(field: string, comma: string): boolean {
  if (field === '') return false;
  if (field === '\\.') return true;
  if (field.includes(comma) || /["\r\n]/.test(field)) return true;
  const first = String.fromCodePoint(field.codePointAt(0)!);
  return isGoSpace(first);
}

function quote(field: string): string {
  return `"${field.replaceAll('"', '""')}"`;
}
