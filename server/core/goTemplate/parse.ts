// The parser of Go's text/template: the node tree of a template and its `{{define}}`/`{{block}}` templates,
// with Go's parse-time checks (functions must exist, variables must be declared, `{{break}}` only in a range)
// and Go's error texts ("template: <name>:<line>: ...").

import { describeItem, lex, type Item } from './lex';
import { GoFloat } from './values';

export type ArgNode =
  | { type: 'field'; pos: number; idents: string[] }
  | { type: 'variable'; pos: number; idents: string[] }
  | { type: 'chain'; pos: number; node: ArgNode; fields: string[] }
  | { type: 'identifier'; pos: number; name: string }
  | { type: 'dot'; pos: number }
  | { type: 'nil'; pos: number }
  | { type: 'bool'; pos: number; value: boolean }
  | { type: 'number'; pos: number; text: string; value: number | GoFloat }
  | { type: 'string'; pos: number; quoted: string; value: string }
  | PipeNode;

export interface CommandNode {
  pos: number;
  args: ArgNode[];
}

export interface PipeNode {
  type: 'pipe';
  pos: number;
  isAssign: boolean;
  decl: string[];
  cmds: CommandNode[];
}

export type Node =
  | { type: 'text'; pos: number; text: string }
  | { type: 'action'; pos: number; pipe: PipeNode }
  | {
      type: 'if' | 'with' | 'range';
      pos: number;
      pipe: PipeNode;
      list: Node[];
      elseList: Node[] | null;
    }
  | { type: 'template'; pos: number; name: string; pipe: PipeNode | null }
  | { type: 'break' | 'continue'; pos: number };

/** A parsed template set: the main template's nodes and the named ones. */
export interface TemplateSet {
  text: string;
  name: string;
  root: Node[];
  defined: Map<string, Node[]>;
}

export class TemplateParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateParseError';
  }
}

/** Options of a parse: which function names exist, and which exist upstream but not here. */
export interface ParseOptions {
  hasFunction: (name: string) => boolean;
  /** Names Dagu's function map has that this product does not implement: refused with a clear message. */
  unsupportedFunction?: (name: string) => boolean;
}

type End = { kind: 'end' | 'else'; item: Item };

/** Parses `text` as template `name`. Throws {@link TemplateParseError} with Go's message. */
export function parseTemplate(text: string, name: string, opts: ParseOptions): TemplateSet {
  return new Parser(text, name, opts).parse();
}

class Parser {
  private readonly items: Item[];
  private i = 0;
  private last: Item | null = null;
  private vars: string[] = ['$'];
  private rangeDepth = 0;
  private readonly defined = new Map<string, Node[]>();

  constructor(
    private readonly text: string,
    private readonly name: string,
    private readonly opts: ParseOptions,
  ) {
    this.items = lex(text);
  }

  parse(): TemplateSet {
    const root: Node[] = [];
    while (this.peek().type !== 'eof') {
      if (this.peek().type === 'left') {
        const save = this.i;
        this.next();
        const t = this.nextNonSpace();
        if (t.type === 'keyword' && t.value === 'define') {
          this.parseDefinition();
          continue;
        }
        this.i = save;
      }
      const n = this.textOrAction();
      if ('kind' in n) this.errorf(`unexpected ${n.kind === 'end' ? '{{end}}' : '{{else}}'}`);
      root.push(n);
    }
    return { text: this.text, name: this.name, root, defined: this.defined };
  }

  // --- items ---

  private peek(): Item {
    return this.items[this.i];
  }

  private next(): Item {
    const item = this.items[this.i];
    if (this.i < this.items.length - 1) this.i++;
    this.last = item;
    if (item.type === 'error') this.errorf(item.value);
    return item;
  }

  private backup(n = 1): void {
    this.i -= n;
  }

  private nextNonSpace(): Item {
    let t = this.next();
    while (t.type === 'space') t = this.next();
    return t;
  }

  private peekNonSpace(): Item {
    const t = this.nextNonSpace();
    this.backup();
    return t;
  }

  private lineOf(pos: number): number {
    let line = 1;
    for (let k = 0; k < pos && k < this.text.length; k++) if (this.text[k] === '\n') line++;
    return line;
  }

  private errorf(message: string): never {
    const at = this.last ?? this.peek();
    throw new TemplateParseError(`template: ${this.name}:${this.lineOf(at.pos)}: ${message}`);
  }

  private unexpected(item: Item, context: string): never {
    if (item.type === 'error') this.errorf(item.value);
    this.errorf(`unexpected ${describeItem(item)} in ${context}`);
  }

  private expect(type: Item['type'], context: string): Item {
    const t = this.nextNonSpace();
    if (t.type !== type) this.unexpected(t, context);
    return t;
  }

  // --- structure ---

  private parseDefinition(): void {
    const nameItem = this.nextNonSpace();
    const name = this.templateName(nameItem, 'define');
    this.expect('right', 'define clause');
    const saved = this.vars;
    this.vars = ['$'];
    const { list, end } = this.itemList();
    this.vars = saved;
    if (end.kind !== 'end') this.errorf(`unexpected {{else}} in define clause`);
    this.addTemplate(name, list);
  }

  private addTemplate(name: string, list: Node[]): void {
    const existing = this.defined.get(name);
    const isEmpty = (nodes: Node[]) => nodes.every((n) => n.type === 'text' && n.text.trim() === '');
    if (existing && !isEmpty(existing) && !isEmpty(list))
      throw new TemplateParseError(`template: multiple definition of template ${JSON.stringify(name)}`);
    if (!existing || !isEmpty(list)) this.defined.set(name, list);
  }

  private itemList(): { list: Node[]; end: End } {
    const list: Node[] = [];
    while (this.peekNonSpace().type !== 'eof') {
      const n = this.textOrAction();
      if ('kind' in n) return { list, end: n };
      list.push(n);
    }
    this.errorf('unexpected EOF');
  }

  private textOrAction(): Node | End {
    const t = this.nextNonSpace();
    if (t.type === 'text') return { type: 'text', pos: t.pos, text: t.value };
    if (t.type === 'left') return this.action();
    this.unexpected(t, 'input');
  }

  private action(): Node | End {
    const t = this.nextNonSpace();
    if (t.type === 'keyword') {
      switch (t.value) {
        case 'block':
          return this.blockControl(t);
        case 'break':
        case 'continue':
          return this.loopControl(t);
        case 'else':
          return this.elseControl(t);
        case 'end':
          this.expect('right', 'end');
          return { kind: 'end', item: t };
        case 'if':
        case 'range':
        case 'with':
          return this.control(t.value, t);
        case 'template':
          return this.templateControl(t);
      }
    }
    this.backup();
    const pipe = this.pipeline('command', 'right');
    return { type: 'action', pos: t.pos, pipe };
  }

  private loopControl(t: Item): Node {
    const after = this.nextNonSpace();
    if (after.type !== 'right') this.unexpected(after, `{{${t.value}}}`);
    if (this.rangeDepth === 0) this.errorf(`{{${t.value}}} outside {{range}}`);
    return { type: t.value as 'break' | 'continue', pos: t.pos };
  }

  private elseControl(t: Item): End {
    const peek = this.peekNonSpace();
    // "else if" and "else with": the keyword stays for control() to read.
    if (peek.type === 'keyword' && (peek.value === 'if' || peek.value === 'with'))
      return { kind: 'else', item: t };
    this.expect('right', 'else');
    return { kind: 'else', item: t };
  }

  private control(context: string, t: Item): Node {
    const mark = this.vars.length;
    const pipe = this.pipeline(context, 'right');
    if (context === 'range') this.rangeDepth++;
    const { list, end } = this.itemList();
    if (context === 'range') this.rangeDepth--;
    let elseList: Node[] | null = null;
    if (end.kind === 'else') {
      const peek = this.peekNonSpace();
      if (context === 'if' && peek.type === 'keyword' && peek.value === 'if') {
        const kw = this.nextNonSpace();
        elseList = [this.control('if', kw)];
      } else if (context === 'with' && peek.type === 'keyword' && peek.value === 'with') {
        const kw = this.nextNonSpace();
        elseList = [this.control('with', kw)];
      } else {
        const rest = this.itemList();
        if (rest.end.kind !== 'end') this.errorf('expected end; found {{else}}');
        elseList = rest.list;
      }
    }
    this.vars.length = mark;
    return { type: context as 'if' | 'with' | 'range', pos: t.pos, pipe, list, elseList };
  }

  private templateControl(t: Item): Node {
    const name = this.templateName(this.nextNonSpace(), 'template clause');
    let pipe: PipeNode | null = null;
    if (this.nextNonSpace().type !== 'right') {
      this.backup();
      pipe = this.pipeline('template clause', 'right');
    }
    return { type: 'template', pos: t.pos, name, pipe };
  }

  private blockControl(t: Item): Node {
    const name = this.templateName(this.nextNonSpace(), 'block clause');
    const pipe = this.pipeline('block clause', 'right');
    // The body is a template of its own: no variables but $, and not inside the enclosing range.
    const saved = this.vars;
    const savedDepth = this.rangeDepth;
    this.vars = ['$'];
    this.rangeDepth = 0;
    const { list, end } = this.itemList();
    this.vars = saved;
    this.rangeDepth = savedDepth;
    if (end.kind !== 'end') this.errorf('unexpected {{else}} in block clause');
    this.addTemplate(name, list);
    return { type: 'template', pos: t.pos, name, pipe };
  }

  private templateName(item: Item, context: string): string {
    if (item.type === 'string' || item.type === 'raw') return this.unquote(item);
    this.unexpected(item, context);
  }

  // --- pipelines ---

  private pipeline(context: string, end: 'right' | 'rparen'): PipeNode {
    const first = this.peekNonSpace();
    const pipe: PipeNode = { type: 'pipe', pos: first.pos, isAssign: false, decl: [], cmds: [] };
    decls: for (;;) {
      const v = this.peekNonSpace();
      if (v.type !== 'variable') break;
      this.nextNonSpace();
      const afterVar = this.peek();
      const nxt = this.peekNonSpace();
      if (nxt.type === 'assign' || nxt.type === 'declare') {
        pipe.isAssign = nxt.type === 'assign';
        this.nextNonSpace();
        pipe.decl.push(v.value);
        if (nxt.type === 'declare') this.vars.push(v.value);
        else this.useVar(v.value);
        break;
      }
      if (nxt.type === 'char' && nxt.value === ',') {
        this.nextNonSpace();
        pipe.decl.push(v.value);
        this.vars.push(v.value);
        if (context === 'range' && pipe.decl.length < 2) {
          const n2 = this.peekNonSpace();
          if (n2.type === 'variable') continue decls;
          this.errorf('missing variable in range declaration');
        }
        this.errorf(`too many declarations in ${context}`);
      }
      // Not a declaration: put the variable back.
      this.i = this.items.indexOf(v);
      void afterVar;
      break;
    }
    for (;;) {
      const t = this.nextNonSpace();
      if (t.type === end) {
        this.checkPipeline(pipe, context);
        return pipe;
      }
      switch (t.type) {
        case 'bool':
        case 'charConst':
        case 'dot':
        case 'field':
        case 'ident':
        case 'number':
        case 'nil':
        case 'raw':
        case 'string':
        case 'variable':
        case 'lparen':
          this.backup();
          pipe.cmds.push(this.command());
          break;
        default:
          this.unexpected(t, context);
      }
    }
  }

  private checkPipeline(pipe: PipeNode, context: string): void {
    if (pipe.cmds.length === 0) this.errorf(`missing value for ${context}`);
    pipe.cmds.slice(1).forEach((cmd, k) => {
      const t = cmd.args[0].type;
      if (t === 'bool' || t === 'dot' || t === 'nil' || t === 'number' || t === 'string')
        this.errorf(`non executable command in pipeline stage ${k + 2}`);
    });
  }

  private command(): CommandNode {
    const cmd: CommandNode = { pos: this.peekNonSpace().pos, args: [] };
    for (;;) {
      this.peekNonSpace();
      const operand = this.operand();
      if (operand) cmd.args.push(operand);
      const t = this.next();
      if (t.type === 'space') continue;
      if (t.type === 'right' || t.type === 'rparen') this.backup();
      else if (t.type !== 'pipe') this.unexpected(t, 'operand');
      break;
    }
    if (cmd.args.length === 0) this.errorf('empty command');
    return cmd;
  }

  private operand(): ArgNode | null {
    const node = this.term();
    if (!node) return null;
    if (this.peek().type !== 'field') return node;
    const fields: string[] = [];
    while (this.peek().type === 'field') fields.push(this.next().value.slice(1));
    switch (node.type) {
      case 'field':
        return { type: 'field', pos: node.pos, idents: [...node.idents, ...fields] };
      case 'variable':
        return { type: 'variable', pos: node.pos, idents: [...node.idents, ...fields] };
      case 'bool':
      case 'string':
      case 'number':
      case 'nil':
      case 'dot':
        this.errorf(`unexpected . after term ${JSON.stringify(argString(node))}`);
      // falls through (errorf throws)
      default:
        return { type: 'chain', pos: node.pos, node, fields };
    }
  }

  private term(): ArgNode | null {
    const t = this.nextNonSpace();
    switch (t.type) {
      case 'ident':
        if (this.opts.unsupportedFunction?.(t.value))
          this.errorf(`function ${JSON.stringify(t.value)} is not supported by this product`);
        if (!this.opts.hasFunction(t.value)) this.errorf(`function ${JSON.stringify(t.value)} not defined`);
        return { type: 'identifier', pos: t.pos, name: t.value };
      case 'dot':
        return { type: 'dot', pos: t.pos };
      case 'nil':
        return { type: 'nil', pos: t.pos };
      case 'variable':
        this.useVar(t.value);
        return { type: 'variable', pos: t.pos, idents: [t.value] };
      case 'field':
        return { type: 'field', pos: t.pos, idents: [t.value.slice(1)] };
      case 'bool':
        return { type: 'bool', pos: t.pos, value: t.value === 'true' };
      case 'charConst':
        return { type: 'number', pos: t.pos, text: t.value, value: this.charValue(t) };
      case 'number':
        return { type: 'number', pos: t.pos, text: t.value, value: this.numberValue(t) };
      case 'lparen':
        return this.pipeline('parenthesized pipeline', 'rparen');
      case 'string':
      case 'raw':
        return { type: 'string', pos: t.pos, quoted: t.value, value: this.unquote(t) };
      default:
        this.backup();
        return null;
    }
  }

  private useVar(name: string): void {
    if (!this.vars.includes(name)) this.errorf(`undefined variable ${JSON.stringify(name)}`);
  }

  private numberValue(t: Item): number | GoFloat {
    let text = t.value.replace(/_/g, '');
    if (text.endsWith('i')) this.errorf(`complex numbers are not supported by this product: ${t.value}`);
    const neg = text.startsWith('-');
    if (text.startsWith('-') || text.startsWith('+')) text = text.slice(1);
    let value: number;
    let float = false;
    if (/^0[xX]/.test(text)) {
      if (/[.pP]/.test(text)) {
        this.errorf(`hexadecimal floating-point numbers are not supported by this product: ${t.value}`);
      }
      value = Number.parseInt(text.slice(2), 16);
    } else if (/^0[oO]/.test(text)) value = Number.parseInt(text.slice(2), 8);
    else if (/^0[bB]/.test(text)) value = Number.parseInt(text.slice(2), 2);
    else if (/^0[0-7]+$/.test(text)) value = Number.parseInt(text, 8);
    else {
      value = Number(text);
      float = /[.eE]/.test(text);
    }
    if (Number.isNaN(value)) this.errorf(`illegal number syntax: ${JSON.stringify(t.value)}`);
    if (neg) value = -value;
    if (!float && !Number.isSafeInteger(value)) float = true;
    return float ? (Number.isInteger(value) ? new GoFloat(value) : value) : value;
  }

  private charValue(t: Item): number {
    const body = t.value.slice(1, -1);
    const s = unquoteGo(body, "'");
    if (s === null || [...s].length !== 1) this.errorf(`malformed character constant: ${t.value}`);
    return s.codePointAt(0)!;
  }

  private unquote(t: Item): string {
    if (t.type === 'raw') return t.value.slice(1, -1).replace(/\r/g, '');
    const s = unquoteGo(t.value.slice(1, -1), '"');
    if (s === null) this.errorf(`invalid syntax`);
    return s;
  }
}

/** The body of a Go interpreted string or rune literal with its escapes applied; null when malformed. */
export function unquoteGo(body: string, quote: '"' | "'"): string | null {
  let out = '';
  for (let k = 0; k < body.length; k++) {
    const c = body[k];
    if (c === quote) return null;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = body[++k];
    const simple: Record<string, string> = {
      a: '\x07',
      b: '\b',
      f: '\f',
      n: '\n',
      r: '\r',
      t: '\t',
      v: '\v',
      '\\': '\\',
    };
    if (e in simple) out += simple[e];
    else if (e === quote) out += e;
    else if (e === 'x' || e === 'u' || e === 'U') {
      const len = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const hex = body.slice(k + 1, k + 1 + len);
      if (!new RegExp(`^[0-9a-fA-F]{${len}}$`).test(hex)) return null;
      const cp = Number.parseInt(hex, 16);
      if (e === 'x') out += String.fromCharCode(cp);
      else {
        if (cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000)) return null;
        out += String.fromCodePoint(cp);
      }
      k += len;
    } else if (e !== undefined && /[0-7]/.test(e)) {
      const oct = body.slice(k, k + 3);
      if (!/^[0-7]{3}$/.test(oct)) return null;
      out += String.fromCharCode(Number.parseInt(oct, 8));
      k += 2;
    } else return null;
  }
  return out;
}

/** Go's String() of an argument node, used in execution error context (`<.a.b>`). */
export function argString(node: ArgNode): string {
  switch (node.type) {
    case 'field':
      return node.idents.map((i) => `.${i}`).join('');
    case 'variable':
      return node.idents.join('.');
    case 'chain': {
      const inner = node.node.type === 'pipe' ? `(${argString(node.node)})` : argString(node.node);
      return inner + node.fields.map((f) => `.${f}`).join('');
    }
    case 'identifier':
      return node.name;
    case 'dot':
      return '.';
    case 'nil':
      return 'nil';
    case 'bool':
      return String(node.value);
    case 'number':
      return node.text;
    case 'string':
      return node.quoted;
    case 'pipe':
      return pipeString(node);
  }
}

export function commandString(cmd: CommandNode): string {
  return cmd.args.map((a) => (a.type === 'pipe' ? `(${argString(a)})` : argString(a))).join(' ');
}

export function pipeString(pipe: PipeNode): string {
  const decl = pipe.decl.length > 0 ? `${pipe.decl.join(', ')} ${pipe.isAssign ? '=' : ':='} ` : '';
  return decl + pipe.cmds.map(commandString).join(' | ');
}
