'use client';
// The side panel beside the editor: the reference row (docs/dag-reference.md) of the key under the cursor.

import type { KeyDocMatch } from './keyDocs';

/** Markdown `code` spans as <code>; the rest as text. */
function withCode(text: string) {
  return text.split(/(`[^`]+`)/).map((part, i) =>
    part.startsWith('`') && part.endsWith('`') && part.length > 1 ? (
      <code key={i} className="rounded bg-zinc-100 px-0.5 font-mono text-[0.85em] dark:bg-zinc-800">
        {part.slice(1, -1)}
      </code>
    ) : (
      part
    ),
  );
}

export function KeyDocPanel({ match }: { match: KeyDocMatch | null }) {
  return (
    <aside
      aria-label="Documentation of the key under the cursor"
      data-testid="key-doc"
      data-key={match?.documented ?? ''}
      className="max-h-[70vh] overflow-auto rounded-md border border-zinc-200 p-3 text-sm dark:border-zinc-800"
    >
      {match === null ? (
        <p className="text-zinc-600 dark:text-zinc-400">
          Put the cursor on a key to see what it does here (from the DAG reference).
        </p>
      ) : (
        <div className="flex flex-col gap-2">
          <p className="font-mono text-xs break-all text-zinc-600 dark:text-zinc-400">{match.path}</p>
          {!match.exact && (
            <p className="text-xs text-zinc-600 dark:text-zinc-400">
              Not documented on its own; inside <code className="font-mono">{match.documented}</code>:
            </p>
          )}
          {match.rows.map((row, i) => (
            <div key={i} className="flex flex-col gap-1">
              <h3 className="font-mono font-semibold break-all" data-testid="key-doc-key">
                {row.key}
              </h3>
              {row.status && (
                <p>
                  <span className="font-medium">Status:</span> {withCode(row.status)}
                </p>
              )}
              {row.shapes && (
                <p>
                  <span className="font-medium">Shapes and default:</span> {withCode(row.shapes)}
                </p>
              )}
              <p>{withCode(row.meaning)}</p>
            </div>
          ))}
        </div>
      )}
    </aside>
  );
}
