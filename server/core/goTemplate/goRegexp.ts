// Go's regexp (RE2 syntax) over JavaScript's RegExp: the pattern translated where the two differ (leading
// `(?flags)`, `(?P<name>`, `\A`, `\z`, `[[:class:]]`), and Go's rules for successive matches (an empty match
// right after a match is skipped), `$1`/`${name}` replacement templates and Split.

const POSIX_CLASSES: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

/** Compiles a Go regular expression; throws Go's "error parsing regexp: ..." text when it does not compile. */
export function compileGoRegexp(pattern: string): RegExp {
  let source = pattern;
  let flags = 'g';
  const lead = /^\(\?([imsU]+)\)/.exec(source);
  if (lead) {
    if (lead[1].includes('U'))
      throw new Error('error parsing regexp: the (?U) flag is not supported by this product');
    for (const f of lead[1]) if (!flags.includes(f)) flags += f;
    source = source.slice(lead[0].length);
  }
  source = source
    .replace(/\(\?P</g, '(?<')
    .replace(/\\A/g, '^')
    .replace(/\\z/g, '$(?![\\s\\S])')
    .replace(/\[:(\^?)([a-z]+):\]/g, (m, neg: string, name: string) => {
      const cls = POSIX_CLASSES[name];
      if (!cls) return m;
      return neg ? `^${cls}` : cls;
    });
  try {
    return new RegExp(source, flags);
  } catch (e) {
    throw new Error(`error parsing regexp: ${(e as Error).message}`, { cause: e });
  }
}

/** Go's `regexp.MustCompile` panic text for a pattern that does not compile. */
export function mustCompile(pattern: string): RegExp {
  try {
    return compileGoRegexp(pattern);
  } catch (e) {
    throw new Error(`regexp: Compile(\`${pattern}\`): ${(e as Error).message}`, { cause: e });
  }
}

/** The successive matches Go's FindAll visits (at most n; n < 0 for all). */
export function findAll(re: RegExp, s: string, n: number): RegExpExecArray[] {
  const out: RegExpExecArray[] = [];
  const limit = n < 0 ? s.length + 1 : n;
  let pos = 0;
  let prevEnd = -1;
  while (out.length < limit && pos <= s.length) {
    re.lastIndex = pos;
    const m = re.exec(s);
    if (!m) break;
    const start = m.index;
    const end = start + m[0].length;
    let accept = true;
    if (end === start) {
      if (start === prevEnd) accept = false;
      pos = start >= s.length ? s.length + 1 : start + (s.codePointAt(start)! > 0xffff ? 2 : 1);
    } else pos = end;
    prevEnd = end;
    if (accept) out.push(m);
  }
  return out;
}

/** Go's Regexp.Expand of a `$1` / `${1}` / `$name` / `${name}` / `$$` template. */
function expand(template: string, m: RegExpExecArray): string {
  return template.replace(
    /\$(\$|\{([A-Za-z0-9_]+)\}|([A-Za-z0-9_]+))/g,
    (_all, tok: string, braced?: string, bare?: string) => {
      if (tok === '$') return '$';
      const name = braced ?? bare ?? '';
      if (/^\d+$/.test(name)) return m[Number(name)] ?? '';
      return m.groups?.[name] ?? '';
    },
  );
}

/** Go's ReplaceAllString (template replacement) or ReplaceAllLiteralString. */
export function replaceAll(re: RegExp, s: string, repl: string, literal: boolean): string {
  let out = '';
  let lastEnd = 0;
  let search = 0;
  while (search <= s.length) {
    re.lastIndex = search;
    const m = re.exec(s);
    if (!m) break;
    const start = m.index;
    const end = start + m[0].length;
    out += s.slice(lastEnd, start);
    if (end > lastEnd || start === 0) out += literal ? repl : expand(repl, m);
    lastEnd = end;
    const width = search < s.length ? (s.codePointAt(search)! > 0xffff ? 2 : 1) : 1;
    if (search + width > end) search += width;
    else if (search + 1 > end) search++;
    else search = end;
  }
  return out + s.slice(lastEnd);
}

/** Go's Regexp.Split. */
export function split(re: RegExp, s: string, n: number): string[] {
  if (n === 0) return [];
  if (re.source !== '(?:)' && s === '') return [''];
  const matches = findAll(re, s, n);
  const out: string[] = [];
  let beg = 0;
  let end = 0;
  for (const m of matches) {
    if (n > 0 && out.length === n - 1) break;
    end = m.index;
    if (m.index + m[0].length !== 0) out.push(s.slice(beg, end));
    beg = m.index + m[0].length;
  }
  if (end !== s.length) out.push(s.slice(beg));
  return out;
}

/** Go's regexp.QuoteMeta. */
export function quoteMeta(s: string): string {
  return s.replace(/[\\.+*?()|[\]{}^$]/g, (c) => `\\${c}`);
}
