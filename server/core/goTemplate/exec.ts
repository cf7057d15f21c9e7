// Executing a parsed Go template against data, with text/template's rules: dot and variables, pipelines
// whose previous value is the last argument of the next call, `and`/`or` short-circuiting, truth, range over
// lists, maps (sorted keys) and integers, `missingkey=error`, and Go's execution error texts
// ("template: <name>:<line>:<col>: executing "<name>" at <<node>>: ...").

import {
  argString,
  commandString,
  pipeString,
  type ArgNode,
  type CommandNode,
  type Node,
  type PipeNode,
  type TemplateSet,
} from './parse';
import { formatValue, goTypeName, isFloat, isInt, isMap, isTrue, sortedKeys } from './values';

/** A Go parameter type: string, int, bool, float64, map[string]interface{}, interface{}. */
export type ParamType = 's' | 'i' | 'b' | 'f' | 'm' | 'a';

const PARAM_TYPE_NAMES: Record<ParamType, string> = {
  s: 'string',
  i: 'int',
  b: 'bool',
  f: 'float64',
  m: 'map[string]interface {}',
  a: 'interface {}',
};

/** A template function: its argument counts and types, and its body, given the evaluated arguments. */
export interface GoFunction {
  /** Fewest arguments. */
  min: number;
  /** Most arguments (Infinity for a variadic function). */
  max: number;
  /** Parameter types; when variadic, the last one is the type of every extra argument. */
  params?: ParamType[];
  /** Throws {@link ArgTypeError} for an argument of the wrong type, any other Error for a failed call. */
  call: (args: unknown[]) => unknown;
}

/** An argument Go could not convert to the parameter's type (no "error calling" prefix, as in Go). */
export class ArgTypeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArgTypeError';
  }
}

export class TemplateExecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateExecError';
  }
}

/** How deep `{{template}}` calls may nest (Go allows 100000; a JavaScript stack does not). */
export const MAX_TEMPLATE_DEPTH = 1000;

const BREAK = Symbol('break');
const CONTINUE = Symbol('continue');

interface Variable {
  name: string;
  value: unknown;
}

type AtNode = ArgNode | Node | CommandNode;

/** Runs the set's main template with `data` as dot; throws {@link TemplateExecError}. */
export function executeTemplate(
  set: TemplateSet,
  funcs: ReadonlyMap<string, GoFunction>,
  data: unknown,
): string {
  const out: string[] = [];
  new State(set, funcs, out, set.name, [{ name: '$', value: data }], 0).walkList(data, set.root);
  return out.join('');
}

class State {
  private node: AtNode | null = null;

  constructor(
    private readonly set: TemplateSet,
    private readonly funcs: ReadonlyMap<string, GoFunction>,
    private readonly out: string[],
    private readonly tmplName: string,
    private readonly vars: Variable[],
    private readonly depth: number,
  ) {}

  // --- errors ---

  private at(node: AtNode): void {
    this.node = node;
  }

  private errorf(message: string): never {
    if (!this.node) throw new TemplateExecError(`template: ${this.tmplName}: ${message}`);
    const pos = this.node.pos;
    const before = this.set.text.slice(0, pos);
    const nl = before.lastIndexOf('\n');
    const line = before.split('\n').length;
    const col = new TextEncoder().encode(nl < 0 ? before : before.slice(nl + 1)).length;
    let context = nodeString(this.node);
    if (context.length > 20) context = `${context.slice(0, 20)}...`;
    throw new TemplateExecError(
      `template: ${this.set.name}:${line}:${col}: executing ${JSON.stringify(this.tmplName)} at <${context}>: ${message}`,
    );
  }

  // --- variables ---

  private mark(): number {
    return this.vars.length;
  }

  private pop(mark: number): void {
    this.vars.length = mark;
  }

  private setVar(name: string, value: unknown): void {
    for (let k = this.vars.length - 1; k >= 0; k--) {
      if (this.vars[k].name === name) {
        this.vars[k].value = value;
        return;
      }
    }
    this.errorf(`undefined variable: ${name}`);
  }

  private varValue(name: string): unknown {
    for (let k = this.vars.length - 1; k >= 0; k--) if (this.vars[k].name === name) return this.vars[k].value;
    this.errorf(`undefined variable: ${name}`);
  }

  // --- walking ---

  walkList(dot: unknown, list: Node[]): void {
    for (const n of list) this.walk(dot, n);
  }

  private walk(dot: unknown, node: Node): void {
    this.at(node);
    switch (node.type) {
      case 'text':
        this.out.push(node.text);
        return;
      case 'action': {
        const value = this.evalPipeline(dot, node.pipe);
        if (node.pipe.decl.length === 0) {
          this.at(node);
          this.out.push(value === null || value === undefined ? '<no value>' : formatValue(value));
        }
        return;
      }
      case 'if':
      case 'with': {
        const mark = this.mark();
        const value = this.evalPipeline(dot, node.pipe);
        if (isTrue(value)) this.walkList(node.type === 'with' ? value : dot, node.list);
        else if (node.elseList) this.walkList(dot, node.elseList);
        this.pop(mark);
        return;
      }
      case 'range':
        this.walkRange(dot, node);
        return;
      case 'template':
        this.walkTemplate(dot, node);
        return;
      case 'break':
        throw BREAK;
      case 'continue':
        throw CONTINUE;
    }
  }

  private walkRange(dot: unknown, node: Extract<Node, { list: Node[] }>): void {
    const outer = this.mark();
    const value = this.evalPipeline(dot, node.pipe);
    const mark = this.mark();
    const decl = node.pipe.decl;
    const one = (index: unknown, elem: unknown): boolean => {
      if (decl.length > 0) {
        if (node.pipe.isAssign) this.setVar(decl[0], decl.length > 1 ? index : elem);
        else this.vars[mark - 1].value = elem;
      }
      if (decl.length > 1) {
        if (node.pipe.isAssign) this.setVar(decl[1], elem);
        else this.vars[mark - 2].value = index;
      }
      try {
        this.walkList(elem, node.list);
      } catch (e) {
        if (e === BREAK) return false;
        if (e !== CONTINUE) throw e;
      } finally {
        this.pop(mark);
      }
      return true;
    };
    let ran = false;
    if (Array.isArray(value)) {
      for (let k = 0; k < value.length; k++) {
        ran = true;
        if (!one(k, value[k])) break;
      }
    } else if (isMap(value)) {
      for (const key of sortedKeys(value)) {
        ran = true;
        if (!one(key, value[key])) break;
      }
    } else if (isInt(value)) {
      this.at(node);
      if (decl.length > 1) this.errorf(`can't use ${value} to iterate over more than one variable`);
      for (let k = 0; k < value; k++) {
        ran = true;
        if (!one(k, k)) break;
      }
    } else if (value !== null && value !== undefined) {
      this.at(node);
      this.errorf(`range can't iterate over ${formatValue(value)}`);
    }
    if (!ran && node.elseList) this.walkList(dot, node.elseList);
    this.pop(outer);
  }

  private walkTemplate(dot: unknown, node: Extract<Node, { type: 'template' }>): void {
    this.at(node);
    const list = this.set.defined.get(node.name) ?? (node.name === this.set.name ? this.set.root : undefined);
    if (!list) this.errorf(`template ${JSON.stringify(node.name)} not defined`);
    if (this.depth >= MAX_TEMPLATE_DEPTH)
      this.errorf(`exceeded maximum template depth (${MAX_TEMPLATE_DEPTH})`);
    const newDot = node.pipe ? this.evalPipeline(dot, node.pipe) : null;
    new State(
      this.set,
      this.funcs,
      this.out,
      node.name,
      [{ name: '$', value: newDot }],
      this.depth + 1,
    ).walkList(newDot, list);
  }

  // --- evaluation ---

  private evalPipeline(dot: unknown, pipe: PipeNode): unknown {
    this.at(pipe);
    let value: unknown = undefined;
    for (const cmd of pipe.cmds) value = this.evalCommand(dot, cmd, value);
    if (value === undefined) value = null;
    for (const name of pipe.decl) {
      if (pipe.isAssign) this.setVar(name, value);
      else this.vars.push({ name, value });
    }
    return value;
  }

  /** `final` is the previous command's value in the pipeline, or undefined for none. */
  private evalCommand(dot: unknown, cmd: CommandNode, final: unknown): unknown {
    const first = cmd.args[0];
    switch (first.type) {
      case 'field':
        this.at(first);
        return this.evalFieldChain(dot, dot, first, first.idents, cmd.args, final);
      case 'chain': {
        this.at(first);
        if (first.node.type === 'nil') this.errorf(`indirection through explicit nil in ${argString(first)}`);
        const receiver = this.evalArg(dot, first.node);
        return this.evalFieldChain(dot, receiver, first, first.fields, cmd.args, final);
      }
      case 'identifier':
        return this.evalFunction(dot, first, cmd.args.slice(1), final);
      case 'pipe':
        this.notAFunction(cmd.args, final);
        return this.evalPipeline(dot, first);
      case 'variable': {
        this.at(first);
        const value = this.varValue(first.idents[0]);
        if (first.idents.length === 1) {
          this.notAFunction(cmd.args, final);
          return value;
        }
        return this.evalFieldChain(dot, value, first, first.idents.slice(1), cmd.args, final);
      }
    }
    this.at(first);
    this.notAFunction(cmd.args, final);
    switch (first.type) {
      case 'bool':
      case 'number':
      case 'string':
        return first.value;
      case 'dot':
        return dot;
      case 'nil':
        this.errorf('nil is not a command');
    }
  }

  private notAFunction(args: ArgNode[], final: unknown): void {
    if (args.length > 1 || final !== undefined)
      this.errorf(`can't give argument to non-function ${argString(args[0])}`);
  }

  private evalFieldChain(
    dot: unknown,
    receiver: unknown,
    node: ArgNode,
    idents: string[],
    args: ArgNode[],
    final: unknown,
  ): unknown {
    let value = receiver;
    for (let k = 0; k < idents.length - 1; k++)
      value = this.evalField(idents[k], node, [], undefined, value, k > 0);
    return this.evalField(idents[idents.length - 1], node, args, final, value, idents.length > 1);
  }

  private evalField(
    name: string,
    node: ArgNode,
    args: ArgNode[],
    final: unknown,
    receiver: unknown,
    fromMapValue: boolean,
  ): unknown {
    if (receiver === null || receiver === undefined) {
      if (fromMapValue || node.type === 'chain') this.errorf(`nil pointer evaluating interface {}.${name}`);
      this.errorf(`nil data; no entry for key ${JSON.stringify(name)}`);
    }
    if (isMap(receiver)) {
      if (args.length > 1 || final !== undefined) this.errorf(`${name} is not a method but has arguments`);
      if (!Object.hasOwn(receiver, name)) this.errorf(`map has no entry for key ${JSON.stringify(name)}`);
      const value = receiver[name];
      return value === undefined ? null : value;
    }
    this.errorf(`can't evaluate field ${name} in type ${goTypeName(receiver)}`);
  }

  private evalArg(dot: unknown, node: ArgNode): unknown {
    this.at(node);
    switch (node.type) {
      case 'dot':
        return dot;
      case 'nil':
        return null;
      case 'field':
        return this.evalFieldChain(dot, dot, node, node.idents, [node], undefined);
      case 'variable': {
        const value = this.varValue(node.idents[0]);
        if (node.idents.length === 1) return value;
        return this.evalFieldChain(dot, value, node, node.idents.slice(1), [node], undefined);
      }
      case 'pipe':
        return this.evalPipeline(dot, node);
      case 'identifier':
        return this.evalFunction(dot, node, [], undefined);
      case 'chain': {
        if (node.node.type === 'nil') this.errorf(`indirection through explicit nil in ${argString(node)}`);
        const receiver = this.evalArg(dot, node.node);
        return this.evalFieldChain(dot, receiver, node, node.fields, [node], undefined);
      }
      case 'bool':
      case 'number':
      case 'string':
        return node.value;
    }
  }

  /** Go's evalArg checks: a constant must suit the parameter's kind; any other value must be assignable. */
  private checkArg(node: ArgNode, value: unknown, type: ParamType): unknown {
    this.at(node);
    const shown = argString(node);
    switch (node.type) {
      case 'nil':
        if (type === 'a' || type === 'm') return null;
        this.errorf(`cannot assign nil to ${PARAM_TYPE_NAMES[type]}`);
      // falls through (errorf throws)
      case 'string':
      case 'number':
      case 'bool': {
        if (type === 'a') return value;
        if (type === 's' && node.type === 'string') return value;
        if (type === 'i' && node.type === 'number' && isInt(value)) return value;
        if (type === 'f' && node.type === 'number') return value;
        if (type === 'b' && node.type === 'bool') return value;
        const expected = { s: 'string', i: 'integer', f: 'float', b: 'bool', m: '' }[type];
        if (type === 'm') this.errorf(`can't handle ${shown} for arg of type ${PARAM_TYPE_NAMES[type]}`);
        this.errorf(`expected ${expected}; found ${shown}`);
      }
      // falls through (errorf throws)
      default:
        return this.validateType(value, type);
    }
  }

  /** Go's validateType: a value given to a parameter must be of its type (nil only for a map or interface). */
  private validateType(value: unknown, type: ParamType): unknown {
    if (value === null || value === undefined) {
      if (type === 'a' || type === 'm') return null;
      this.errorf(`invalid value; expected ${PARAM_TYPE_NAMES[type]}`);
    }
    const ok =
      type === 'a' ||
      (type === 's' && typeof value === 'string') ||
      (type === 'i' && isInt(value)) ||
      (type === 'b' && typeof value === 'boolean') ||
      (type === 'f' && isFloat(value)) ||
      (type === 'm' && isMap(value));
    if (!ok)
      this.errorf(`wrong type for value; expected ${PARAM_TYPE_NAMES[type]}; got ${goTypeName(value)}`);
    return value;
  }

  private evalFunction(
    dot: unknown,
    node: Extract<ArgNode, { type: 'identifier' }>,
    args: ArgNode[],
    final: unknown,
  ): unknown {
    this.at(node);
    const name = node.name;
    const fn = this.funcs.get(name);
    if (!fn) this.errorf(`${JSON.stringify(name)} is not a defined function`);
    const numIn = args.length + (final !== undefined ? 1 : 0);
    if (fn.max === Infinity) {
      if (numIn < fn.min)
        this.errorf(`wrong number of args for ${name}: want at least ${fn.min} got ${args.length}`);
    } else if (numIn < fn.min || numIn > fn.max) {
      this.errorf(
        `wrong number of args for ${name}: want ${fn.min === fn.max ? fn.min : fn.max} got ${numIn}`,
      );
    }
    if (name === 'and' || name === 'or') {
      let value: unknown = null;
      for (const arg of args) {
        value = this.evalArg(dot, arg);
        if (isTrue(value) === (name === 'or')) return value;
      }
      return final !== undefined ? final : value;
    }
    const typeAt = (k: number): ParamType =>
      fn.params && fn.params.length > 0 ? fn.params[Math.min(k, fn.params.length - 1)] : 'a';
    const values = args.map((a, k) => this.checkArg(a, this.evalArg(dot, a), typeAt(k)));
    if (final !== undefined) values.push(this.validateType(final, typeAt(args.length)));
    this.at(node);
    try {
      const result = fn.call(values);
      return result === undefined ? null : result;
    } catch (e) {
      if (e instanceof TemplateExecError) throw e;
      if (e instanceof ArgTypeError) this.errorf(e.message);
      this.errorf(`error calling ${name}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

/** Go's String() of the node an execution error points at. */
function nodeString(node: AtNode): string {
  if ('args' in node) return commandString(node);
  switch (node.type) {
    case 'text':
      return node.text;
    case 'action':
      return `{{${pipeString(node.pipe)}}}`;
    case 'if':
    case 'with':
    case 'range':
      return `{{${node.type} ${pipeString(node.pipe)}}}`;
    case 'template':
      return `{{template ${JSON.stringify(node.name)}${node.pipe ? ` ${pipeString(node.pipe)}` : ''}}}`;
    case 'break':
    case 'continue':
      return `{{${node.type}}}`;
    default:
      return argString(node);
  }
}
