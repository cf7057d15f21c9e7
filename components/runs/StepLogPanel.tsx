'use client';
// One step's log with a stdout/stderr switch; it follows the log while the step runs.

import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { StepStatus } from '@/server/core/types';
import { errorText } from '../errorText';
import { stepLogQuery } from '../queries';

const STREAMS = ['stdout', 'stderr'] as const;
type Stream = (typeof STREAMS)[number];

export function StepLogPanel({
  runId,
  step,
  runLive,
}: {
  runId: string;
  step: StepStatus;
  runLive: boolean;
}) {
  const [stream, setStream] = useState<Stream>('stdout');
  const started = step.status !== 'not_started' || step[stream] !== null;
  const stepLive = runLive && (step.status === 'running' || step.status === 'retrying');
  const version = `${step.status}:${step.finished_at ?? ''}:${step.retry_count}`;
  const log = useQuery({ ...stepLogQuery(runId, step.name, stream, version, stepLive), enabled: started });
  const id = `log-${step.name}`;

  return (
    <section
      className="rounded-lg border border-zinc-200 dark:border-zinc-800"
      aria-labelledby={`${id}-title`}
    >
      <div className="flex items-center justify-between border-b border-zinc-200 px-3 py-2 dark:border-zinc-800">
        <h3 id={`${id}-title`} className="text-sm font-medium">
          {step.name}
        </h3>
        <div role="group" aria-label={`Log stream of ${step.name}`} className="flex gap-1">
          {STREAMS.map((s) => (
            <button
              key={s}
              type="button"
              aria-pressed={stream === s}
              onClick={() => setStream(s)}
              data-testid={`log-stream-${step.name}-${s}`}
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
          Cannot load {stream}: {errorText(log.error)}
        </p>
      ) : (
        <>
          {log.data.truncated && (
            <p className="px-3 pt-2 text-xs text-zinc-500 dark:text-zinc-400">
              Showing the last {log.data.content.length.toLocaleString('en')} bytes of{' '}
              {log.data.size.toLocaleString('en')}.
            </p>
          )}
          <pre
            data-testid={id}
            data-stream={stream}
            tabIndex={0}
            aria-label={`${stream} of ${step.name}`}
            className="max-h-96 overflow-auto bg-zinc-50 px-3 py-2 font-mono text-xs whitespace-pre-wrap text-zinc-800 dark:bg-zinc-900 dark:text-zinc-200"
          >
            {log.data.content || <span className="text-zinc-400 italic">(no {stream} output)</span>}
          </pre>
        </>
      )}
    </section>
  );
}
