// The vocabulary of Dagu's build DAGs (`type: build`): steps that declare the regular files they read
// (`inputs`) and the one file they make (an `outputs` entry with a `path`). A step is reused instead of run
// when its recipe, its inputs' contents and its current output match the manifest its last successful
// execution committed. These are the facts a run records and the port the file store implements.

/** How a build DAG's step was satisfied, apart from its lifecycle status (Dagu's BuildDecision). */
export const BUILD_DECISIONS = ['none', 'always', 'execute', 'reuse', 'deferred'] as const;
export type BuildDecision = (typeof BUILD_DECISIONS)[number];

/** The last phase a step's build evaluation reached. */
export const BUILD_PHASES = ['precondition', 'evaluate', 'execute', 'verify', 'commit', 'complete'] as const;
export type BuildPhase = (typeof BUILD_PHASES)[number];

/** Why a decision was taken: stable machine-readable words, Dagu's. */
export const BUILD_REASONS = [
  'ineligible',
  'store_unavailable',
  'evaluation_failed',
  'cancelled_before_decision',
  'recovery_failed',
  'upstream_would_execute',
  'input_missing',
  'control_dependency_ran',
  'reuse_disabled',
  'manifest_missing',
  'recipe_changed',
  'input_changed',
  'output_missing',
  'output_changed',
  'matched',
  'input_changed_during_execution',
  'precondition_error',
  'precondition_not_met',
] as const;
export type BuildReason = (typeof BUILD_REASONS)[number];

/** What a run records of one build DAG step (StepStatus.build). */
export interface StepBuildStatus {
  decision: BuildDecision;
  phase: BuildPhase;
  /** Absent only before evaluation began. */
  reason?: BuildReason;
  detail?: string;
  /** sha256 of the recipe digest, the input snapshots and the control dependencies' fingerprints. */
  fingerprint?: string;
  /** The manifest's key: the DAG, the step's id and the output's canonical path. */
  materialization_key?: string;
  /** The run whose execution committed the output that was reused. */
  producer_run?: { dag_name: string; run_id: string };
  producer_attempt?: number;
}

/** A declared input of a build step: a regular file read by `${inputs.<name>}`. */
export interface BuildInputSpec {
  name: string;
  /** As written; resolved against the run scope and the DAG's stable base when the run starts. */
  path: string;
}

/** The content of one regular file at one moment. */
export interface FileSnapshot {
  name: string;
  /** Absolute and canonical (existing ancestors resolved). */
  path: string;
  size: number;
  /** `sha256:<hex>` of the content. */
  digest: string;
}

export const MANIFEST_SCHEMA_VERSION = 1;

/** One committed build output: what made it and what it is (the store's manifest). */
export interface Materialization {
  schema_version: number;
  materialization_key: string;
  /** Unique per commit: tells a journal's proposed manifest from the one before it. */
  commit_id: string;
  dag_name: string;
  step_id: string;
  recipe_digest: string;
  fingerprint: string;
  /** Sorted by name. */
  inputs: FileSnapshot[];
  output: FileSnapshot;
  producer_run: { dag_name: string; run_id: string };
  producer_attempt: number;
  /** RFC 3339, UTC. */
  completed_at: string;
}

export type PathLockMode = 'shared' | 'exclusive';

/** Protection of one canonical file path for the length of one step's evaluation and execution. */
export interface PathLockRequest {
  /** The path's comparison key (canonicalPathKey). */
  key: string;
  mode: PathLockMode;
}

/** The locks one step holds; released once, when the step is done with its paths. */
export interface PathLocks {
  release(): Promise<void>;
}

/** Publication of one staged output and its manifest. */
export interface MaterializationCommit {
  /** A sibling of `finalPath` (same directory, so that the rename is atomic). */
  stagingPath: string;
  finalPath: string;
  manifest: Materialization;
  /**
   * Publish the file but keep the manifest as it was: a step that is not reuse-eligible (`always`) still
   * stages and commits, but its execution proves nothing a later run could reuse.
   */
  preserveManifest: boolean;
}

/** Thrown when an interrupted commit cannot be rolled forward or back (the output is someone else's). */
export class MaterializationRecoveryError extends Error {
  override name = 'MaterializationRecoveryError';
}

/**
 * The manifests and path locks of build DAGs on this host. Implemented on files under the data directory
 * (server/store/fileMaterializations.ts): build DAGs run only where their files are.
 */
export interface MaterializationStore {
  /** The committed manifest under `key`, or null when there is none (or one of another schema version). */
  get(key: string): Promise<Materialization | null>;
  /**
   * Takes every lock of `requests` (shared for inputs, exclusive for the output), in one stable order, waiting
   * for other holders; an interrupted commit on an exclusively locked path is recovered first. Rejects when
   * `signal` aborts first (the run is stopping).
   */
  acquire(requests: readonly PathLockRequest[], signal?: AbortSignal): Promise<PathLocks>;
  /**
   * Verifies the staged file against `manifest.output`, then replaces the final output with it and writes the
   * manifest, under a journal that a crash at any point leaves recoverable: the previous output and manifest
   * stay as they were on any failure. `locks` must hold the output's path exclusively.
   */
  commit(locks: PathLocks, req: MaterializationCommit): Promise<void>;
}

/**
 * A step's build line as the CLI prints it under the step (Dagu's renderBuild): `build: <decision>
 * (<reason>)`, the detail after ` - `, and the run that made a reused output.
 */
export function buildLine(b: StepBuildStatus): string {
  let line = `build: ${b.decision} (${b.reason ?? 'none'})`;
  if (b.detail) line += ` - ${b.detail}`;
  if (b.producer_run) line += `; producer: ${b.producer_run.dag_name}/${b.producer_run.run_id}`;
  return line;
}
