'use client';
// The selected step's log: the last 64 KiB of stdout or stderr, fetched every second while the step runs.
// It keeps the newest line in view unless the reader scrolled up to read something; scrolling back to the
// bottom resumes following.

import { useQuery } from '@tanstack/react-query';
import { useLayoutEffect, useRef, useState } from 'react';
import type { StepStatus } from '@/components/apiTypes';
import { errorText } from '../errorText';
import { stepLogQuery } from '../queries';
import { isStepLogOf } from '../queryKeys';

const STREAMS = ['stdout', 'stderr'] as const;
type Stream = (typeof STREAMS)[number];

/** How close to the bottom (in pixels) still counts as "at the end". */
const STICK_SLACK_PX = 24;

export function StepLogTail({
  runId,
  attempt,
  step,
  runLive,
}: {
  runId: string;
  attempt: number;
  step: StepStatus;
  runLive: boolean;
}) {
  const [stream, setStream] = useState<Stream>('stdout');
  const started = step.status !== 'not_started' || step[stream] !== null;
  const stepLive = runLive && (step.status === 'running' || step.status === 'retrying');
  const version = `${attempt}:${step.status}:${step.finished_at ?? ''}:${step.retry_count}`;
  const query = stepLogQuery(runId, step.name, stream, version, stepLive);
  const log = useQuery({
    ...query,
    enabled: started,
    // When the step finishes its key changes: keep showing the text while the final fetch runs, but never
    // the other stream's text.
    placeholderData: (previous, previousQuery) =>
      isStepLogOf(previousQuery?.queryKey, step.name, stream) ? previous : undefined,
  });

  const pre = useRef<HTMLPreElement>(null);
  const follow = useRef(true);
  const content = log.data?.content;
  useLayoutEffect(() => {
    const el = pre.current;
    if (el && follow.current) el.scrollTop = el.scrollHeight;
  }, [content]);
  const onScroll = () => {
    const el = pre.current;
    if (el) follow.current = el.scrollTop + el.clientHeight >= el.scrollHeight - STICK_SLACK_PX;
  };
  const choose = (s: Stream) => {
    follow.current = true;
    setStream(s);
  };

  const titleId = `log-title-${step.name}`;
  return (
    <section
      className="rounded-lg border border-zinc-200 dark:border-zinc-800"
      aria-labelledby={titleId}
      data-testid="log-tail"
      data-step={step.name}
      data-stream={stream}
    >
      <div className="flex flex-wrap items-center justify-between gap-2 border-b border-zinc-200 px-3 py-2 dark:border-zinc-800">
        <h3 id={titleId} className="flex items-center gap-2 text-sm font-medium">
          Log of <span className="font-mono">{step.name}</span>
          {stepLive && (
            <span className="inline-flex items-center gap-1 text-xs font-normal text-blue-700 dark:text-blue-300">
              <span aria-hidden className="size-1.5 animate-pulse rounded-full bg-current" />
              live
            </span>
          )}
        </h3>
        <div role="group" aria-label={`Log stream of ${step.name}`} className="flex gap-1">
          {STREAMS.map((s) => (
            <button
              key={s}
              type="button"
              aria-pressed={stream === s}
              onClick={() => choose(s)}
              data-testid={`log-stream-${s}`}
              className={`rounded px-2 py-0.5 text-xs font-medium focus-visible:outline-2 focus-visible:outline-blue-500 ${
                stream === s
                  ? 'bg-zinc-900 text-white dark:bg-zinc-100 dark:text-zinc-900'
                  : 'text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800'
              }`}
            >
              {s}
            </button>
          ))}
        </div>
      </div>
      {!started ? (
        <p className="px-3 py-2 text-sm text-zinc-500 dark:text-zinc-400">Not started yet.</p>
      ) : log.isPending ? (
        <p className="px-3 py-2 text-sm text-zinc-500 dark:text-zinc-400">Loading {stream}…</p>
      ) : log.error && !log.data ? (
        <p role="alert" className="px-3 py-2 text-sm text-red-700 dark:text-red-300">
          Cannot load {stream}: {errorText(log.error)}{' '}
          <button type="button" className="underline" onClick={() => void log.refetch()}>
            Try again
          </button>
        </p>
      ) : (
        <>
          {log.data.truncated && (
            <p className="px-3 pt-2 text-xs text-zinc-500 dark:text-zinc-400">
              Showing the last {log.data.content.length.toLocaleString('en')} characters of{' '}
              {log.data.size.toLocaleString('en')} bytes.
            </p>
          )}
          <pre
            ref={pre}
            onScroll={onScroll}
            data-testid={`log-${step.name}`}
            data-stream={stream}
            tabIndex={0}
            aria-label={`${stream} of ${step.name}`}
            className="max-h-[28rem] min-h-24 overflow-auto bg-zinc-50 px-3 py-2 font-mono text-xs whitespace-pre-wrap text-zinc-800 focus-visible:outline-2 focus-visible:outline-blue-500 dark:bg-zinc-950 dark:text-zinc-200"
          >
            {log.data.content ||
              (log.data.exists ? (
                <span className="text-zinc-500 italic">(no {stream} output yet)</span>
              ) : (
                <span className="text-zinc-500 italic">(no {stream} log was written)</span>
              ))}
          </pre>
        </>
      )}
    </section>
  );
}
