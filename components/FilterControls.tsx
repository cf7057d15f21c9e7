// The pieces the filter forms of the console share (run list, queue): a labelled select whose first option
// means "no filter", and the form's buttons: Apply without JavaScript, Clear while a filter is on.

import type { ChangeEvent } from 'react';
import { buttonClass } from './Panels';

const SELECT_CLASS =
  'max-w-[16rem] rounded-md border border-zinc-300 bg-white px-2 py-1.5 text-sm dark:border-zinc-700 dark:bg-zinc-900 focus-visible:outline-2 focus-visible:outline-blue-500';

export function FilterSelect({
  label,
  name,
  anyLabel,
  value,
  options,
  optionLabel = (v) => v,
  onChange,
  testId,
}: {
  label: string;
  name: string;
  /** The first option, which clears this filter. */
  anyLabel: string;
  value: string | undefined;
  options: readonly string[];
  optionLabel?: (value: string) => string;
  onChange: (e: ChangeEvent<HTMLSelectElement>) => void;
  testId: string;
}) {
  return (
    <label className="flex flex-col gap-1 text-xs font-medium text-zinc-600 dark:text-zinc-300">
      {label}
      <select
        name={name}
        className={SELECT_CLASS}
        defaultValue={value ?? ''}
        onChange={onChange}
        data-testid={testId}
      >
        <option value="">{anyLabel}</option>
        {options.map((v) => (
          <option key={v} value={v}>
            {optionLabel(v)}
          </option>
        ))}
      </select>
    </label>
  );
}

export function FilterFormActions({ filtered, onClear }: { filtered: boolean; onClear: () => void }) {
  return (
    <>
      <noscript>
        <button type="submit" className={buttonClass('secondary')}>
          Apply
        </button>
      </noscript>
      {filtered && (
        <button type="button" className={buttonClass('secondary')} onClick={onClear}>
          Clear filters
        </button>
      )}
    </>
  );
}
