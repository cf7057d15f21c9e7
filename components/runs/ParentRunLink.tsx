// A child run's way back: the run and step of its parent DAG that started it (`call` or `parallel`).

import Link from 'next/link';
import type { RunStatus } from '@/components/apiTypes';
import { linkClass } from '../Panels';
import { runHref } from './runLinks';

export function ParentRunLink({ parent }: { parent: NonNullable<RunStatus['parent']> }) {
  return (
    <p
      data-testid="parent-run"
      className="rounded-md border border-zinc-200 bg-zinc-50 px-3 py-2 text-sm dark:border-zinc-800 dark:bg-zinc-900"
    >
      Child run, started by step{' '}
      <Link
        href={runHref(parent.run_id, parent.step)}
        className={linkClass}
        data-testid="parent-step-link"
        aria-label={`Step ${parent.step} of parent run ${parent.run_id} (${parent.dag_name})`}
      >
        {parent.step}
      </Link>{' '}
      of parent run{' '}
      <Link href={runHref(parent.run_id)} className={linkClass} data-testid="parent-run-link">
        {parent.dag_name} <span className="font-mono">{parent.run_id}</span>
      </Link>
    </p>
  );
}
