'use client';
// The log console's search: a text searched on the server over the logs the console shows, its matches
// listed as buttons that jump to their line.

import { useQuery } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { errorText } from '../../errorText';
import type { LogFilter, LogStream } from './logLayout';
import { logSearchQuery } from './logQueries';

const focusRing = 'focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-blue-500';

export function LogSearch({
  runId,
  filter,
  onJump,
}: {
  runId: string;
  filter: LogFilter;
  onJump: (step: string, stream: LogStream, line: number) => void;
}) {
  const [text, setText] = useState('');
  const [query, setQuery] = useState<string | null>(null);
  const id = useId();
  const search = useQuery({ ...logSearchQuery(runId, query ?? '', filter), enabled: query !== null });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setQuery(text.trim() === '' ? null : text.trim());
  };

  const result = search.data;
  return (
    <div className="flex flex-col gap-2">
      <form role="search" onSubmit={submit} className="flex flex-wrap items-center gap-2 text-sm">
        <label htmlFor={`${id}-q`} className="text-zinc-600 dark:text-zinc-300">
          Search the logs
        </label>
        <input
          id={`${id}-q`}
          type="search"
          value={text}
          onChange={(e) => setText(e.target.value)}
          maxLength={200}
          data-testid="log-search-input"
          className={`w-64 rounded-md border border-zinc-300 bg-white px-2 py-1 dark:border-zinc-700 dark:bg-zinc-900 ${focusRing}`}
        />
        <button
          type="submit"
          data-testid="log-search-submit"
          className={`rounded-md bg-zinc-900 px-3 py-1 font-medium text-white dark:bg-zinc-100 dark:text-zinc-900 ${focusRing}`}
        >
          Search
        </button>
        {query !== null && (
          <span role="status" className="text-zinc-600 dark:text-zinc-300" data-testid="log-search-status">
            {search.isFetching
              ? 'Searching…'
              : result
                ? `${result.matches.length}${result.truncated ? '+' : ''} ${result.matches.length === 1 ? 'match' : 'matches'}`
                : ''}
          </span>
        )}
      </form>
      {search.error && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          Cannot search: {errorText(search.error)}
        </p>
      )}
      {result && result.matches.length > 0 && (
        <ol
          aria-label="Matches"
          className="max-h-40 overflow-auto rounded border border-zinc-200 font-mono text-xs dark:border-zinc-800"
          data-testid="log-search-results"
        >
          {result.matches.map((m) => (
            <li key={`${m.step}:${m.stream}:${m.line}`}>
              <button
                type="button"
                onClick={() => onJump(m.step, m.stream, m.line)}
                data-testid="log-search-match"
                className={`flex w-full gap-3 px-2 py-0.5 text-left hover:bg-zinc-100 dark:hover:bg-zinc-800 ${focusRing}`}
              >
                <span className="shrink-0 text-zinc-500 dark:text-zinc-400">
                  {m.step} · {m.stream} · line {m.line + 1}
                </span>
                <span className="truncate">{m.text}</span>
              </button>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
