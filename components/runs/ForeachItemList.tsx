'use client';
// The items of a `foreach` step: counts by state, then each item (its label, state and error) in item order,
// a page at a time, so that a loop over a thousand items stays quick to read. The items ran inside the run
// (no child runs); their step logs are in the run's log folder under foreach/.

import { useState } from 'react';
import type { StepStatus } from '@/components/apiTypes';
import { foreachSummaryText, subRunStateLabel } from './stepNotes';
import { StatusBadge } from '../StatusBadge';
import { ShowMore } from './ShowMore';

type Item = NonNullable<StepStatus['foreach_items']>[number];

/** Rows rendered at once; "Show more" adds as many again. */
const ITEM_PAGE = 50;

export function ForeachItemList({ stepName, items }: { stepName: string; items: readonly Item[] }) {
  const [failedOnly, setFailedOnly] = useState(false);
  const [shown, setShown] = useState(ITEM_PAGE);
  const matching = failedOnly ? items.filter((i) => i.status === 'failed') : items;
  const visible = matching.slice(0, shown);
  const headingId = `foreach-items-${stepName}`;
  const failed = items.filter((i) => i.status === 'failed').length;
  return (
    <section aria-labelledby={headingId} data-testid="foreach-items" className="flex flex-col gap-2">
      <h3 id={headingId} className="text-sm font-semibold">
        Items
      </h3>
      <p className="text-sm" data-testid="foreach-summary">
        {foreachSummaryText(items)}
      </p>
      {failed > 0 && failed < items.length && (
        <label className="flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            checked={failedOnly}
            onChange={(e) => {
              setFailedOnly(e.target.checked);
              setShown(ITEM_PAGE);
            }}
            data-testid="foreach-failed-only"
          />
          Failed items only
        </label>
      )}
      <ul
        className="divide-y divide-zinc-200 rounded-md border border-zinc-200 text-sm dark:divide-zinc-800 dark:border-zinc-800"
        data-testid="foreach-item-list"
      >
        {visible.map((item) => (
          <li
            key={item.index}
            className="flex flex-wrap items-center gap-x-3 gap-y-1 px-3 py-1.5"
            data-testid="foreach-item"
            data-key={item.key}
          >
            <StatusBadge status={subRunStateLabel(item.status)} />
            <code className="break-all">{item.label}</code>
            {item.label !== item.key && (
              <span className="text-zinc-600 dark:text-zinc-400">
                #{item.index}
                {item.key !== String(item.index) && <> key {item.key}</>}
              </span>
            )}
            {item.error && <span className="break-words text-red-700 dark:text-red-300">{item.error}</span>}
          </li>
        ))}
      </ul>
      <ShowMore
        shown={visible.length}
        total={matching.length}
        page={ITEM_PAGE}
        onMore={() => setShown((n) => n + ITEM_PAGE)}
        testId="foreach-shown"
      />
    </section>
  );
}
