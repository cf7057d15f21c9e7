// Finds the relative links of Markdown pages and checks that their files and #anchors exist, the way GitHub
// renders them, so that moving a section or a file cannot leave a dead link in the docs.

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as `-`. */
export function headingSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a page's headings; a repeated heading gets `-1`, `-2`, … as on GitHub. */
export function pageAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced) continue;
    // An explicit anchor (`<a id="live-updates"></a>`) names a place that is not a heading.
    for (const a of line.matchAll(/<a\s+(?:id|name)="([^"]+)"\s*>/g)) anchors.add(a[1]);
    const m = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const slug = headingSlug(m[1]);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** Relative link targets of a page (outside code blocks and code spans), e.g. `metrics.md#alerts`. */
export function relativeLinks(markdown: string): string[] {
  const links: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced) continue;
    const text = line.replace(/`[^`]*`/g, '');
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!/^[a-z]+:/i.test(m[1])) links.push(m[1]);
    }
  }
  return links;
}

/** The dead links of one page, as `target: why`. */
export function deadLinks(file: string): string[] {
  const dead: string[] = [];
  for (const link of relativeLinks(readFileSync(file, 'utf8'))) {
    const [target, anchor] = link.split('#');
    const resolved = target === '' ? file : path.resolve(path.dirname(file), target);
    if (!existsSync(resolved)) {
      dead.push(`${link}: no such file`);
    } else if (anchor !== undefined && resolved.endsWith('.md')) {
      if (!pageAnchors(readFileSync(resolved, 'utf8')).has(anchor)) dead.push(`${link}: no such heading`);
    }
  }
  return dead;
}
