// Turns the text of a DAG file into the yaml library's document trees, which the readers walk. The yaml
// library is the reference, but on a cold start its lexer and composer cost about five times what js-yaml's
// event parser does (see bench/language.bench.ts, `dagu validate` of a 200-step DAG). So the common case is
// built from js-yaml's events into the yaml library's own node classes, with the ranges the yaml library would
// give them; anything less common (a syntax error, a duplicate key, an alias, a tag, an empty document, a
// directive) is left to the yaml library itself, whose errors and warnings stay the ones users see. The test
// beside this file checks, over every YAML file of the repository's tests and examples, that both ways give
// the same trees.

import { parseEvents, getScalarValue, EVENT_ID, SCALAR_STYLE } from 'js-yaml';
import type { Event, ScalarEvent } from 'js-yaml';
import { Document, LineCounter, Pair, Scalar, YAMLMap, YAMLSeq, parseAllDocuments } from 'yaml';
import type { Node } from 'yaml';

export interface ParsedYaml {
  docs: Document.Parsed[];
  lines: LineCounter;
}

const OPTIONS = { prettyErrors: false, uniqueKeys: false } as const;

/** Every document of `text`, from the fast path when it applies, else from the yaml library. */
export function parseYamlDocuments(text: string): ParsedYaml {
  return parseYamlFast(text) ?? parseYamlReference(text);
}

/** The yaml library's own reading: the reference, and what every unusual file gets. */
export function parseYamlReference(text: string): ParsedYaml {
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { ...OPTIONS, lineCounter: lines });
  return { docs: Array.isArray(docs) ? docs : [], lines };
}

/** Thrown inside the builder when the file needs the yaml library; never escapes. */
class NeedsReference extends Error {}

/**
 * The fast path: null when the file is one the yaml library must read (anything js-yaml refuses, and every
 * construct whose tree the builder does not reproduce exactly).
 */
export function parseYamlFast(text: string): ParsedYaml | null {
  // A byte-order mark, a NUL or a tab anywhere: rare, and the two parsers may disagree on them.
  if (text.length === 0 || /[\t\0\uFEFF]/.test(text)) return null;
  let events: Event[];
  try {
    events = parseEvents(text, { maxDepth: 64 });
  } catch {
    return null;
  }
  try {
    const docs = new Builder(text, events).documents();
    if (docs.length === 0) return null;
    const lines = new LineCounter();
    lines.addNewLine(0);
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines.addNewLine(i + 1);
    return { docs, lines };
  } catch (err) {
    if (err instanceof NeedsReference) return null;
    throw err;
  }
}

const SCALAR_TYPES: Record<number, Scalar.Type> = {
  [SCALAR_STYLE.PLAIN]: 'PLAIN',
  [SCALAR_STYLE.SINGLE_QUOTED]: 'QUOTE_SINGLE',
  [SCALAR_STYLE.DOUBLE_QUOTED]: 'QUOTE_DOUBLE',
  [SCALAR_STYLE.LITERAL_BLOCK]: 'BLOCK_LITERAL',
  [SCALAR_STYLE.FOLDED_BLOCK]: 'BLOCK_FOLDED',
};

/** Builds the yaml library's nodes from the flat event stream, one document at a time. */
class Builder {
  private i = 0;
  /** Where the last token ended: a block scalar's header (`|`, `>`) is the first indicator after it. */
  private lastEnd = 0;

  constructor(
    private readonly text: string,
    private readonly events: readonly Event[],
  ) {}

  documents(): Document.Parsed[] {
    const docs: Document.Parsed[] = [];
    while (this.i < this.events.length) {
      const ev = this.events[this.i++];
      if (ev.type !== EVENT_ID.DOCUMENT) throw new NeedsReference();
      if (ev.directives.length > 0 || ev.explicitEnd) throw new NeedsReference();
      const contents = this.node();
      if (this.events[this.i++]?.type !== EVENT_ID.POP) throw new NeedsReference();
      // An empty document, or one that is a bare scalar: the yaml library says how those read.
      if (!(contents instanceof YAMLMap) && !(contents instanceof YAMLSeq)) throw new NeedsReference();
      const doc = new Document() as Document.Parsed;
      doc.contents = contents as Document.Parsed['contents'];
      docs.push(doc);
    }
    return docs;
  }

  private node(): Node {
    const ev = this.events[this.i++];
    switch (ev?.type) {
      case EVENT_ID.SCALAR:
        if (ev.tagStart !== -1) throw new NeedsReference();
        return this.scalar(ev);
      case EVENT_ID.MAPPING: {
        if (ev.tagStart !== -1) throw new NeedsReference();
        const map = new YAMLMap();
        const start = ev.start;
        this.lastEnd = start + 1;
        while (this.events[this.i]?.type !== EVENT_ID.POP) {
          const key = this.node();
          if (this.events[this.i]?.type === EVENT_ID.POP) throw new NeedsReference();
          map.items.push(new Pair(key, this.node()));
        }
        this.i++;
        if (ev.style === 2) map.flow = true;
        map.range = [start, this.lastEnd, this.lastEnd];
        return map;
      }
      case EVENT_ID.SEQUENCE: {
        if (ev.tagStart !== -1) throw new NeedsReference();
        const seq = new YAMLSeq();
        const start = ev.start;
        this.lastEnd = start + 1;
        while (this.events[this.i]?.type !== EVENT_ID.POP) seq.items.push(this.node());
        this.i++;
        if (ev.style === 2) seq.flow = true;
        seq.range = [start, this.lastEnd, this.lastEnd];
        return seq;
      }
      default:
        // An alias (the yaml library keeps them as aliases, with its own limits on expanding them), or an
        // event out of place.
        throw new NeedsReference();
    }
  }

  private scalar(ev: ScalarEvent): Scalar {
    const type = SCALAR_TYPES[ev.style];
    if (type === undefined) throw new NeedsReference();
    const raw = getScalarValue(this.text, ev);
    const empty = ev.valueStart === -1 || (type === 'PLAIN' && ev.valueStart === ev.valueEnd);
    const node = type === 'PLAIN' ? plainScalar(raw) : new Scalar(raw);
    node.type = type;
    (node as Scalar & { source?: string }).source = raw;
    let start: number;
    let end: number;
    if (empty) {
      // `key:` with nothing after it: the yaml library places the null where the value would start.
      throw new NeedsReference();
    } else if (type === 'QUOTE_SINGLE' || type === 'QUOTE_DOUBLE') {
      start = ev.valueStart - 1;
      end = ev.valueEnd + 1;
    } else if (type === 'PLAIN') {
      start = ev.valueStart;
      end = ev.valueEnd;
    } else {
      start = this.blockHeader(ev);
      end = ev.valueEnd;
    }
    this.lastEnd = end;
    node.range = [start, end, end];
    return node;
  }

  /** The offset of a block scalar's `|` or `>`: the first one after the previous token. */
  private blockHeader(ev: ScalarEvent): number {
    const from = ev.anchorEnd !== -1 ? ev.anchorEnd : this.lastEnd;
    for (let p = from; p < ev.valueStart || (ev.valueStart === -1 && p < this.text.length); p++) {
      const c = this.text[p];
      if (c === '|' || c === '>') return p;
      if (c !== ' ' && c !== '\n' && c !== '\r' && c !== ':' && c !== '-' && c !== '?') break;
    }
    throw new NeedsReference();
  }
}

// The core schema's patterns for plain scalars, made once: a regular expression literal inside a function is a
// new object at every call, and plainScalar runs for every key and word of a file.
const WORD = /^[A-EG-MO-SU-Za-eg-mo-su-z_/$]/;
const NULL = /^(?:~|[Nn]ull|NULL)?$/;
const BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const OCT = /^0o[0-7]+$/;
const INT = /^[-+]?[0-9]+$/;
const HEX = /^0x[0-9a-fA-F]+$/;
const INF_NAN = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const EXP = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;

/** A plain scalar as the yaml library's core schema resolves it (its tests in the same order). */
function plainScalar(s: string): Scalar {
  // Most plain scalars are words (keys, names, commands): none of the patterns below starts with a letter
  // other than those of null, true and false.
  if (WORD.test(s)) return new Scalar(s);
  if (NULL.test(s)) return new Scalar(null);
  if (BOOL.test(s)) return new Scalar(s[0] === 't' || s[0] === 'T');
  if (OCT.test(s)) return withFormat(new Scalar(parseInt(s.substring(2), 8)), 'OCT');
  if (INT.test(s)) return new Scalar(parseInt(s, 10));
  if (HEX.test(s)) return withFormat(new Scalar(parseInt(s.substring(2), 16)), 'HEX');
  if (INF_NAN.test(s)) {
    const value =
      s.slice(-3).toLowerCase() === 'nan'
        ? NaN
        : s[0] === '-'
          ? Number.NEGATIVE_INFINITY
          : Number.POSITIVE_INFINITY;
    return new Scalar(value);
  }
  if (EXP.test(s)) return withFormat(new Scalar(parseFloat(s)), 'EXP');
  if (FLOAT.test(s)) {
    const node = new Scalar(parseFloat(s));
    const dot = s.indexOf('.');
    if (dot !== -1 && s[s.length - 1] === '0') node.minFractionDigits = s.length - dot - 1;
    return node;
  }
  return new Scalar(s);
}

function withFormat(node: Scalar, format: string): Scalar {
  node.format = format;
  return node;
}
