import { describe, expect, it } from 'vitest';
import { isMap, isPair, isScalar, isSeq } from 'yaml';
import type { LineCounter } from 'yaml';
import { parseYamlDocuments, parseYamlFast, parseYamlReference, type ParsedYaml } from './yamlFrontEnd';

/** A comparable picture of a tree: kinds, values, scalar styles and each node's line and column. */
function shape(parsed: ParsedYaml): unknown {
  const at = (lines: LineCounter, offset: number | undefined) => {
    if (offset === undefined) return null;
    const p = lines.linePos(offset);
    return `${p.line}:${p.col}`;
  };
  const walk = (node: unknown): unknown => {
    if (node === null || node === undefined) return null;
    if (isMap(node)) {
      return {
        map: at(parsed.lines, node.range?.[0]),
        items: node.items.map((p) => (isPair(p) ? [walk(p.key), walk(p.value)] : 'not a pair')),
      };
    }
    if (isSeq(node)) return { seq: at(parsed.lines, node.range?.[0]), items: node.items.map(walk) };
    if (isScalar(node)) {
      const s = node as typeof node & { source?: string };
      const v = s.value;
      return {
        at: at(parsed.lines, node.range?.[0]),
        value: typeof v === 'number' && !Number.isFinite(v) ? String(v) : v,
        type: node.type,
        format: node.format ?? null,
        minFractionDigits: node.minFractionDigits ?? null,
        source: s.source ?? null,
      };
    }
    return 'another kind of node';
  };
  return parsed.docs.map((d) => walk(d.contents));
}

function expectSameAsReference(text: string, label: string): boolean {
  const fast = parseYamlFast(text);
  if (fast === null) return false;
  const reference = parseYamlReference(text);
  expect(
    reference.docs.every((d) => d.errors.length === 0 && d.warnings.length === 0),
    `${label}: the fast path took a file the yaml library reports problems in`,
  ).toBe(true);
  expect(shape(fast), label).toEqual(shape(reference));
  return true;
}

/** Every YAML file under the folders that hold the repository's DAG files and fixtures, by path. */
const REPOSITORY_YAML = import.meta.glob(
  [
    '../../../{conformance,deploy,docs,e2e,tests,bench}/**/*.yaml',
    '../../../{conformance,deploy,docs,e2e,tests,bench}/**/*.yml',
  ],
  { query: '?raw', import: 'default', eager: true },
) as Record<string, string>;

const SNIPPETS: Record<string, string> = {
  scalars: [
    'a: 1',
    'b: -2',
    'c: +3',
    'd: 0o17',
    'e: 0x1F',
    'f: 1.50',
    'g: .5',
    'h: 1e3',
    'i: -.inf',
    'j: .NaN',
    'k: true',
    'l: False',
    'm: ~',
    'n: null',
    'o: "quoted: yes"',
    "p: 'single ''quote'''",
    'q: plain text with $VAR and ${params.x}',
    'r: 007',
    's: 1_000',
    't: 0b101',
    'u: "multi\\nline"',
    'v: 12:30',
    'w: TRUE',
    'x: Null',
    'y: NULL',
    'z: nullish',
    'aa: Nope',
    'ab: FALSE',
    'ac: truthy',
  ].join('\n'),
  blocks: 'run: |\n  echo one\n  echo two\nscript: >-\n  folded\n  text\n\nkeep: |+\n  kept\n\nafter: x\n',
  nested:
    'steps:\n  - name: a\n    run: echo\n    depends: [b, c]\n    env: {X: 1, "Y": two}\n  - b\n  -\n    name: c\n',
  flow: 'x: {a: [1, {b: 2}], c: []}\ny: [ ]\nz: { }\n',
  comments: '# top\na: 1 # trailing\n# between\nb:\n  # inside\n  - x # item\n',
  documents: 'steps:\n  - run: a\n---\nname: sub\nsteps:\n  - run: b\n',
  anchorsWithoutAliases: 'a: &x 1\nb: &y\n  c: 2\n',
  crlf: 'a: 1\r\nb:\r\n  - x\r\n',
  unicode: 'name: "\u00e9t\u00e9"\nrun: echo \u2603\n',
  blockInSequence: 'steps:\n  - |\n    echo one\n  - run: >\n      two\n',
  keysOfOtherTypes: '1: one\ntrue: yes\nnull: nothing\n',
  duplicateKeys: 'a: 1\na: 2\n',
  mergeKey: 'base: {x: 1}\nitem:\n  <<: {y: 2}\n  z: 3\n',
};

describe('the fast YAML front end', () => {
  it('gives the same trees as the yaml library for every YAML file of the repository', () => {
    const files = Object.entries(REPOSITORY_YAML);
    expect(files.length).toBeGreaterThan(100);
    let fast = 0;
    for (const [file, text] of files) if (expectSameAsReference(text, file)) fast++;
    // Most files take the fast path; the rest are read by the yaml library itself.
    expect(fast / files.length).toBeGreaterThan(0.7);
  });

  for (const [name, text] of Object.entries(SNIPPETS)) {
    it(`gives the same tree as the yaml library for ${name}`, () => {
      expect(expectSameAsReference(text, name)).toBe(true);
    });
  }

  it.each([
    ['a syntax error', 'a: [1, 2\nb: 3\n'],
    ['an alias', 'a: &x {b: 1}\nc: *x\n'],
    ['a tag', 'a: !!str 1\n'],
    ['a directive', '%YAML 1.2\n---\na: 1\n'],
    ['an empty document', '---\n---\na: 1\n'],
    ['a bare scalar', 'just text\n'],
    ['a tab', 'a:\t1\n'],
    ['an empty file', ''],
    ['nesting too deep', 'a: ' + '['.repeat(200) + ']'.repeat(200) + '\n'],
  ])('leaves %s to the yaml library', (_what, text) => {
    expect(parseYamlFast(text)).toBeNull();
    const both = parseYamlDocuments(text);
    expect(shape(both)).toEqual(shape(parseYamlReference(text)));
  });
});
