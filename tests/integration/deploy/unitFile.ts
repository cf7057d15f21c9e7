// A systemd unit file read the way systemd reads it, far enough for the deploy tests: sections, keys that
// may repeat, and Environment= lines turned into name → value.

import { expect } from 'vitest';

/** A systemd unit file as section → key → values (keys like Environment= may repeat). */
export function parseUnit(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const section = /^\[(.+)\]$/.exec(line);
    if (section) {
      current = new Map();
      sections.set(section[1], current);
      continue;
    }
    const eq = line.indexOf('=');
    expect(current, `a key outside a section: ${line}`).not.toBeNull();
    const key = line.slice(0, eq);
    current!.set(key, [...(current!.get(key) ?? []), line.slice(eq + 1)]);
  }
  return sections;
}

/** Environment= values: "A=B" "C=D" or A=B, as name → value. */
export function unitEnvironment(values: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const v of values)
    for (const m of v.matchAll(/"([^"]*)"|(\S+)/g)) {
      const pair = m[1] ?? m[2];
      out.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
    }
  return out;
}

/** The variables an EnvironmentFile= sets: NAME=value lines, comments and blank lines skipped. */
export function environmentFile(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const eq = line.indexOf('=');
    expect(eq, `not NAME=value: ${line}`).toBeGreaterThan(0);
    out.set(line.slice(0, eq), line.slice(eq + 1));
  }
  return out;
}
