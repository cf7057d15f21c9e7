// The pure parts of scripts/upstreamCorpus.mjs: finding DAG texts in Markdown and Go sources, turning what
// `dagu validate` printed into a class, judging it against what upstream Dagu expects of the file, and
// comparing a `dagu start` with upstream's expected outcome. No file, process or clock here, so that
// scripts/upstreamCorpus.test.ts can check each rule on small texts.

/** The phrase our parser puts in every "this Dagu feature is not supported here" error. */
export const UNSUPPORTED_MARK = 'not supported by this product';

/**
 * A DAG text found inside another file. `invalid` is set for a Markdown block the prose just before it
 * presents as invalid ("Invalid duplicate ids:", "Do not leave ...", "This is invalid:").
 * @typedef {{ line: number, text: string, invalid?: boolean }} EmbeddedDag
 */

const MARKED_INVALID = /\binvalid\b|\bforbidden\b|\bdo not leave\b/i;

/**
 * Removes the indentation every non-blank line shares (a fence inside a list item, a Go raw string inside a
 * struct literal).
 * @param {string} text
 * @returns {string}
 */
export function dedent(text) {
  const lines = text.split('\n');
  let common = Infinity;
  for (const line of lines) {
    if (line.trim() === '') continue;
    common = Math.min(common, line.length - line.trimStart().length);
  }
  if (!Number.isFinite(common) || common === 0) return text;
  return lines.map((line) => line.slice(common)).join('\n');
}

/** A DAG document has a `steps:` key at its top level (column 0 once dedented). */
function looksLikeDag(text) {
  return /^steps:/m.test(text);
}

/**
 * The ```yaml / ```yml fenced blocks of a Markdown text that look like whole DAG files (a top-level `steps:`),
 * with the 1-based line of their opening fence. Fragments (a single step, a `params:` snippet) are left out.
 * @param {string} markdown
 * @returns {EmbeddedDag[]}
 */
export function yamlBlocksOf(markdown) {
  const lines = markdown.split('\n');
  /** @type {EmbeddedDag[]} */
  const blocks = [];
  let previousInvalid = false;
  let previousEnd = -1;
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*ya?ml\b/i.exec(lines[i]);
    if (!open) continue;
    const fence = open[2];
    const body = [];
    let j = i + 1;
    while (j < lines.length && !lines[j].trimStart().startsWith(fence)) body.push(lines[j++]);
    const text = dedent(body.join('\n'));
    if (looksLikeDag(text)) {
      const before = lines
        .slice(Math.max(0, i - 6), i)
        .filter((l) => l.trim() !== '' && !l.trim().startsWith('```'))
        .slice(-2);
      // A block right after an invalid one, with no prose between, is another invalid example.
      const follows = previousInvalid && lines.slice(previousEnd + 1, i).every((l) => l.trim() === '');
      const invalid = follows || before.some((l) => MARKED_INVALID.test(l));
      previousInvalid = invalid;
      previousEnd = j;
      blocks.push({ line: i + 1, text: text.endsWith('\n') ? text : `${text}\n`, invalid });
    }
    i = j;
  }
  return blocks;
}

/**
 * The Go raw string literals (backquoted) of a Go source that look like whole DAG files. Literals with
 * fmt verbs (`%s`, `%d`, ...) are templates filled in by the test and are left out, as is text built by
 * concatenation.
 * @param {string} source
 * @returns {EmbeddedDag[]}
 */
export function goRawDagsOf(source) {
  /** @type {EmbeddedDag[]} */
  const dags = [];
  const literal = /`([^`]*)`/g;
  let m;
  while ((m = literal.exec(source)) !== null) {
    const raw = m[1];
    if (!raw.includes('\n') || /%[-+# 0]*\d*[sdvqtfx]/.test(raw)) continue;
    const text = dedent(raw.replace(/^\n/, ''));
    if (!looksLikeDag(text)) continue;
    const line = source.slice(0, m.index).split('\n').length;
    dags.push({ line, text: text.endsWith('\n') ? text : `${text}\n` });
  }
  return dags;
}

/**
 * The error lines of a `dagu validate` output: `<file>:<line>:<col>: <message>` lines and lines that say a
 * feature is not supported.
 * @param {string} stderr
 * @returns {string[]}
 */
export function errorLinesOf(stderr) {
  return stderr.split('\n').filter((l) => /:\d+:\d+: /.test(l) || l.includes(UNSUPPORTED_MARK));
}

/**
 * What `dagu validate` said of a file: `ok` (exit 0), `unsupported` (refused because it needs a Dagu
 * feature this product does not run), `unsupported+` (refused for that, with other errors beside it, often
 * ones that follow from it) or `rejected` (any other failure).
 * @param {{ code: number | null, stderr: string }} result
 * @returns {'ok' | 'unsupported' | 'unsupported+' | 'rejected'}
 */
export function classifyValidate(result) {
  if (result.code === 0) return 'ok';
  const errors = errorLinesOf(result.stderr);
  const unsupported = errors.filter((l) => l.includes(UNSUPPORTED_MARK));
  if (result.code !== 2 || unsupported.length === 0) return 'rejected';
  return unsupported.length === errors.length ? 'unsupported' : 'unsupported+';
}

/**
 * Upstream's `dagu validate` refuses a `name` key in a file's first document (the entrypoint's name is the
 * file's), though `dagu start` loads such files and upstream's own examples and testdata have many. This
 * returns the text without that top-level `name:` line, to check the rest of the file, or null when the
 * first document has no top-level `name:` key.
 * @param {string} text
 * @returns {string | null}
 */
export function withoutEntrypointName(text) {
  const lines = text.split('\n');
  let first = 0;
  while (first < lines.length && /^\s*(#.*)?$/.test(lines[first])) first++;
  if (/^---\s*$/.test(lines[first] ?? '')) first++;
  let end = first;
  while (end < lines.length && !/^---\s*$/.test(lines[end])) end++;
  const at = lines.slice(first, end).findIndex((l) => /^name\s*:/.test(l));
  if (at < 0) return null;
  const i = first + at;
  // A block scalar or flow value could continue on the next lines; drop indented continuation lines too.
  let j = i + 1;
  while (j < end && /^\s+\S/.test(lines[j])) j++;
  return [...lines.slice(0, i), ...lines.slice(j)].join('\n');
}

/**
 * What upstream Dagu expects of a file: `valid` (its tests or docs load it), `invalid` (its tests say
 * validation fails), `start-fails` (validation passes but `dagu start` fails before running it) or
 * `unknown` (a DAG from a Go test whose expectation this script does not know).
 * @typedef {'valid' | 'invalid' | 'start-fails' | 'unknown'} Expectation
 */

/**
 * The verdict on one file: `ok`, `unsupported`, `error` (rejected though upstream loads it), `rejected`
 * (rejected as upstream does), `accepted` (accepted though upstream rejects it), and for files without a
 * known expectation `rejected?`, and for files upstream loads but refuses at start (a cycle, a bad regex
 * found at run time) `early` when ours rejects them at validate already. `failed` says whether the verdict breaks the target.
 * @param {'ok' | 'unsupported' | 'unsupported+' | 'rejected'} cls
 * @param {Expectation} expect
 * @returns {{ verdict: string, failed: boolean }}
 */
/**
 * YAML that upstream's parser (goccy/go-yaml, as its spec loader uses) refuses too: a plain scalar starting
 * with a backtick ("'`' is a reserved character") and a plain scalar holding `: ` inside a mapping value
 * ("mapping value is not allowed in this context"). Some snippets of upstream's Markdown docs have them (an
 * `eval:` written unquoted, a curl header); those are doc errors, not DAGs upstream loads.
 */
const YAML_ERRORS_UPSTREAM_SHARES = [
  /invalid YAML: Plain value cannot start with reserved character `/,
  /invalid YAML: Nested mappings are not allowed in compact mappings/,
];

/**
 * Load errors upstream's loader raises too, with where it does: a dependency on a step the file does not
 * have (internal/spec/validator.go, "depends on non-existent step"), a router whose route names a step the
 * file does not have (internal/spec/dag.go, "references non-existent step"), a step with nothing to run
 * (internal/runtime/builtin/command/command_script.go, ErrStepCommandIsRequired), and a map or list where its
 * spec struct has a string (a typed decode, as `queue: {enabled: true}` against `Queue string` in
 * internal/spec/dag.go). Doc snippets that are fragments of a DAG, and examples written for older releases,
 * have them: upstream rejects those files as well.
 */
const LOAD_ERRORS_UPSTREAM_SHARES = [
  /: step "[^"]+" does not exist$/,
  /: router "[^"]+" references non-existent step "[^"]+"$/,
  /: a step needs run, an action or a call$/,
  /: must be a string, got a (map|list)$/,
];

/**
 * Whether a file that upstream was assumed to load is one its loader rejects too: one of our errors is one
 * upstream raises for the same reason (the file is then rejected by both, whatever else ours reports).
 * @param {string[]} errorLines the `file:line:col: message` lines of our validate
 */
export function upstreamLoaderRefusesToo(errorLines) {
  return errorLines.some((l) => LOAD_ERRORS_UPSTREAM_SHARES.some((re) => re.test(l)));
}

/**
 * Whether a file ours accepts only with a dependency-cycle warning: upstream loads such a file too and fails
 * it at start before any step runs (conformance/spec009_step_reference, TestRuntimeStepReferenceCycleFails
 * BeforeStepsRun), even where a doc presents it as "Invalid cycle".
 * @param {string[]} lines the lines of our validate's output
 */
export function onlyCycleWarning(lines) {
  return lines.length > 0 && lines.every((l) => /warning: .*dependency cycle/.test(l));
}

/**
 * Whether a docs snippet that upstream was assumed to load fails only on YAML upstream's parser refuses too.
 * @param {string[]} errorLines the `file:line:col: message` lines of our validate
 */
export function upstreamParserRefusesToo(errorLines) {
  return (
    errorLines.length > 0 && errorLines.every((l) => YAML_ERRORS_UPSTREAM_SHARES.some((re) => re.test(l)))
  );
}

export function judge(cls, expect) {
  if (expect === 'start-fails') return { verdict: cls === 'rejected' ? 'early' : cls, failed: false };
  if (expect === 'invalid') {
    return cls === 'ok' ? { verdict: 'accepted', failed: true } : { verdict: 'rejected', failed: false };
  }
  if (cls === 'rejected') {
    return expect === 'valid' ? { verdict: 'error', failed: true } : { verdict: 'rejected?', failed: false };
  }
  return { verdict: cls, failed: false };
}

/**
 * Upstream's `dagu start` arguments in ours: `--params "a=1 b=2"` becomes `-- a=1 b=2` after the file
 * (our CLI takes parameters after `--`); `--run-id`, `--trigger-type` and `--schedule-time` are the same.
 * Splits the params string on whitespace, which is enough for the cases in the expectations table.
 * @param {string} file
 * @param {{ params?: string, flags?: string[] }} run
 * @returns {string[]}
 */
export function startArgs(file, run) {
  const args = ['start', ...(run.flags ?? []), file];
  if (run.params) args.push('--', ...run.params.trim().split(/\s+/));
  return args;
}

/**
 * One `dagu start` case: the exit code upstream's test asserts (undefined: not asserted, `nonzero`: any
 * failure), files with exact content, files containing and not containing strings, files that must not
 * exist, and text stderr must contain. `globs`: a pattern (`*` and `?` only, as the table's patterns need)
 * exactly one project file must match, with this content (the harness's ExpectGlobFileContent). `fields`:
 * files of `name=value` lines ending in a newline, each name there once (spec030's readPublishedOutputs),
 * whose named fields must equal a string or match a RegExp. `linked`: worktrees a repository of the project
 * must list at a path, on a branch, with HEAD at the repository's first commit (spec030's
 * requireLinkedWorktree).
 * @typedef {object} RunExpectation
 * @property {number | 'nonzero'} [exit]
 * @property {Record<string, string>} [files]
 * @property {Record<string, string[]>} [contains]
 * @property {Record<string, string[]>} [notContains]
 * @property {string[]} [absent]
 * @property {string[]} [stderr]
 * @property {Record<string, string>} [globs]
 * @property {Record<string, Record<string, string | RegExp>>} [fields]
 * @property {{ repo: string, path: string, branch: string }[]} [linked]
 */

/**
 * What a case's project can tell beyond its files' text: the project paths a glob pattern matches, and the
 * worktree a repository lists at a path (null: none), with the repository's first commit.
 * @typedef {object} ProjectProbe
 * @property {(pattern: string) => string[]} [glob]
 * @property {(repo: string, path: string) => { entry: WorktreeEntry | null, base: string }} [worktree]
 */

/**
 * What differs between a `dagu start` and upstream's expectation. `readFile` returns a project file's text
 * ('' for a folder, so that `absent` covers folders too), or null when nothing is at that path.
 * @param {RunExpectation} expect
 * @param {{ code: number | null, stderr: string }} actual
 * @param {(name: string) => string | null} readFile
 * @param {ProjectProbe} [probe] needed only by `globs` and `linked`
 * @returns {string[]} one line per difference; empty when the run matches
 */
export function compareRun(expect, actual, readFile, probe = {}) {
  const diffs = [];
  const exitOk =
    expect.exit === undefined ||
    (expect.exit === 'nonzero' ? actual.code !== 0 : actual.code === expect.exit);
  if (!exitOk) diffs.push(`exit ${actual.code}, expected ${expect.exit}`);
  for (const [name, content] of Object.entries(expect.files ?? {})) {
    const got = readFile(name);
    if (got === null) diffs.push(`${name} missing (expected ${JSON.stringify(content)})`);
    else if (got !== content)
      diffs.push(`${name} is ${JSON.stringify(got)}, expected ${JSON.stringify(content)}`);
  }
  for (const [name, parts] of Object.entries(expect.contains ?? {})) {
    const got = readFile(name);
    if (got === null) diffs.push(`${name} missing`);
    else for (const p of parts) if (!got.includes(p)) diffs.push(`${name} lacks ${JSON.stringify(p)}`);
  }
  for (const [name, parts] of Object.entries(expect.notContains ?? {})) {
    const got = readFile(name) ?? '';
    for (const p of parts) if (got.includes(p)) diffs.push(`${name} contains ${JSON.stringify(p)}`);
  }
  for (const name of expect.absent ?? []) if (readFile(name) !== null) diffs.push(`${name} exists`);
  for (const p of expect.stderr ?? []) {
    if (!actual.stderr.toLowerCase().includes(p.toLowerCase()))
      diffs.push(`stderr lacks ${JSON.stringify(p)}`);
  }
  for (const [pattern, content] of Object.entries(expect.globs ?? {})) {
    const matches = probe.glob?.(pattern) ?? [];
    if (matches.length !== 1) {
      diffs.push(
        `${matches.length} files match ${pattern}, expected one${matches.length ? `: ${matches.join(', ')}` : ''}`,
      );
      continue;
    }
    const got = readFile(matches[0]);
    if (got !== content)
      diffs.push(`${matches[0]} is ${JSON.stringify(got)}, expected ${JSON.stringify(content)}`);
  }
  for (const [name, want] of Object.entries(expect.fields ?? {})) {
    const got = readFile(name);
    if (got === null) {
      diffs.push(`${name} missing`);
      continue;
    }
    const { values, problems } = fieldsOf(got);
    for (const p of problems) diffs.push(`${name}: ${p}`);
    for (const [field, w] of Object.entries(want)) {
      const v = values.get(field);
      if (v === undefined) diffs.push(`${name} lacks field ${field}`);
      else if (typeof w === 'string' ? v !== w : !w.test(v)) {
        diffs.push(
          `${name}: ${field}=${JSON.stringify(v)}, expected ${typeof w === 'string' ? JSON.stringify(w) : w}`,
        );
      }
    }
  }
  for (const { repo, path, branch } of expect.linked ?? []) {
    const listed = probe.worktree?.(repo, path);
    if (!listed?.entry) diffs.push(`${repo} lists no worktree at ${path}`);
    else {
      if (listed.entry.branch !== `refs/heads/${branch}`)
        diffs.push(
          `worktree ${path} is on ${JSON.stringify(listed.entry.branch)}, expected refs/heads/${branch}`,
        );
      if (listed.entry.head !== listed.base)
        diffs.push(
          `worktree ${path} is at ${listed.entry.head}, expected ${repo}'s first commit ${listed.base}`,
        );
    }
  }
  return diffs;
}

/**
 * The `name=value` lines of a file as spec030's readPublishedOutputs reads them: the text must end in a
 * newline, and every line (the last newline taken off) must have a `=` and a name not seen before.
 * @param {string} text
 * @returns {{ values: Map<string, string>, problems: string[] }}
 */
export function fieldsOf(text) {
  const values = new Map();
  const problems = text.endsWith('\n') ? [] : ['does not end in a newline'];
  for (const line of text.replace(/\n$/, '').split('\n')) {
    const at = line.indexOf('=');
    if (at < 0) problems.push(`line without "=": ${JSON.stringify(line)}`);
    else if (values.has(line.slice(0, at))) problems.push(`field ${line.slice(0, at)} twice`);
    else values.set(line.slice(0, at), line.slice(at + 1));
  }
  return { values, problems };
}

/**
 * The project paths (slash-separated, relative) a glob pattern matches, as Go's filepath.Glob matches them:
 * segment by segment, `*` any run of characters but `/`, `?` one of them, everything else literal (the
 * table's patterns have no `[...]` class and no `\` escape). `readDir` lists a project folder's entry names
 * ([] for a path that is not a folder).
 * @param {string} pattern
 * @param {(dir: string) => string[]} readDir
 * @returns {string[]}
 */
export function globPaths(pattern, readDir) {
  let found = [''];
  for (const segment of pattern.split('/')) {
    const literal = segment.replace(/[.+^$|()[\]{}\\]/g, '\\$&');
    const re = new RegExp(`^${literal.replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')}$`);
    found = found.flatMap((dir) =>
      readDir(dir)
        .filter((name) => re.test(name))
        .sort()
        .map((name) => (dir ? `${dir}/${name}` : name)),
    );
  }
  return found;
}

/**
 * One block of `git worktree list --porcelain`: the worktree's path, its HEAD commit and its branch ref
 * (empty when detached).
 * @typedef {{ path: string, head: string, branch: string }} WorktreeEntry
 */

/**
 * The blocks of `git worktree list --porcelain`, as spec030's listWorktrees reads them (paths as git
 * prints them; the caller makes them canonical).
 * @param {string} text
 * @returns {WorktreeEntry[]}
 */
export function parseWorktreeList(text) {
  return text
    .trim()
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const entry = { path: '', head: '', branch: '' };
      for (const line of block.split('\n')) {
        if (line.startsWith('worktree ')) entry.path = line.slice('worktree '.length);
        else if (line.startsWith('HEAD ')) entry.head = line.slice('HEAD '.length);
        else if (line.startsWith('branch ')) entry.branch = line.slice('branch '.length);
      }
      return entry;
    });
}
