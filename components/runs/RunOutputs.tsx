'use client';
// The values a run captured (each step's `output:` variable and declared `outputs:`) in one table: step,
// name, value; a long value is cut with a button to show it whole, and every value has a copy button.

import { useState } from 'react';
import { buttonClass, tableClass, TableHead, tdClass } from '../Panels';
import { outputRows, previewValue, type OutputRow } from './runOutputs';
import type { StepRowData } from './runSteps';

export function RunOutputs({ rows }: { rows: readonly StepRowData[] }) {
  const outputs = outputRows(rows);
  if (outputs.length === 0) return null;
  return (
    <section aria-labelledby="outputs-heading" className="flex flex-col gap-2" data-testid="run-outputs">
      <h2 id="outputs-heading" className="text-lg font-semibold">
        Outputs
      </h2>
      <div className="overflow-x-auto rounded-lg border border-zinc-200 dark:border-zinc-800">
        <table className={tableClass}>
          <TableHead columns={['Step', 'Name', 'Value', '']} />
          <tbody className="divide-y divide-zinc-200 dark:divide-zinc-800">
            {outputs.map((o) => (
              <OutputLine key={`${o.step}\u0000${o.kind}\u0000${o.name}`} output={o} />
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function OutputLine({ output }: { output: OutputRow }) {
  const [open, setOpen] = useState(false);
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const preview = previewValue(output.value);
  const copy = () => {
    navigator.clipboard.writeText(output.value).then(
      () => setCopied('yes'),
      () => setCopied('failed'),
    );
  };
  return (
    <tr data-testid="output-row" data-step={output.step} data-name={output.name}>
      <td className={`${tdClass} whitespace-nowrap`}>{output.stepLabel}</td>
      <td className={`${tdClass} font-mono text-xs`}>{output.name}</td>
      <td className={tdClass}>
        <pre className="max-w-2xl text-xs break-all whitespace-pre-wrap" data-testid="output-value">
          {open || !preview.cut ? output.value : `${preview.text}…`}
        </pre>
        {preview.cut && (
          <button
            type="button"
            className="mt-1 text-xs font-medium text-blue-700 hover:underline focus-visible:outline-2 focus-visible:outline-blue-500 dark:text-blue-300"
            aria-expanded={open}
            onClick={() => setOpen((v) => !v)}
          >
            {open ? 'Show less' : `Show all ${output.value.length} characters`}
          </button>
        )}
      </td>
      <td className={`${tdClass} whitespace-nowrap`}>
        <button
          type="button"
          className={buttonClass('secondary')}
          aria-label={`Copy the value of ${output.name}`}
          onClick={copy}
        >
          Copy
        </button>
        <span role="status" className="ml-2 text-xs text-zinc-600 dark:text-zinc-400">
          {copied === 'yes' ? 'copied' : copied === 'failed' ? 'cannot copy here' : ''}
        </span>
      </td>
    </tr>
  );
}
