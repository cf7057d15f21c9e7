'use client';
// The run list: newest first, filtered by DAG, state, trigger, labels and time from the URL, one page at a
// time.

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { EmptyState, ErrorPanel, LoadingPanel, StaleNotice, buttonClass } from '../Panels';
import { errorText } from '../errorText';
import { runsQuery } from '../queries';
import type { RunFilter } from '../queryKeys';
import { useNow } from '../useNow';
import { RunFilters } from './RunFilters';
import { RunTable } from './RunTable';
import { isFiltered, runListHref } from './runFilterUrl';

export function RunList({ filter }: { filter: RunFilter }) {
  const { data, error, isPending, refetch } = useQuery({
    ...runsQuery(filter),
    placeholderData: keepPreviousData,
  });
  const now = useNow();
  const filtered = isFiltered(filter);

  return (
    <div>
      <RunFilters filter={filter} />
      {isPending ? (
        <LoadingPanel label="Loading runs…" />
      ) : error && !data ? (
        <ErrorPanel title="Cannot load runs" message={errorText(error)} onRetry={() => void refetch()} />
      ) : data.items.length === 0 ? (
        <EmptyState title={filtered ? 'No runs match these filters' : 'No runs yet'} testId="runs-empty">
          {filtered && data.next_cursor ? (
            // A rare label (or state) match: the server stopped searching partway through the history.
            <>
              None among the newest runs searched.{' '}
              <Link
                href={runListHref({ ...filter, cursor: data.next_cursor })}
                className="underline"
                data-testid="runs-older"
              >
                Search older runs
              </Link>{' '}
              or{' '}
              <Link href="/runs" className="underline">
                show all runs
              </Link>
              .
            </>
          ) : filtered ? (
            <Link href="/runs" className="underline">
              Show all runs
            </Link>
          ) : (
            <>
              Start one from the{' '}
              <Link href="/dags" className="underline">
                DAG list
              </Link>{' '}
              with “Run now”.
            </>
          )}
        </EmptyState>
      ) : (
        <>
          {error && <StaleNotice message={errorText(error)} />}
          <RunTable runs={data.items} now={now} />
          <nav aria-label="Pages" className="mt-4 flex justify-between">
            {filter.cursor ? (
              <Link href={runListHref({ ...filter, cursor: undefined })} className={buttonClass('secondary')}>
                ← Newest
              </Link>
            ) : (
              <span />
            )}
            {data.next_cursor && (
              <Link
                href={runListHref({ ...filter, cursor: data.next_cursor })}
                className={buttonClass('secondary')}
                data-testid="runs-older"
              >
                Older →
              </Link>
            )}
          </nav>
        </>
      )}
    </div>
  );
}
