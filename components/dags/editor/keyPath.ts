// The key path under the editor's cursor, read from CodeMirror's YAML syntax tree: `steps[].retry_policy.limit`
// as segments ['steps', '[]', 'retry_policy', 'limit']. Pure: the tree and the text come in.

import type { syntaxTree } from '@codemirror/language';

type Tree = ReturnType<typeof syntaxTree>;

/** A key's text without its quotes. */
function keyText(text: string): string {
  const t = text.trim();
  if (t.length >= 2 && (t[0] === '"' || t[0] === "'") && t[t.length - 1] === t[0]) return t.slice(1, -1);
  return t;
}

/**
 * The keys (and `[]` for each list item) from the document's root down to the key whose pair holds `pos`;
 * [] outside any key. Of the nodes before and after `pos`, the deeper one counts, so the position just after
 * a value (the end of a line) and the one just before it (after `[`) both name the value's key.
 */
export function keyPathAt(tree: Tree, text: string, pos: number): string[] {
  const before = pathFrom(tree.resolveInner(pos, -1), text);
  const after = pathFrom(tree.resolveInner(pos, 1), text);
  return after.length > before.length ? after : before;
}

function pathFrom(start: ReturnType<Tree['resolveInner']>, text: string): string[] {
  const path: string[] = [];
  for (let node: typeof start | null = start; node; node = node.parent) {
    if (node.name === 'Pair') {
      const key = node.getChild('Key');
      if (key) path.push(keyText(text.slice(key.from, key.to)));
    } else if (node.name === 'Item') {
      path.push('[]');
    }
  }
  return path.reverse();
}
