// What the console writes of a build DAG step's reuse decision (`type: build`), apart from its state: a reused
// step is `succeeded` like an executed one, and only its decision says that nothing ran. The words are the
// API's (`reuse`, `input_changed`) made readable; an unknown one is shown as it is.

import type { Tone } from '../tone';

/** A step's `build` as the run record holds it. */
export interface StepBuildRef {
  decision: string;
  phase?: string;
  reason?: string;
  detail?: string;
  fingerprint?: string;
  materialization_key?: string;
  producer_run?: { dag_name: string; run_id: string };
  producer_attempt?: number;
}

const DECISION_LABELS: Record<string, string> = {
  reuse: 'reused',
  execute: 'executed',
  always: 'always run',
  deferred: 'deferred',
  none: 'no decision',
};

/** The badge word of a decision: `reused`, `executed`, `always run`, `deferred`, `no decision`. */
export function buildDecisionLabel(decision: string): string {
  return DECISION_LABELS[decision] ?? decision.replaceAll('_', ' ');
}

/** The colour that reinforces the word: a reuse is the good news, an execution plain information. */
export function buildDecisionTone(decision: string): Tone {
  if (decision === 'reuse') return 'ok';
  if (decision === 'execute') return 'info';
  return 'neutral';
}

/**
 * Why the decision was taken, with its detail: `input changed: source`, `matched`, `reuse disabled`; the detail
 * alone when no reason was recorded, null when neither was.
 */
export function buildReasonText(build: Pick<StepBuildRef, 'reason' | 'detail'>): string | null {
  const reason = build.reason ? build.reason.replaceAll('_', ' ') : null;
  const detail = build.detail?.trim() || null;
  if (reason && detail) return `${reason}: ${detail}`;
  return reason ?? detail;
}

/** `make 20261130-011430-ab12cd34, attempt 2`: the run whose execution committed the reused output. */
export function producerText(build: Pick<StepBuildRef, 'producer_run' | 'producer_attempt'>): string | null {
  const run = build.producer_run;
  if (!run) return null;
  return `${run.dag_name} ${run.run_id}${build.producer_attempt ? `, attempt ${build.producer_attempt}` : ''}`;
}

/** The decision and why: `reused — matched`, `executed — input changed: source`, `always run`. */
export function buildDecisionText(build: Pick<StepBuildRef, 'decision' | 'reason' | 'detail'>): string {
  const reason = buildReasonText(build);
  return `${buildDecisionLabel(build.decision)}${reason ? ` — ${reason}` : ''}`;
}

/**
 * The whole decision on one line, for the badge's tooltip: `reused — matched; nothing ran; output of make r1,
 * attempt 1`.
 */
export function buildTitle(build: StepBuildRef): string {
  const parts = [buildDecisionText(build)];
  if (build.decision === 'reuse') parts.push('nothing ran');
  const producer = producerText(build);
  if (producer) parts.push(`output of ${producer}`);
  return parts.join('; ');
}
