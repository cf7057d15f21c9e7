// YAML for Dagu's data actions, read and written as gopkg.in/yaml.v3 (what Dagu uses) does it.
//
// Reading: the document's structure comes from the `yaml` package with every scalar kept as text, then each
// plain scalar is typed by yaml.v3's rules (`30` an int, `1.5` a float, `2024-01-31` a timestamp, `yes` text),
// and map keys become text as Dagu's decoder leaves them (fmt.Sprint of the key).
//
// Writing: yaml.v3's emitter as Marshal drives it: four-space indentation (a sequence inside a map indented
// too), map keys in yaml.v3's natural order (`a2` before `a10`), no line folding, text quoted only where a
// plain scalar would read back as another type or is not allowed, in double quotes unless yaml.v3 picks single
// quotes, and text with line breaks as a literal block.

import { isAlias, isMap as isYamlMap, isScalar, isSeq, parseAllDocuments } from 'yaml';
import type { Document, Node } from 'yaml';
import { type DataValue, formatG, goSprint, GoTime, isMap, newMap, resolvePlain } from './dataValues';

/** A document that is not YAML; the message is the parser's first line. */
export class YamlError extends Error {}

const STR_TAGS = new Set(['tag:yaml.org,2002:str', '!!str', 'tag:yaml.org,2002:binary']);

/** The first document of `text` as data; null for an empty document. */
export function parseYamlData(text: string): DataValue {
  const docs = parseAllDocuments(text, { schema: 'failsafe', uniqueKeys: true });
  if (!Array.isArray(docs)) return null; // nothing but comments or directives
  if (docs.length === 0) return null;
  const doc = docs[0];
  if (doc.errors.length > 0) throw new YamlError(firstLine(doc.errors[0].message));
  return toData(doc, doc.contents as Node | null, { left: 1_000_000 });
}

function firstLine(message: string): string {
  return message.split('\n')[0].replace(/:$/, '');
}

/** `budget`: nodes still allowed, so that aliases cannot expand a small document into a huge value. */
function toData(doc: Document, node: Node | null, budget: { left: number }): DataValue {
  if (--budget.left < 0)
    throw new YamlError('document is too large (aliases expand it past a million values)');
  if (node === null || node === undefined) return null;
  if (isAlias(node)) {
    const target = node.resolve(doc);
    if (!target) throw new YamlError(`unknown anchor '${node.source}' referenced`);
    return toData(doc, target as Node, budget);
  }
  if (isScalar(node)) {
    const text = String(node.value ?? '');
    if (node.tag !== undefined) {
      if (STR_TAGS.has(node.tag)) return text;
      if (!node.tag.startsWith('tag:yaml.org,2002:') && !node.tag.startsWith('!!')) return text;
    }
    if (node.type !== 'PLAIN') return text;
    return resolvePlain(text).value;
  }
  if (isSeq(node)) return node.items.map((item) => toData(doc, item as Node, budget));
  if (isYamlMap(node)) {
    const out = newMap();
    const merged: Array<[string, DataValue]> = [];
    for (const pair of node.items) {
      const keyNode = pair.key as Node | null;
      if (
        isScalar(keyNode) &&
        keyNode.type === 'PLAIN' &&
        keyNode.value === '<<' &&
        keyNode.tag === undefined
      ) {
        const source = isAlias(pair.value)
          ? (pair.value.resolve(doc) as Node | undefined)
          : (pair.value as Node);
        const sources = isSeq(source) ? source.items : [source];
        for (const s of sources) {
          const m = toData(doc, s as Node, budget);
          if (!isMap(m)) throw new YamlError('map merge requires map or sequence of maps as the value');
          for (const [k, v] of Object.entries(m)) merged.push([k, v]);
        }
        continue;
      }
      const key = toData(doc, keyNode, budget);
      out[typeof key === 'string' ? key : goSprint(key)] = toData(doc, pair.value as Node, budget);
    }
    for (const [k, v] of merged) if (!Object.hasOwn(out, k)) out[k] = v;
    return out;
  }
  return null;
}

// --- writing ---

const BEST_INDENT = 4;

type Style = 'plain' | 'single' | 'double' | 'literal';

/** yaml.Marshal(value). */
export function emitYaml(value: DataValue): string {
  const e = new Emitter();
  e.node(value, false, false);
  e.writeIndent(); // the document end
  return e.out.join('');
}

class Emitter {
  readonly out: string[] = [];
  private column = 0;
  private whitespace = true;
  private indention = true;
  private indent = -1;
  private readonly indents: number[] = [];

  private putBreak(): void {
    this.out.push('\n');
    this.column = 0;
    this.indention = true;
  }

  private write(text: string): void {
    this.out.push(text);
    this.column += [...text].length;
  }

  writeIndent(): void {
    const indent = Math.max(this.indent, 0);
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace))
      this.putBreak();
    if (this.column < indent) this.write(' '.repeat(indent - this.column));
    this.whitespace = true;
  }

  private indicator(
    text: string,
    needWhitespace: boolean,
    isWhitespace: boolean,
    isIndention: boolean,
  ): void {
    if (needWhitespace && !this.whitespace) this.write(' ');
    this.write(text);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  /** `inSeqItem`: the node is a sequence item (its block content starts right after `- `). */
  private increaseIndent(flow: boolean, inSeqItem: boolean): void {
    this.indents.push(this.indent);
    if (this.indent < 0) this.indent = flow ? BEST_INDENT : 0;
    else if (inSeqItem) this.indent += 2;
    else this.indent = BEST_INDENT * Math.floor((this.indent + BEST_INDENT) / BEST_INDENT);
  }

  private popIndent(): void {
    this.indent = this.indents.pop()!;
  }

  node(value: DataValue, inSeqItem: boolean, simpleKey: boolean): void {
    if (Array.isArray(value)) {
      if (value.length === 0) return this.emptyFlow('[', ']');
      this.increaseIndent(false, inSeqItem);
      for (const item of value) {
        this.writeIndent();
        this.indicator('-', true, false, true);
        this.node(item, true, false);
      }
      this.popIndent();
      return;
    }
    if (isMap(value)) {
      const keys = Object.keys(value).sort(naturalKeyOrder);
      if (keys.length === 0) return this.emptyFlow('{', '}');
      this.increaseIndent(false, inSeqItem);
      for (const key of keys) {
        this.writeIndent();
        const style = stringStyle(key);
        const simple = !analyze(key).multiline && Buffer.byteLength(key) <= 128;
        if (simple) {
          this.scalar(key, style, false, true);
          this.indicator(':', false, false, false);
        } else {
          this.indicator('?', true, false, true);
          this.scalar(key, style, false, false);
          this.writeIndent();
          this.indicator(':', true, false, true);
        }
        this.node(value[key], false, false);
      }
      this.popIndent();
      return;
    }
    if (typeof value === 'string') return this.scalar(value, stringStyle(value), inSeqItem, simpleKey);
    this.scalar(scalarText(value), 'plain', inSeqItem, simpleKey);
  }

  private emptyFlow(open: string, close: string): void {
    this.indicator(open, true, true, false);
    this.indicator(close, false, false, false);
  }

  private scalar(text: string, wanted: Style, inSeqItem: boolean, simpleKey: boolean): void {
    const a = analyze(text);
    let style = wanted;
    if (simpleKey && a.multiline) style = 'double';
    if (style === 'plain') {
      if (!a.blockPlainAllowed || (text === '' && simpleKey)) style = 'single';
    }
    if (style === 'single' && !a.singleQuotedAllowed) style = 'double';
    if (style === 'literal' && (!a.blockAllowed || simpleKey)) style = 'double';

    this.increaseIndent(true, inSeqItem);
    if (style === 'plain') this.plain(text);
    else if (style === 'single') this.singleQuoted(text);
    else if (style === 'double') this.doubleQuoted(text);
    else this.literal(text);
    this.popIndent();
  }

  private plain(text: string): void {
    if (text !== '' && !this.whitespace) this.write(' ');
    this.writeText(text);
    if (text !== '') this.whitespace = false;
    this.indention = false;
  }

  /** Characters, a line break starting a new indented line (the breaks of plain and single-quoted text). */
  private writeText(text: string, quoteChar?: string): void {
    let breaks = false;
    for (const c of text) {
      if (isBreak(c)) {
        if (!breaks && c === '\n') this.putBreak();
        this.writeBreak(c);
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        if (quoteChar !== undefined && c === quoteChar) this.write(c);
        this.write(c);
        this.indention = false;
        breaks = false;
      }
    }
  }

  private writeBreak(c: string): void {
    if (c === '\n') {
      this.putBreak();
      return;
    }
    this.out.push(c);
    this.column = 0;
    this.indention = true;
  }

  private singleQuoted(text: string): void {
    this.indicator("'", true, false, false);
    this.writeText(text, "'");
    this.indicator("'", false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private doubleQuoted(text: string): void {
    this.indicator('"', true, false, false);
    for (const c of text) {
      const cp = c.codePointAt(0)!;
      if (!isPrintable(cp) || cp === 0xfeff || isBreak(c) || c === '"' || c === '\\') {
        this.write(`\\${escapeFor(cp)}`);
      } else {
        this.write(c);
      }
    }
    this.indicator('"', false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private literal(text: string): void {
    this.indicator('|', true, false, false);
    if (text.startsWith(' ') || isBreak(text[0] ?? ''))
      this.indicator(String(BEST_INDENT), false, false, false);
    const chars = [...text];
    const last = chars[chars.length - 1] ?? '';
    let chomp = '';
    if (chars.length === 0 || !isBreak(last)) chomp = '-';
    else if (chars.length === 1 || isBreak(chars[chars.length - 2])) chomp = '+';
    if (chomp) this.indicator(chomp, false, false, false);
    this.whitespace = true;
    let breaks = true;
    for (const c of chars) {
      if (isBreak(c)) {
        this.writeBreak(c);
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.write(c);
        this.indention = false;
        breaks = false;
      }
    }
  }
}

/** The text of a non-string scalar as yaml.v3 writes it. */
function scalarText(value: Exclude<DataValue, string | DataValue[]>): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') {
    const s = formatG(value);
    return s === '+Inf' ? '.inf' : s === '-Inf' ? '-.inf' : s === 'NaN' ? '.nan' : s;
  }
  if (value instanceof GoTime) return value.rfc3339;
  return '';
}

const OLD_BOOLS = new Set([
  'y',
  'Y',
  'yes',
  'Yes',
  'YES',
  'on',
  'On',
  'ON',
  'n',
  'N',
  'no',
  'No',
  'NO',
  'off',
  'Off',
  'OFF',
]);
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

/** The style yaml.v3's encoder asks for: a literal block for text with a line break, plain when it reads back as text. */
function stringStyle(text: string): Style {
  if (text.includes('\n')) return 'literal';
  const plain = resolvePlain(text).tag === 'str' && !BASE60_FLOAT.test(text) && !OLD_BOOLS.has(text);
  return plain ? 'plain' : 'double';
}

const isBreak = (c: string) => c === '\r' || c === '\n' || c === '\u0085' || c === '\u2028' || c === '\u2029';
const isBlank = (c: string | undefined) => c === ' ' || c === '\t';

function isPrintable(cp: number): boolean {
  return (
    cp === 0x0a ||
    (cp >= 0x20 && cp <= 0x7e) ||
    (cp >= 0xa0 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd && cp !== 0xfeff)
  );
}

const ESCAPES: Record<number, string> = {
  0x00: '0',
  0x07: 'a',
  0x08: 'b',
  0x09: 't',
  0x0a: 'n',
  0x0b: 'v',
  0x0c: 'f',
  0x0d: 'r',
  0x1b: 'e',
  0x22: '"',
  0x5c: '\\',
  0x85: 'N',
  0xa0: '_',
  0x2028: 'L',
  0x2029: 'P',
};

function escapeFor(cp: number): string {
  const named = ESCAPES[cp];
  if (named !== undefined) return named;
  const hex = cp.toString(16).toUpperCase();
  if (cp <= 0xff) return `x${hex.padStart(2, '0')}`;
  if (cp <= 0xffff) return `u${hex.padStart(4, '0')}`;
  return `U${hex.padStart(8, '0')}`;
}

interface Analysis {
  multiline: boolean;
  blockPlainAllowed: boolean;
  singleQuotedAllowed: boolean;
  blockAllowed: boolean;
}

/** yaml_emitter_analyze_scalar, for block context. */
function analyze(text: string): Analysis {
  if (text === '')
    return { multiline: false, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: false };
  const chars = [...text];
  let blockIndicators = text.startsWith('---') || text.startsWith('...');
  let lineBreaks = false;
  let special = false;
  let tabs = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let precededByWhitespace = true;
  let previousSpace = false;
  let previousBreak = false;
  chars.forEach((c, i) => {
    const followedByWhitespace = i + 1 >= chars.length || isBlank(chars[i + 1]);
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(c)) blockIndicators = true;
      else if ((c === '?' || c === ':' || c === '-') && followedByWhitespace) blockIndicators = true;
    } else if (c === ':' && followedByWhitespace) blockIndicators = true;
    else if (c === '#' && precededByWhitespace) blockIndicators = true;
    if (c === '\t') tabs = true;
    else if (!isPrintable(c.codePointAt(0)!)) special = true;
    if (c === ' ') {
      if (i === 0) leadingSpace = true;
      if (i === chars.length - 1) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreak(c)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (i === chars.length - 1) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = isBlank(c) || isBreak(c) || c === '\0';
  });
  let blockPlainAllowed = true;
  let singleQuotedAllowed = true;
  let blockAllowed = true;
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) blockPlainAllowed = false;
  if (trailingSpace) blockAllowed = false;
  if (breakSpace) {
    blockPlainAllowed = false;
    singleQuotedAllowed = false;
  }
  if (spaceBreak || tabs || special) {
    blockPlainAllowed = false;
    singleQuotedAllowed = false;
  }
  if (spaceBreak || special) blockAllowed = false;
  if (lineBreaks) blockPlainAllowed = false;
  if (blockIndicators) blockPlainAllowed = false;
  return { multiline: lineBreaks, blockPlainAllowed, singleQuotedAllowed, blockAllowed };
}

const isDigit = (c: string) => /^\p{Nd}$/u.test(c);
const isLetter = (c: string) => /^\p{L}$/u.test(c);

/** yaml.v3's order of string map keys (sorter.go keyList.Less): letters by code point, digit runs by value. */
export function naturalKeyOrder(a: string, b: string): number {
  if (a === b) return 0;
  return keyLess(a, b) ? -1 : keyLess(b, a) ? 1 : 0;
}

function keyLess(a: string, b: string): boolean {
  const ar = [...a];
  const br = [...b];
  let digits = false;
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) {
      digits = isDigit(ar[i]);
      continue;
    }
    const al = isLetter(ar[i]);
    const bl = isLetter(br[i]);
    if (al && bl) return ar[i].codePointAt(0)! < br[i].codePointAt(0)!;
    if (al || bl) return digits ? al : bl;
    let an = 0n;
    let bn = 0n;
    if (ar[i] === '0' || br[i] === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]); j--) {
        if (ar[j] !== '0') {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && isDigit(ar[ai]); ai++) an = an * 10n + BigInt(ar[ai].charCodeAt(0) - 48);
    let bi = i;
    for (; bi < br.length && isDigit(br[bi]); bi++) bn = bn * 10n + BigInt(br[bi].charCodeAt(0) - 48);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return ar[i].codePointAt(0)! < br[i].codePointAt(0)!;
  }
  return ar.length < br.length;
}
