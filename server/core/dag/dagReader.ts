// Typed reads from a parsed YAML tree that collect every problem with its line, column and field path, so
// that one pass over a DAG file reports all of its errors at once.

import { isAlias, isMap, isScalar, isSeq } from 'yaml';
import type { Document, LineCounter, Node, Scalar, YAMLMap } from 'yaml';
import type { DagError } from './dagError';
import { unknownKeyMessage } from './keyHints';

/** A value found under a key (or at a list index), with what is needed to report a problem with it. */
export interface Entry {
  key: string;
  /** Field path of the value, e.g. `steps[2].retry_policy.limit`. */
  field: string;
  /** The value, aliases resolved; null when the key has no value at all. */
  value: Node | null;
  /** Where to point when the value itself has no place (`key:` with nothing after it). */
  keyNode: Node;
}

/** Collects errors and warnings while reading one DAG document. */
export class DagReader {
  readonly errors: DagError[] = [];
  readonly warnings: string[] = [];
  /** Env value nodes of a Dagu 1.x file whose backticks run when the run or step starts (see dagu1.ts). */
  evalEnv: ReadonlySet<Node> = new Set();
  /** Eval texts of a Dagu 1.x file (conditions, params) whose backticks run with no time limit (dagu1.ts). */
  unboundedEvals: ReadonlySet<Node> = new Set();
  /** Errors that only follow from a part of the file being refused as unsupported (see dropFollowOns). */
  private readonly followOns = new Set<DagError>();

  constructor(
    private readonly doc: Document,
    private readonly lines: LineCounter,
    readonly file: string | null,
    /** `dagu validate`: problems Dagu finds only when a run starts are warnings here, not errors. */
    readonly validating = false,
  ) {}

  /** Records an error located at `node` (its first character). */
  error(node: Node | null | undefined, field: string, message: string, kind?: 'unsupported'): undefined {
    const offset = node?.range?.[0];
    const pos = offset === undefined ? null : this.lines.linePos(offset);
    const e: DagError = {
      file: this.file,
      line: pos?.line ?? null,
      column: pos?.col ?? null,
      field,
      message,
    };
    if (kind) e.kind = kind;
    this.errors.push(e);
    return undefined;
  }

  /** Records that a Dagu feature this product does not run is used at `node`. */
  unsupported(node: Node | null | undefined, field: string, reason: string): undefined {
    return this.error(node, field, reason, 'unsupported');
  }

  /**
   * Records an error that is only worth telling when nothing near it was refused as unsupported: a step "needs
   * run" only because what it runs is a Dagu feature that is refused already.
   */
  followOn(node: Node | null | undefined, field: string, message: string): undefined {
    this.error(node, field, message);
    this.followOns.add(this.errors[this.errors.length - 1]);
    return undefined;
  }

  /** When an error from index `from` on refuses something as unsupported, the follow-on errors among them go. */
  dropFollowOns(from: number): void {
    if (this.followOns.size === 0) return;
    const part = this.errors.slice(from);
    if (!part.some((e) => e.kind === 'unsupported')) return;
    this.errors.splice(from, part.length, ...part.filter((e) => !this.followOns.has(e)));
  }

  /** Records an error about an entry's value (or its key when it has no value). */
  errorAt(entry: Entry, message: string): undefined {
    return this.error(isNull(entry.value) ? entry.keyNode : entry.value, entry.field, message);
  }

  /** The 1-based line of a node, for messages that mention another place in the file. */
  lineOf(node: Node): number | null {
    const offset = node.range?.[0];
    return offset === undefined ? null : this.lines.linePos(offset).line;
  }

  /** A value as plain data (maps, lists, scalars), aliases and merge keys followed; null for no value. */
  toJS(node: Node | null): unknown {
    if (node === null) return null;
    return node.toJS(this.doc, { maxAliasCount: 100 }) as unknown;
  }

  /**
   * A node made from plain data (a custom step's expansion, base.yaml's definitions), located at `at`: every
   * node of it reports its problems at `at`'s place (none when `at` is null or has no place).
   */
  createNode(value: unknown, at: Node | null): Node {
    const node = this.doc.createNode(value) as Node;
    if (at?.range) placeAt(node, at.range);
    return node;
  }

  resolve(node: unknown): Node | null {
    if (isAlias(node)) return (node.resolve(this.doc) as Node | undefined) ?? null;
    return (node as Node | null) ?? null;
  }

  /**
   * The entries of a map, checking that keys are plain, known and not repeated. `<<` merge keys are followed:
   * keys written in the map win over merged ones. `allowed` null means any key (env names, labels). Returns
   * null (after reporting) when `entry` is not a map. A key in `unsupported` is a Dagu key this product refuses:
   * it is reported with its reason as an `unsupported` error. With `foldCase`, keys are matched ignoring case
   * (`Condition` is `condition`) and returned lower-cased; two spellings of one key are a duplicate. Dagu matches
   * the keys of every map it decodes into a Go struct that way (its decoder, mapstructure, falls back to a
   * case-insensitive match), so the DAG, a step and their fixed-key maps are read with `foldCase`.
   */
  map(
    entry: Entry,
    allowed: readonly string[] | null,
    what: string,
    unsupported?: Readonly<Record<string, string>>,
    foldCase = false,
  ): Map<string, Entry> | null {
    if (!isMap(entry.value)) {
      this.errorAt(entry, `${what} must be a map, got ${describe(entry.value)}`);
      return null;
    }
    return this.entries(entry.value, entry.field, allowed, null, unsupported, foldCase);
  }

  /**
   * `seen` holds the maps being merged into this one (null: none, the common case), so that a map merged into
   * itself is read once. This runs for every map of a file, mostly in V8's interpreter (a cold `dagu
   * validate`): the loop is indexed, as a for-of loop allocates on every turn there, and the merge's maps and
   * sets are made only for a map that has a `<<` key.
   */
  private entries(
    map: YAMLMap,
    field: string,
    allowed: readonly string[] | null,
    seen: ReadonlySet<YAMLMap> | null,
    unsupported?: Readonly<Record<string, string>>,
    foldCase = false,
  ): Map<string, Entry> {
    const own = new Map<string, Entry>();
    let merged: Map<string, Entry> | null = null;
    const items = map.items;
    for (let i = 0; i < items.length; i++) {
      const pair = items[i];
      const keyNode = pair.key as Node | null;
      if (!isScalar(keyNode) || keyNode.value === null || typeof keyNode.value === 'object') {
        this.error(keyNode ?? map, field, 'keys must be plain names');
        continue;
      }
      const written = String(keyNode.value);
      const key = foldCase ? written.toLowerCase() : written;
      const value = this.resolve(pair.value);
      if (key === '<<' && keyNode.type === 'PLAIN') {
        // Earlier merge sources win over later ones, as in YAML 1.1's merge key.
        merged ??= new Map<string, Entry>();
        const within = seen ?? new Set([map]);
        const sources = isSeq(value) ? value.items.map((item) => this.resolve(item)) : [value];
        for (const source of sources) {
          if (!isMap(source)) {
            this.error(source ?? keyNode, field, 'a << merge needs a map or a list of maps');
          } else if (!within.has(source)) {
            const sub = this.entries(
              source,
              field,
              allowed,
              new Set([...within, source]),
              unsupported,
              foldCase,
            );
            for (const [k, e] of sub) if (!merged.has(k)) merged.set(k, e);
          }
        }
        continue;
      }
      const child: Entry = { key, field: field === '' ? written : `${field}.${written}`, value, keyNode };
      if (allowed && !allowed.includes(key)) {
        const reason = unsupported && Object.hasOwn(unsupported, key) ? unsupported[key] : undefined;
        if (reason !== undefined && !isNull(value)) this.unsupported(keyNode, child.field, reason);
        else if (reason === undefined) this.error(keyNode, child.field, unknownKeyMessage(written, allowed));
        continue;
      }
      const previous = own.get(key);
      if (previous) {
        this.error(
          keyNode,
          child.field,
          `key "${written}" is already defined at line ${this.lineOf(previous.keyNode)}` +
            (String((previous.keyNode as Scalar).value) === written
              ? ''
              : ` as "${String((previous.keyNode as Scalar).value)}" (these keys ignore case)`),
        );
        continue;
      }
      own.set(key, child);
    }
    if (merged) for (const [k, e] of merged) if (!own.has(k)) own.set(k, e);
    return own;
  }

  /** The items of a list as entries `field[i]`; null (after reporting) when `entry` is not a list. */
  list(entry: Entry, what: string): Entry[] | null {
    if (!isSeq(entry.value)) {
      this.errorAt(entry, `${what} must be a list, got ${describe(entry.value)}`);
      return null;
    }
    return entry.value.items.map((item, i) => {
      const value = this.resolve(item);
      return {
        key: String(i),
        field: `${entry.field}[${i}]`,
        value,
        keyNode: value ?? (entry.value as Node),
      };
    });
  }

  /** A string value; undefined when absent or null, or (after reporting) not a string. */
  string(entry: Entry | undefined, what = 'a string'): string | undefined {
    if (!entry || isNull(entry.value)) return undefined;
    if (isScalar(entry.value) && typeof entry.value.value === 'string') return this.withoutNul(entry);
    return this.errorAt(entry, `must be ${what}, got ${describe(entry.value)}`);
  }

  /**
   * A string value that holds no NUL character: every string of a DAG ends up in a command line, an
   * environment variable or a path, none of which can carry one (the run would fail only when it starts).
   */
  private withoutNul(entry: Entry): string | undefined {
    const text = (entry.value as Scalar<string>).value;
    if (!text.includes('\0')) return text;
    return this.errorAt(entry, `must not contain a NUL character, got ${describe(entry.value)}`);
  }

  /** A string, number or boolean value as a string (labels, env values, params). */
  scalarText(entry: Entry | undefined, what = 'a string'): string | undefined {
    if (!entry || isNull(entry.value)) return undefined;
    if (isScalar(entry.value)) {
      const v = entry.value.value;
      if (typeof v === 'string') return this.withoutNul(entry);
      if ((typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean') return String(v);
    }
    return this.errorAt(entry, `must be ${what}, got ${describe(entry.value)}`);
  }

  /** An integer value of at least `min`; undefined when absent or null, or (after reporting) invalid. */
  integer(entry: Entry | undefined, min: number): number | undefined {
    if (!entry || isNull(entry.value)) return undefined;
    const v = isScalar(entry.value) ? entry.value.value : undefined;
    if (typeof v !== 'number' || !Number.isInteger(v)) {
      return this.errorAt(entry, `must be an integer, got ${describe(entry.value)}`);
    }
    if (v < min) {
      return this.errorAt(entry, `must be ${min === 1 ? 'greater than 0' : `at least ${min}`}, got ${v}`);
    }
    return v;
  }

  /** A finite number of at least `min`. */
  number(entry: Entry | undefined, min: number): number | undefined {
    if (!entry || isNull(entry.value)) return undefined;
    const v = isScalar(entry.value) ? entry.value.value : undefined;
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      return this.errorAt(entry, `must be a number, got ${describe(entry.value)}`);
    }
    if (v < min) return this.errorAt(entry, `must be at least ${min}, got ${v}`);
    return v;
  }

  boolean(entry: Entry | undefined): boolean | undefined {
    if (!entry || isNull(entry.value)) return undefined;
    if (isScalar(entry.value) && typeof entry.value.value === 'boolean') return entry.value.value;
    return this.errorAt(entry, `must be true or false, got ${describe(entry.value)}`);
  }
}

/** Gives `node` and everything under it the place `range` (nodes made from plain data have none). */
export function placeAt(node: unknown, range: NonNullable<Node['range']>): void {
  if (isMap(node)) {
    for (const pair of node.items) {
      placeAt(pair.key, range);
      placeAt(pair.value, range);
    }
  } else if (isSeq(node)) {
    for (const item of node.items) placeAt(item, range);
  }
  if (isScalar(node) || isMap(node) || isSeq(node)) node.range ??= [range[0], range[1], range[2]];
}

/** The key of an entry as written in the file (a map read with `foldCase` gives `key` lower-cased). */
export function writtenKey(entry: Entry): string {
  return isScalar(entry.keyNode) ? String(entry.keyNode.value) : entry.key;
}

/** True for a missing value or an explicit YAML null (`key:` or `key: ~`). */
export function isNull(node: Node | null): boolean {
  return node === null || (isScalar(node) && node.value === null);
}

/** A value's type as messages name it, with the value itself when it is short. */
export function describe(node: Node | null): string {
  if (isNull(node)) return 'nothing';
  if (isMap(node)) return 'a map';
  if (isSeq(node)) return 'a list';
  if (isScalar(node)) {
    const v = node.value;
    const shown = JSON.stringify(v);
    const text = shown !== undefined && shown.length <= 40 ? ` ${shown}` : '';
    if (typeof v === 'string') return `a string${text}`;
    if (typeof v === 'number') return `a number${text}`;
    if (typeof v === 'boolean') return `a boolean${text}`;
  }
  return 'a value of another kind';
}
