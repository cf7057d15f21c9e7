'use client';
// A run's steps as a left-to-right graph coloured by state. Arrows are SVG; the nodes are real buttons laid
// over them, so they take focus, answer Enter and Space, and read well to screen readers. Choosing a node
// selects the step (the run page shows its log).

import { useId, useMemo } from 'react';
import type { StepState } from '@/components/apiTypes';
import { layoutGraph } from './graphLayout';
import { STEP_NODE_STYLES, STEP_STATES, STEP_SWATCH_STYLES, stepStateLabel } from './stepStateStyles';

/** Node height when nodes carry a detail line (the layout's default fits two lines). */
const TALL_NODE_HEIGHT = 66;

/** What the graph shows of a step. */
export interface GraphStep {
  name: string;
  status: StepState;
  depends?: string[] | null;
  /** A line under the state (why it did not run, "retried 2×", a duration); optional. */
  detail?: string;
}

export function StepGraph({
  steps,
  selected,
  onSelect,
  label,
}: {
  steps: GraphStep[];
  selected?: string | null;
  onSelect?: (name: string) => void;
  /** Accessible name of the graph. */
  label: string;
}) {
  // Only the shape matters to the layout: states change every poll, names and depends do not.
  const shape = JSON.stringify(steps.map((s) => [s.name, s.depends ?? null]));
  // Nodes get a third line when any step has something to say (a reason, counts, a duration).
  const tall = steps.some((s) => s.detail);
  const layout = useMemo(
    () =>
      layoutGraph(
        JSON.parse(shape).map(([name, depends]: [string, string[] | null]) => ({ name, depends })),
        tall ? { nodeHeight: TALL_NODE_HEIGHT } : {},
      ),
    [shape, tall],
  );
  const byName = new Map(steps.map((s) => [s.name, s]));
  // One marker per graph: ids are document-wide, and React's ids hold characters url(#...) dislikes.
  const markerId = `arrow-${useId().replace(/[^A-Za-z0-9]/g, '')}`;

  if (steps.length === 0) {
    return (
      <p className="text-sm text-zinc-500 dark:text-zinc-400" data-testid="run-graph">
        This run has no steps.
      </p>
    );
  }

  return (
    <div className="flex flex-col gap-2">
      <div
        className="overflow-x-auto rounded-lg border border-zinc-200 bg-zinc-50/60 dark:border-zinc-800 dark:bg-zinc-900/60"
        data-testid="run-graph"
        role="group"
        aria-label={label}
      >
        <div className="relative" style={{ width: layout.width, height: layout.height }}>
          <svg
            width={layout.width}
            height={layout.height}
            className="absolute inset-0 text-zinc-400 dark:text-zinc-500"
            aria-hidden="true"
          >
            <defs>
              <marker
                id={markerId}
                viewBox="0 0 10 10"
                refX="9"
                refY="5"
                markerWidth="7"
                markerHeight="7"
                orient="auto-start-reverse"
              >
                <path d="M0,0 L10,5 L0,10 z" fill="currentColor" />
              </marker>
            </defs>
            {layout.edges.map((e) => (
              <path
                key={`${e.from}->${e.to}`}
                d={e.path}
                fill="none"
                stroke="currentColor"
                strokeWidth={1.5}
                markerEnd={`url(#${markerId})`}
                data-edge={`${e.from}->${e.to}`}
              />
            ))}
          </svg>
          {layout.nodes.map((n) => {
            const step = byName.get(n.name)!;
            const isSelected = selected === n.name;
            const live = step.status === 'running' || step.status === 'retrying';
            return (
              <button
                key={n.name}
                type="button"
                data-testid="step-node"
                data-step={n.name}
                data-state={step.status}
                aria-pressed={onSelect ? isSelected : undefined}
                title={`${n.name}: ${stepStateLabel(step.status)}${step.detail ? ` · ${step.detail}` : ''}`}
                onClick={onSelect ? () => onSelect(n.name) : undefined}
                disabled={!onSelect}
                className={`absolute flex flex-col items-start justify-center gap-0.5 overflow-hidden rounded-md border-2 px-2.5 text-left text-sm shadow-sm transition-shadow focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-500 disabled:cursor-default ${
                  STEP_NODE_STYLES[step.status]
                } ${isSelected ? 'ring-2 ring-blue-600 ring-offset-2 ring-offset-zinc-50 dark:ring-blue-300 dark:ring-offset-zinc-900' : 'hover:shadow-md'}`}
                style={{ left: n.x, top: n.y, width: n.width, height: n.height }}
              >
                <span className="w-full truncate font-medium">{n.name}</span>
                <span className="flex items-center gap-1 text-xs opacity-90">
                  {live && <span aria-hidden className="size-1.5 animate-pulse rounded-full bg-current" />}
                  {stepStateLabel(step.status)}
                </span>
                {step.detail && (
                  <span className="w-full truncate text-xs opacity-75" data-testid="step-node-detail">
                    {step.detail}
                  </span>
                )}
              </button>
            );
          })}
        </div>
      </div>
      <StepLegend />
    </div>
  );
}

export function StepLegend() {
  return (
    <ul
      aria-label="Step states"
      className="flex flex-wrap gap-x-4 gap-y-1 text-xs text-zinc-600 dark:text-zinc-300"
    >
      {STEP_STATES.map((s) => (
        <li key={s} className="flex items-center gap-1.5">
          <span aria-hidden className={`inline-block size-3 rounded-sm border-2 ${STEP_SWATCH_STYLES[s]}`} />
          {stepStateLabel(s)}
        </li>
      ))}
    </ul>
  );
}
