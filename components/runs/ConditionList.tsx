// Why a run waits, one condition a line: `WorkerReady=False NoMatchingWorker: no worker matched ...`.

import type { RunCondition } from '@/components/apiTypes';

export function ConditionList({ conditions }: { conditions: RunCondition[] }) {
  return (
    <ul className="flex flex-col gap-1">
      {conditions.map((c) => (
        <ConditionLine key={c.type} condition={c} />
      ))}
    </ul>
  );
}

function ConditionLine({ condition: c }: { condition: RunCondition }) {
  const tone =
    c.status === 'False'
      ? 'text-red-700 dark:text-red-300'
      : c.status === 'True'
        ? 'text-emerald-700 dark:text-emerald-300'
        : 'text-zinc-600 dark:text-zinc-300';
  return (
    <li data-testid="condition" data-type={c.type} data-status={c.status} data-reason={c.reason}>
      <span className={`font-mono font-medium ${tone}`}>
        {c.type}={c.status}
      </span>
      {c.reason && <span className="font-medium"> {c.reason}</span>}
      {c.message && <span className="text-zinc-600 dark:text-zinc-300">: {c.message}</span>}
    </li>
  );
}
