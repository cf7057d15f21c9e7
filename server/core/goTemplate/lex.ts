// The lexer of Go's text/template with the default `{{` `}}` delimiters: text, actions with their `{{- ` and
// ` -}}` trim markers (the text beside them loses its spaces, tabs and line breaks), and `{{/* comments */}}`.
// A lexical error ends the item list with an error item, as Go's lexer does; the parser reports it.

export type ItemType =
  | 'text'
  | 'left'
  | 'right'
  | 'space'
  | 'ident'
  | 'keyword'
  | 'field'
  | 'variable'
  | 'dot'
  | 'bool'
  | 'nil'
  | 'string'
  | 'raw'
  | 'char'
  | 'charConst'
  | 'number'
  | 'pipe'
  | 'lparen'
  | 'rparen'
  | 'declare'
  | 'assign'
  | 'eof'
  | 'error';

export interface Item {
  type: ItemType;
  value: string;
  /** Byte-ish offset (UTF-16 index) of the item in the template text. */
  pos: number;
}

const KEYWORDS = new Set([
  'block',
  'break',
  'continue',
  'define',
  'else',
  'end',
  'if',
  'range',
  'template',
  'with',
]);
const SPACE_CHARS = ' \t\r\n';

function isSpace(c: string | undefined): boolean {
  return c !== undefined && c !== '' && SPACE_CHARS.includes(c);
}

function isAlnum(c: string | undefined): boolean {
  return c !== undefined && c !== '' && /[\p{L}\p{Nd}_]/u.test(c);
}

const NUMBER =
  /^[+-]?(?:0[xX](?:[0-9a-fA-F_]*\.?[0-9a-fA-F_]*)(?:[pP][+-]?[0-9_]+)?|0[oO][0-7_]+|0[bB][01_]+|(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)(?:[eE][+-]?[0-9_]+)?)i?/;

/** Lexes the whole template into items, ending with `eof` or an `error` item. */
export function lex(input: string): Item[] {
  const items: Item[] = [];
  let pos = 0;
  const fail = (message: string, at: number): Item[] => {
    items.push({ type: 'error', value: message, pos: at });
    return items;
  };
  /** At a right delimiter at `p`: its length (with the trim marker) and whether it trims, or null. */
  const rightDelim = (p: number): { len: number; trim: boolean } | null => {
    if (isSpace(input[p]) && input[p + 1] === '-' && input.startsWith('}}', p + 2))
      return { len: 4, trim: true };
    if (input.startsWith('}}', p)) return { len: 2, trim: false };
    return null;
  };
  const skipLeadingSpace = (p: number): number => {
    while (p < input.length && isSpace(input[p])) p++;
    return p;
  };

  for (;;) {
    const open = input.indexOf('{{', pos);
    if (open < 0) {
      if (pos < input.length) items.push({ type: 'text', value: input.slice(pos), pos });
      items.push({ type: 'eof', value: '', pos: input.length });
      return items;
    }
    const trimLeft = input[open + 2] === '-' && isSpace(input[open + 3]);
    let text = input.slice(pos, open);
    if (trimLeft) text = text.replace(/[ \t\r\n]+$/, '');
    if (text.length > 0) items.push({ type: 'text', value: text, pos });
    let p = open + 2 + (trimLeft ? 2 : 0);

    if (input.startsWith('/*', p)) {
      const close = input.indexOf('*/', p + 2);
      if (close < 0) return fail('unclosed comment', p);
      p = close + 2;
      const delim = rightDelim(p);
      if (!delim) return fail('comment ends before closing delimiter', p);
      pos = p + delim.len;
      if (delim.trim) pos = skipLeadingSpace(pos);
      continue;
    }

    items.push({ type: 'left', value: '{{', pos: open });
    let depth = 0;
    for (;;) {
      const delim = rightDelim(p);
      if (delim && depth === 0) {
        items.push({ type: 'right', value: '}}', pos: p });
        pos = p + delim.len;
        if (delim.trim) pos = skipLeadingSpace(pos);
        break;
      }
      if (delim && depth > 0) return fail('unclosed left paren', p);
      const c = input[p];
      if (c === undefined) return fail('unclosed action', p);
      if (isSpace(c)) {
        const start = p;
        while (isSpace(input[p]) && !rightDelim(p)?.trim) p++;
        if (p === start) p++; // a space that begins " -}}" when the delimiter is nested in parens
        items.push({ type: 'space', value: input.slice(start, p), pos: start });
        continue;
      }
      if (c === '=') {
        items.push({ type: 'assign', value: '=', pos: p++ });
        continue;
      }
      if (c === ':') {
        if (input[p + 1] !== '=') return fail('expected :=', p);
        items.push({ type: 'declare', value: ':=', pos: p });
        p += 2;
        continue;
      }
      if (c === '|') {
        items.push({ type: 'pipe', value: '|', pos: p++ });
        continue;
      }
      if (c === '(') {
        depth++;
        items.push({ type: 'lparen', value: '(', pos: p++ });
        continue;
      }
      if (c === ')') {
        depth--;
        if (depth < 0) return fail('unexpected right paren', p);
        items.push({ type: 'rparen', value: ')', pos: p++ });
        continue;
      }
      if (c === '"') {
        const start = p++;
        for (;;) {
          const d = input[p];
          if (d === '\\') {
            if (input[p + 1] === undefined || input[p + 1] === '\n')
              return fail('unterminated quoted string', start);
            p += 2;
            continue;
          }
          if (d === undefined || d === '\n') return fail('unterminated quoted string', start);
          p++;
          if (d === '"') break;
        }
        items.push({ type: 'string', value: input.slice(start, p), pos: start });
        continue;
      }
      if (c === '`') {
        const close = input.indexOf('`', p + 1);
        if (close < 0) return fail('unterminated raw quoted string', p);
        items.push({ type: 'raw', value: input.slice(p, close + 1), pos: p });
        p = close + 1;
        continue;
      }
      if (c === "'") {
        const start = p++;
        for (;;) {
          const d = input[p];
          if (d === '\\') {
            p += 2;
            continue;
          }
          if (d === undefined || d === '\n') return fail('unterminated character constant', start);
          p++;
          if (d === "'") break;
        }
        items.push({ type: 'charConst', value: input.slice(start, p), pos: start });
        continue;
      }
      if (c === '$') {
        const start = p++;
        while (isAlnum(input[p])) p++;
        items.push({ type: 'variable', value: input.slice(start, p), pos: start });
        continue;
      }
      if (c === '.' && !/[0-9]/.test(input[p + 1] ?? '')) {
        const start = p++;
        if (!isAlnum(input[p])) {
          items.push({ type: 'dot', value: '.', pos: start });
          continue;
        }
        while (isAlnum(input[p])) p++;
        items.push({ type: 'field', value: input.slice(start, p), pos: start });
        continue;
      }
      if (c === '+' || c === '-' || c === '.' || /[0-9]/.test(c)) {
        const m = NUMBER.exec(input.slice(p));
        if (!m || isAlnum(input[p + m[0].length]) || input[p + m[0].length] === '.') {
          let end = p + 1;
          while (isAlnum(input[end]) || input[end] === '.') end++;
          return fail(`bad number syntax: ${JSON.stringify(input.slice(p, end))}`, p);
        }
        items.push({ type: 'number', value: m[0], pos: p });
        p += m[0].length;
        continue;
      }
      if (isAlnum(c)) {
        const start = p;
        while (isAlnum(input[p])) p++;
        const word = input.slice(start, p);
        const type: ItemType = KEYWORDS.has(word)
          ? 'keyword'
          : word === 'true' || word === 'false'
            ? 'bool'
            : word === 'nil'
              ? 'nil'
              : 'ident';
        items.push({ type, value: word, pos: start });
        continue;
      }
      const cp = c.codePointAt(0) ?? 0;
      if (cp <= 0x7e && cp >= 0x21) {
        items.push({ type: 'char', value: c, pos: p++ });
        continue;
      }
      return fail(`unrecognized character in action: U+${cp.toString(16).toUpperCase().padStart(4, '0')}`, p);
    }
  }
}

/** How Go's parser names an item in "unexpected ..." messages. */
export function describeItem(item: Item): string {
  if (item.type === 'eof') return 'EOF';
  if (item.type === 'error') return item.value;
  if (item.type === 'keyword') return `<${item.value}>`;
  if (item.value.length > 10) return `${JSON.stringify(item.value.slice(0, 10))}...`;
  return JSON.stringify(item.value);
}
