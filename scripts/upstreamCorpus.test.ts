// The rules of scripts/upstreamCorpus.mjs on small texts: which embedded texts count as DAG files, how a
// `dagu validate` output is classed and judged, and how a start is compared with upstream's expectation.

import { describe, expect, it } from 'vitest';
import {
  classifyValidate,
  compareRun,
  fieldsOf,
  globPaths,
  goRawDagsOf,
  judge,
  startArgs,
  upstreamParserRefusesToo,
  upstreamLoaderRefusesToo,
  onlyCycleWarning,
  parseWorktreeList,
  withoutEntrypointName,
  yamlBlocksOf,
} from './upstreamCorpusLib.mjs';

describe('yamlBlocksOf', () => {
  it('keeps yaml fences with a top-level steps key, dedented, and leaves fragments out', () => {
    const md = [
      '# Doc',
      '```yaml',
      'steps:',
      '  - run: echo a',
      '```',
      '- item:',
      '  ```yml',
      '  type: chain',
      '  steps:',
      '    - echo b',
      '  ```',
      '```yaml',
      '- id: build',
      '  run: make',
      '```',
      'Invalid duplicate ids:',
      '',
      '```yaml',
      'steps: []',
      '```',
      '```sh',
      'steps: not yaml',
      '```',
    ].join('\n');
    expect(yamlBlocksOf(md)).toEqual([
      { line: 2, text: 'steps:\n  - run: echo a\n', invalid: false },
      { line: 7, text: 'type: chain\nsteps:\n  - echo b\n', invalid: false },
      { line: 18, text: 'steps: []\n', invalid: true },
    ]);
  });
});

describe('goRawDagsOf', () => {
  it('finds raw strings holding a DAG and skips fmt templates', () => {
    const src = 'a := `\nsteps:\n  - run: echo "x"\n`\nb := `\nsteps:\n  - run: echo %s\n`\nc := `name`\n';
    expect(goRawDagsOf(src)).toEqual([{ line: 1, text: 'steps:\n  - run: echo "x"\n' }]);
  });
});

describe('classifyValidate and judge', () => {
  const unsupported =
    "f.yaml:2:5: steps[0].container: Dagu's container steps are not supported by this product (x)";
  const other = 'f.yaml:1:1: foo: unknown key "foo"';
  it('tells accepted, unsupported, unsupported with other errors, and rejected files apart', () => {
    expect(classifyValidate({ code: 0, stderr: '' })).toBe('ok');
    expect(classifyValidate({ code: 2, stderr: unsupported })).toBe('unsupported');
    expect(classifyValidate({ code: 2, stderr: `${unsupported}\n${other}` })).toBe('unsupported+');
    expect(classifyValidate({ code: 2, stderr: other })).toBe('rejected');
    expect(classifyValidate({ code: 1, stderr: unsupported })).toBe('rejected');
  });
  it('fails a rejected file upstream loads and an accepted file upstream rejects, and nothing else', () => {
    expect(judge('rejected', 'valid')).toEqual({ verdict: 'error', failed: true });
    expect(judge('ok', 'invalid')).toEqual({ verdict: 'accepted', failed: true });
    expect(judge('unsupported', 'invalid')).toEqual({ verdict: 'rejected', failed: false });
    expect(judge('unsupported', 'valid')).toEqual({ verdict: 'unsupported', failed: false });
    expect(judge('rejected', 'unknown')).toEqual({ verdict: 'rejected?', failed: false });
    expect(judge('rejected', 'start-fails')).toEqual({ verdict: 'early', failed: false });
  });
  it("knows the YAML errors upstream's parser shares, and only when they are all the errors", () => {
    const backtick = 'a.yaml:4:11: invalid YAML: Plain value cannot start with reserved character `';
    const nested = 'a.yaml:7:10: invalid YAML: Nested mappings are not allowed in compact mappings';
    expect(upstreamParserRefusesToo([backtick])).toBe(true);
    expect(upstreamParserRefusesToo([backtick, nested])).toBe(true);
    expect(upstreamParserRefusesToo([backtick, other])).toBe(false);
    expect(upstreamParserRefusesToo(['a.yaml:1:1: invalid YAML: Missing closing "quote'])).toBe(false);
    expect(upstreamParserRefusesToo([])).toBe(false);
  });
});

describe('upstreamLoaderRefusesToo', () => {
  it('knows the load errors upstream raises too, whatever else ours reports beside one', () => {
    const dep = 'a.yaml:4:15: steps[0].depends: step "previous_step" does not exist';
    const route = 'a.yaml:2:5: steps[0].routes: router "route" references non-existent step "notify"';
    const nothing = 'a.yaml:2:5: steps[0]: a step needs run, an action or a call';
    const ours = 'a.yaml:6:7: steps[0].with.host: unknown key "host" (allowed: shell, shell_args)';
    const queue = 'a.yaml:11:3: queue: must be a string, got a map';
    for (const line of [dep, route, nothing, queue]) expect(upstreamLoaderRefusesToo([line])).toBe(true);
    expect(upstreamLoaderRefusesToo([nothing, ours])).toBe(true);
    expect(upstreamLoaderRefusesToo([ours])).toBe(false);
    expect(upstreamLoaderRefusesToo(['a.yaml:1:1: queue: must be a string, got a number'])).toBe(false);
    expect(upstreamLoaderRefusesToo([])).toBe(false);
  });
});

describe('onlyCycleWarning', () => {
  it('is true for a file whose only finding is a dependency cycle', () => {
    const cycle =
      'a.yaml: warning: steps[0].depends: dependency cycle: first depends on second, which depends on first; the run fails when it starts';
    expect(onlyCycleWarning([cycle])).toBe(true);
    expect(onlyCycleWarning([cycle, 'a.yaml: warning: steps[1]: something else'])).toBe(false);
    expect(onlyCycleWarning([])).toBe(false);
  });
});

describe('withoutEntrypointName', () => {
  it("drops the first document's top-level name only", () => {
    expect(withoutEntrypointName('# c\nname: a\nsteps:\n  - name: s\n    run: x\n---\nname: child\n')).toBe(
      '# c\nsteps:\n  - name: s\n    run: x\n---\nname: child\n',
    );
    expect(withoutEntrypointName('steps:\n  - name: s\n---\nname: child\n')).toBeNull();
  });
});

describe('startArgs and compareRun', () => {
  it('puts upstream --params after -- and keeps the other flags', () => {
    expect(startArgs('f.yaml', { params: 'a=1 b=2', flags: ['--run-id', 'r1'] })).toEqual([
      'start',
      '--run-id',
      'r1',
      'f.yaml',
      '--',
      'a=1',
      'b=2',
    ]);
  });
  it('names each difference of exit code and files', () => {
    const files: Record<string, string> = { 'out.txt': 'prod\n', 'extra.txt': 'x' };
    const read = (n: string) => files[n] ?? null;
    expect(
      compareRun(
        { exit: 0, files: { 'out.txt': 'prod\n' }, contains: { 'out.txt': ['pro'] }, absent: ['gone.txt'] },
        { code: 0, stderr: '' },
        read,
      ),
    ).toEqual([]);
    expect(
      compareRun(
        { exit: 'nonzero', files: { 'out.txt': 'dev\n', 'miss.txt': 'y' }, absent: ['extra.txt'] },
        { code: 0, stderr: '' },
        read,
      ),
    ).toEqual([
      'exit 0, expected nonzero',
      'out.txt is "prod\\n", expected "dev\\n"',
      'miss.txt missing (expected "y")',
      'extra.txt exists',
    ]);
  });
});

describe('compareRun with globs, fields and linked worktrees', () => {
  const files: Record<string, string> = {
    'a/run_1_x/out.txt': 'prod\n',
    'outputs.txt': 'path=/p/wt\nbranch=\nok=true\n',
  };
  const read = (n: string) => files[n] ?? null;
  const tree: Record<string, string[]> = {
    '': ['a', 'outputs.txt'],
    a: ['run_1_x', 'run_2_y'],
    'a/run_1_x': ['out.txt'],
  };
  const glob = (pattern: string) => globPaths(pattern, (d) => tree[d] ?? []);
  it('matches a glob segment by segment, with * and ? inside one segment only', () => {
    expect(glob('a/run_*_x/out.txt')).toEqual(['a/run_1_x/out.txt']);
    expect(glob('a/run_?_*')).toEqual(['a/run_1_x', 'a/run_2_y']);
    expect(glob('*/out.txt')).toEqual([]);
    expect(glob('a/run_${x}/out.txt')).toEqual([]);
  });
  it('reads name=value lines as spec030 does', () => {
    expect(fieldsOf('a=1\nb=\n')).toEqual({
      values: new Map([
        ['a', '1'],
        ['b', ''],
      ]),
      problems: [],
    });
    expect(fieldsOf('a=1\nnone\na=2').problems).toEqual([
      'does not end in a newline',
      'line without "=": "none"',
      'field a twice',
    ]);
  });
  it('parses git worktree list --porcelain', () => {
    const text = 'worktree /r\nHEAD abc\nbranch refs/heads/main\n\nworktree /w\nHEAD abc\ndetached\n';
    expect(parseWorktreeList(text)).toEqual([
      { path: '/r', head: 'abc', branch: 'refs/heads/main' },
      { path: '/w', head: 'abc', branch: '' },
    ]);
  });
  it('names each difference of globs, fields and linked worktrees', () => {
    const worktree = (_repo: string, p: string) => ({
      entry: p === 'wt' ? { path: '/p/wt', head: 'def', branch: 'refs/heads/other' } : null,
      base: 'abc',
    });
    expect(
      compareRun(
        {
          globs: { 'a/run_*_x/out.txt': 'prod\n' },
          fields: { 'outputs.txt': { path: '/p/wt', branch: /^/, ok: /^true$/ } },
        },
        { code: 0, stderr: '' },
        read,
        { glob },
      ),
    ).toEqual([]);
    expect(
      compareRun(
        {
          globs: { 'a/run_*/out.txt': 'prod\n', 'a/*': 'x' }, // the first matches a/run_1_x/out.txt only
          fields: { 'outputs.txt': { branch: /./, gone: /^/ }, 'none.txt': {} },
          linked: [
            { repo: 'repo', path: 'wt', branch: 'topic' },
            { repo: 'repo', path: 'missing', branch: 'topic' },
          ],
        },
        { code: 0, stderr: '' },
        read,
        { glob, worktree },
      ),
    ).toEqual([
      '2 files match a/*, expected one: a/run_1_x, a/run_2_y',
      'outputs.txt: branch="", expected /./',
      'outputs.txt lacks field gone',
      'none.txt missing',
      'worktree wt is on "refs/heads/other", expected refs/heads/topic',
      "worktree wt is at def, expected repo's first commit abc",
      'repo lists no worktree at missing',
    ]);
  });
});
