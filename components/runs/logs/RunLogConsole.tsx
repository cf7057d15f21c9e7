'use client';
// The run's log console: every step's stdout and stderr in one virtualised list (each line tagged with its
// step and stream, the logs in the order the steps started), filtered by step and stream, following the run
// while it runs. Only the lines in view are fetched, a page at a time, so a 100 MB log scrolls like a small
// one; the search runs on the server and a match is a jump to its line.

import { useQueries, useQuery } from '@tanstack/react-query';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import type { LogLinePage, RunStatus } from '@/components/apiTypes';
import { errorText } from '../../errorText';
import { isTerminal } from '../../queries';
import { LogSearch } from './LogSearch';
import {
  PAGE_LINES,
  layoutSources,
  locate,
  pagesFor,
  rowOf,
  type LogFilter,
  type LogStream,
} from './logLayout';
import { logPageQuery, logSourcesQuery, runDownloadUrl, stepDownloadUrl } from './logQueries';

const ROW_PX = 20;
/** Rows rendered beyond the visible ones on each side. */
const OVERSCAN = 20;
/** How close to the end (in pixels) still counts as "at the end" (keeps following). */
const STICK_SLACK_PX = 2 * ROW_PX;

const focusRing = 'focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-blue-500';
const control = `rounded-md border border-zinc-300 bg-white px-2 py-1 text-sm dark:border-zinc-700 dark:bg-zinc-900 ${focusRing}`;

export function RunLogConsole({ run }: { run: RunStatus }) {
  const live = !isTerminal(run.status);
  const sources = useQuery({
    ...logSourcesQuery(run.run_id, run.status, live),
    placeholderData: (previous) => previous,
  });
  const [filter, setFilter] = useState<LogFilter>({ step: null, stream: null });
  const [following, setFollowing] = useState(live);
  const [highlight, setHighlight] = useState<number | null>(null);
  const ids = useId();

  const all = useMemo(() => sources.data?.sources ?? [], [sources.data]);
  const layout = useMemo(() => layoutSources(all, filter), [all, filter]);
  const steps = useMemo(() => [...new Set(all.map((s) => s.step))], [all]);

  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: layout.total,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_PX,
    overscan: OVERSCAN,
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items.at(-1)?.index ?? -1;
  const refs = useMemo(() => pagesFor(layout, first, last), [layout, first, last]);
  const pages = useQueries({
    queries: refs.map((ref) => ({ ...logPageQuery(run.run_id, ref), placeholderData: undefined })),
  });
  const loaded = new Map<string, LogLinePage>();
  refs.forEach((ref, i) => {
    const data = pages[i]?.data;
    if (data) loaded.set(`${ref.step}\0${ref.stream}\0${ref.page}`, data);
  });

  // Following: the newest line stays in view while lines arrive; the run's end stops it.
  useEffect(() => {
    if (following && layout.total > 0) virtualizer.scrollToIndex(layout.total - 1, { align: 'end' });
  }, [following, layout.total, virtualizer]);
  useEffect(() => {
    if (!live) setFollowing(false);
  }, [live]);

  const onScroll = () => {
    const el = scroller.current;
    if (!el || !following) return;
    if (el.scrollTop + el.clientHeight < el.scrollHeight - STICK_SLACK_PX) setFollowing(false);
  };

  const jumpTo = (step: string, stream: LogStream, line: number) => {
    let target = layout;
    // A match in a log the filter hides: show everything again first.
    if (rowOf(layout, step, stream, line) === null) {
      const next = { step: null, stream: null };
      setFilter(next);
      target = layoutSources(all, next);
    }
    const row = rowOf(target, step, stream, line);
    if (row === null) return;
    setFollowing(false);
    setHighlight(row);
    // After the filter change has rendered.
    requestAnimationFrame(() => virtualizer.scrollToIndex(row, { align: 'center' }));
  };

  const lineAt = (
    row: number,
  ): { tag: string; stream: LogStream; number: number; text: string | null } | null => {
    const at = locate(layout, row);
    if (!at) return null;
    const page = Math.floor(at.line / PAGE_LINES);
    const data = loaded.get(`${at.segment.step}\0${at.segment.stream}\0${page}`);
    const text = data ? (data.lines[at.line - data.from] ?? null) : null;
    return { tag: at.segment.step, stream: at.segment.stream, number: at.line + 1, text };
  };

  const stepFilterId = `${ids}-step`;
  const streamFilterId = `${ids}-stream`;
  return (
    <section
      aria-labelledby={`${ids}-title`}
      className="flex flex-col gap-3 rounded-lg border border-zinc-200 p-3 dark:border-zinc-800"
      data-testid="log-console"
      data-following={following ? 'true' : 'false'}
      data-lines={layout.total}
    >
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id={`${ids}-title`} className="flex items-center gap-2 text-lg font-semibold">
          Logs
          {live && (
            <span className="inline-flex items-center gap-1 text-xs font-normal text-blue-700 dark:text-blue-300">
              <span aria-hidden className="size-1.5 animate-pulse rounded-full bg-current" />
              live
            </span>
          )}
        </h2>
        <div className="flex flex-wrap items-center gap-2 text-sm">
          <label htmlFor={stepFilterId} className="text-zinc-600 dark:text-zinc-300">
            Step
          </label>
          <select
            id={stepFilterId}
            className={control}
            value={filter.step ?? ''}
            data-testid="log-step-filter"
            onChange={(e) => {
              setHighlight(null);
              setFilter((f) => ({ ...f, step: e.target.value === '' ? null : e.target.value }));
            }}
          >
            <option value="">All steps</option>
            {steps.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
          <label htmlFor={streamFilterId} className="text-zinc-600 dark:text-zinc-300">
            Stream
          </label>
          <select
            id={streamFilterId}
            className={control}
            value={filter.stream ?? ''}
            data-testid="log-stream-filter"
            onChange={(e) => {
              setHighlight(null);
              setFilter((f) => ({
                ...f,
                stream: e.target.value === '' ? null : (e.target.value as LogStream),
              }));
            }}
          >
            <option value="">stdout and stderr</option>
            <option value="stdout">stdout</option>
            <option value="stderr">stderr</option>
          </select>
          <button
            type="button"
            aria-pressed={following}
            disabled={!live}
            onClick={() => setFollowing((f) => !f)}
            data-testid="log-follow"
            className={`${control} disabled:opacity-50`}
          >
            {following ? 'Following' : 'Follow'}
          </button>
          <a
            href={runDownloadUrl(run.run_id)}
            download
            className={`${control} underline`}
            data-testid="log-download-all"
          >
            Download all
          </a>
          {filter.step !== null && (
            <a
              href={stepDownloadUrl(run.run_id, filter.step, filter.stream ?? 'stdout')}
              download
              className={`${control} underline`}
              data-testid="log-download-step"
            >
              Download {filter.step} ({filter.stream ?? 'stdout'})
            </a>
          )}
        </div>
      </div>
      <LogSearch runId={run.run_id} filter={filter} onJump={jumpTo} />
      {sources.error && !sources.data ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          Cannot load the logs: {errorText(sources.error)}
        </p>
      ) : layout.total === 0 ? (
        <p className="text-sm text-zinc-500 dark:text-zinc-400" data-testid="log-console-empty">
          {sources.isPending
            ? 'Loading the logs…'
            : live
              ? 'No output yet; lines appear as the steps write them.'
              : 'No output was written.'}
        </p>
      ) : null}
      <div
        ref={scroller}
        onScroll={onScroll}
        tabIndex={0}
        role="region"
        aria-label={`Log lines of run ${run.run_id}`}
        data-testid="log-lines"
        className={`h-[28rem] overflow-auto rounded bg-zinc-50 font-mono text-xs dark:bg-zinc-950 ${focusRing} ${layout.total === 0 ? 'hidden' : ''}`}
      >
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative', minWidth: '100%' }}>
          {items.map((item) => {
            const line = lineAt(item.index);
            if (!line) return null;
            return (
              <div
                key={item.key}
                data-row={item.index}
                data-testid="log-line"
                data-highlight={highlight === item.index ? 'true' : undefined}
                className={`absolute left-0 flex w-max min-w-full gap-3 px-2 leading-5 whitespace-pre ${
                  highlight === item.index ? 'bg-yellow-100 dark:bg-yellow-900' : ''
                }`}
                style={{ top: 0, height: ROW_PX, transform: `translateY(${item.start}px)` }}
              >
                <span className="w-16 shrink-0 text-right text-zinc-500 tabular-nums select-none dark:text-zinc-400">
                  {line.number}
                </span>
                <span className="w-40 shrink-0 truncate text-zinc-500 dark:text-zinc-400" title={line.tag}>
                  {line.tag}
                </span>
                <span
                  className={`w-12 shrink-0 ${line.stream === 'stderr' ? 'text-red-700 dark:text-red-300' : 'text-zinc-500 dark:text-zinc-400'}`}
                >
                  {line.stream === 'stderr' ? 'err' : 'out'}
                </span>
                <span className="text-zinc-900 dark:text-zinc-100">{line.text ?? '…'}</span>
              </div>
            );
          })}
        </div>
      </div>
    </section>
  );
}
