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

const JS_SYNTAX = '^$\\.*+?()[]{}|/';

function parseError(message: string): Error {
  return new Error(`error parsing regexp: ${message}`);
}

/**
 * Go's RE2 pattern as a JavaScript (unicode-mode) pattern: `\pL`, `\x{...}`, `\a`, `\A`, `\z`, `\Q...\E`,
 * punctuation escapes, `[[:alpha:]]`, a `]` first in a class, literal braces, `(?P<name>`. What RE2 rejects
 * (back-references, look-around) is rejected here with Go's message rather than matched.
 */
function translate(pattern: string): string {
  let out = '';
  let inClass = false;
  let classStart = -1;
  for (let k = 0; k < pattern.length; k++) {
    const c = pattern[k];
    if (c === '\\') {
      const e = pattern[k + 1];
      if (e === undefined) throw parseError('trailing backslash at end of expression: ``');
      k++;
      if (/[1-9]/.test(e)) throw parseError(`invalid escape sequence: \`\\${e}\``);
      if (e === 'p' || e === 'P') {
        if (pattern[k + 1] === '{') {
          const close = pattern.indexOf('}', k);
          out += pattern.slice(k - 1, close + 1);
          k = close;
        } else {
          out += `\\${e}{${pattern[k + 1] ?? ''}}`;
          k++;
        }
      } else if (e === 'Q') {
        const close = pattern.indexOf('\\E', k);
        const lit = close < 0 ? pattern.slice(k + 1) : pattern.slice(k + 1, close);
        out += [...lit]
          .map((ch) => (/[A-Za-z0-9_\s]/.test(ch) ? ch : `\\u{${ch.codePointAt(0)!.toString(16)}}`))
          .join('');
        k = close < 0 ? pattern.length : close + 1;
      } else if (e === 'x' && pattern[k + 1] === '{') {
        out += '\\u';
      } else if (e === 'a') out += '\\x07';
      else if (e === 'A' && !inClass) out += '(?<![\\s\\S])';
      else if (e === 'z' && !inClass) out += '(?![\\s\\S])';
      // Go's \s is ASCII white space only (no \v, no Unicode spaces).
      else if (e === 's') out += inClass ? '\\t\\n\\f\\r ' : '[\\t\\n\\f\\r ]';
      else if (e === 'S' && !inClass) out += '[^\\t\\n\\f\\r ]';
      else if (/[A-Za-z0-9]/.test(e)) out += `\\${e}`;
      else if (JS_SYNTAX.includes(e) || (inClass && e === '-')) out += `\\${e}`;
      else out += `\\u{${e.codePointAt(0)!.toString(16)}}`;
      continue;
    }
    if (inClass) {
      if (c === '[' && pattern[k + 1] === ':') {
        const m = /^\[:(\^?)([a-z]+):\]/.exec(pattern.slice(k));
        const cls = m ? POSIX_CLASSES[m[2]] : undefined;
        if (m && cls) {
          if (m[1]) throw parseError('negated POSIX classes are not supported by this product');
          out += cls;
          k += m[0].length - 1;
          continue;
        }
      }
      if (c === ']' && k === classStart) out += '\\]';
      else if (c === '[') out += '\\[';
      else {
        if (c === ']') inClass = false;
        out += c;
      }
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      if (pattern[k + 1] === '^') {
        out += '^';
        k++;
      }
      classStart = k + 1;
      continue;
    }
    if (c === '(' && pattern[k + 1] === '?') {
      const rest = pattern.slice(k + 2);
      if (rest.startsWith('P<')) {
        out += '(?<';
        k += 3;
        continue;
      }
      if (rest.startsWith('<') && !rest.startsWith('<=') && !rest.startsWith('<!')) {
        out += '(?<';
        k += 2;
        continue;
      }
      if (rest.startsWith(':')) {
        out += '(?:';
        k += 2;
        continue;
      }
      const shown = /^(<[=!]|[=!])/.exec(rest);
      if (shown) throw parseError(`invalid or unsupported Perl syntax: \`(?${shown[0]}\``);
      throw parseError('flags inside the pattern are not supported by this product (put them first)');
    }
    if (c === '{') {
      const m = /^\{\d+(,\d*)?\}/.exec(pattern.slice(k));
      if (m && out !== '' && !/[(|]$/.test(out)) {
        out += m[0];
        k += m[0].length - 1;
      } else out += '\\{';
      continue;
    }
    if (c === '}') {
      out += '\\}';
      continue;
    }
    out += c;
  }
  if (inClass) throw parseError(`missing closing ]: \`${pattern.slice(pattern.lastIndexOf('['))}\``);
  return out;
}

/** Compiles a Go regular expression; throws Go's "error parsing regexp: ..." text when it does not compile. */
export function compileGoRegexp(pattern: string): RegExp {
  let source = pattern;
  let flags = 'gu';
  const lead = /^\(\?([imsU]+)\)/.exec(source);
  if (lead) {
    if (lead[1].includes('U')) throw parseError('the (?U) flag is not supported by this product');
    for (const f of lead[1]) if (!flags.includes(f)) flags += f;
    source = source.slice(lead[0].length);
  }
  const translated = translate(source);
  try {
    return new RegExp(translated, flags);
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
