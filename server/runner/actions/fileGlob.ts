// The glob patterns of `file.list`, with the rules of the Go library Dagu uses (doublestar): `*` and `?`
// stay within one path segment, `**` as a whole segment spans any number of them (zero included, so
// `out/**` also matches `out`), `[...]`/`[!...]` classes, `{a,b}` alternatives (nested, no ranges),
// `\` escapes, and dot files are not special. Alternatives are expanded here; minimatch matches the rest.

import { Minimatch } from 'minimatch';

const MINIMATCH_OPTIONS = {
  dot: true,
  nobrace: true, // expanded below, the doublestar way (`{1..3}` is not a range there)
  noext: true,
  nonegate: true,
  nocomment: true,
  optimizationLevel: 0,
} as const;

/** More alternatives than any real pattern needs; stops `{a,b}{a,b}...` from exploding. */
const MAX_ALTERNATIVES = 4096;

/** Whether the pattern is well formed: classes closed and non-empty, braces paired, no trailing `\`. */
export function validateGlob(pattern: string): boolean {
  let depth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      if (++i >= pattern.length) return false;
    } else if (c === '[') {
      i++;
      if (pattern[i] === '!' || pattern[i] === '^') i++;
      if (i >= pattern.length || pattern[i] === ']') return false;
      for (; i < pattern.length && pattern[i] !== ']'; i++) if (pattern[i] === '\\') i++;
      if (i >= pattern.length) return false;
    } else if (c === '{') {
      depth++;
    } else if (c === '}') {
      if (depth === 0) return false;
      depth--;
    }
  }
  return depth === 0;
}

/** A compiled pattern: `(relativePath) => matches`. The pattern must have passed validateGlob. */
export function compileGlob(pattern: string): (path: string) => boolean {
  const trimmed = pattern.trim();
  if (trimmed === '') return () => true;
  const matchers = expandAlternatives(trimmed).flatMap((p) => {
    const whole = new Minimatch(p, MINIMATCH_OPTIONS);
    // A trailing `/**` (or `/**/`) also matches the directory itself.
    const tail = /\/\*\*\/?$/.exec(p);
    return tail ? [whole, new Minimatch(p.slice(0, tail.index), MINIMATCH_OPTIONS)] : [whole];
  });
  return (path) => matchers.some((m) => m.match(path));
}

/** `a{b,c{d,e}}f` -> [abf, acdf, acef], honouring `\` escapes. */
function expandAlternatives(pattern: string): string[] {
  const open = indexOfUnescaped(pattern, '{', 0);
  if (open === -1) return [pattern];
  const parts: string[] = [];
  let depth = 0;
  let start = open + 1;
  let close = -1;
  for (let i = open + 1; i < pattern.length && close === -1; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (c === '{') depth++;
    else if (c === '}' && depth > 0) depth--;
    else if (c === '}') close = i;
    else if (c === ',' && depth === 0) {
      parts.push(pattern.slice(start, i));
      start = i + 1;
    }
  }
  if (close === -1) return [pattern]; // unbalanced: validateGlob has refused it already
  parts.push(pattern.slice(start, close));
  const head = pattern.slice(0, open);
  const tails = expandAlternatives(pattern.slice(close + 1));
  const out: string[] = [];
  for (const part of parts) {
    for (const expanded of expandAlternatives(part)) {
      for (const tail of tails) {
        out.push(head + expanded + tail);
        if (out.length > MAX_ALTERNATIVES) {
          throw new RangeError(`glob pattern '${pattern}' has more than ${MAX_ALTERNATIVES} alternatives`);
        }
      }
    }
  }
  return out;
}

function indexOfUnescaped(text: string, ch: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === ch) return i;
  }
  return -1;
}
