// DAG definitions as a store: the YAML text of each DAG by name, with its version (the text's SHA-256), written
// only when the writer's expected version still holds. The file form is today's DAGs directory; the
// PostgreSQL form is the truth that every host's local mirror (dagMirror.ts) follows.

import { assertDagName } from '../core/names';
import { MAX_DAG_FILE_BYTES } from './dagCatalog';

/** What a listing gives of one DAG: enough to tell whether a copy of it is current. */
export interface DagEntry {
  /** The DAG's name: the stem of its file (`etl` for `etl.yaml`). */
  name: string;
  /** `sha256:<hex>` of the text (dagFiles.ts `dagVersion`). */
  version: string;
  /** How its file is named in a DAGs directory: `etl.yaml`, or `etl.yml` for such a file. */
  fileName: string;
  /** When it was last written (ISO 8601): the file's mtime, or the database's time of the write. */
  updatedAt: string;
  /** Who wrote it last (`console:alice`, `cli:dags push`), when the store records it. */
  updatedBy: string | null;
}

/** One DAG with its text. */
export interface DagDefinition extends DagEntry {
  yaml: string;
}

/**
 * The condition of a write. `undefined`: none (push, a plain replace); `null`: the DAG must not exist (a
 * create); a version: the DAG must still have it (a save over what the editor loaded).
 */
export type ExpectedVersion = string | null | undefined;

export interface DagWriteOptions {
  expectedVersion?: ExpectedVersion;
  /** Recorded as `updatedBy` where the store keeps it. */
  by?: string;
  /** A created DAG's file name, `<name>.yaml` (the default) or `<name>.yml`; an existing DAG keeps its own. */
  fileName?: string;
}

/** A write that was not made, and why: never an exception, since a conflict is an expected outcome. */
export type DagWriteRefusal =
  /** There is no DAG of that name (a conditional write or a rename or delete of nothing). */
  | { ok: false; reason: 'missing' }
  /** The DAG does not have the expected version: it is what `current` holds now. */
  | { ok: false; reason: 'conflict'; current: DagDefinition }
  /** The name is taken: a create of an existing DAG, or a rename onto one. */
  | { ok: false; reason: 'taken' };

export type PutDagResult =
  { ok: true; outcome: 'created' | 'updated' | 'unchanged'; version: string } | DagWriteRefusal;

export type RenameDagResult = { ok: true; fileName: string } | DagWriteRefusal;
export type DeleteDagResult = { ok: true } | DagWriteRefusal;

/** The DAG definitions of one installation. Every name is checked (InvalidNameError) before any I/O. */
export interface DagDefinitions {
  /** Every DAG, sorted by name. */
  list(): Promise<DagEntry[]>;
  get(name: string): Promise<DagDefinition | null>;
  /** The DAGs of `names` that exist, sorted by name: one round trip for a mirror's many changes. */
  getMany(names: readonly string[]): Promise<DagDefinition[]>;
  /**
   * A value that every write changes. Reading the same value again means the DAGs are as they were when it
   * was first read; a different value may be a false alarm, never a missed change. (The file form
   * fingerprints the directory, so it can come back to an earlier value when the files do.)
   */
  revision(): Promise<string>;
  /** Writes `yaml` as DAG `name` if `expectedVersion` holds; an identical text is `unchanged`, not written. */
  put(name: string, yaml: string, opts?: DagWriteOptions): Promise<PutDagResult>;
  /** Gives DAG `name` the name `newName`, text unchanged; `taken` when `newName` exists. */
  rename(name: string, newName: string, opts?: DagWriteOptions): Promise<RenameDagResult>;
  delete(name: string, opts?: DagWriteOptions): Promise<DeleteDagResult>;
}

/** A DAG text no store accepts. */
export class InvalidDagTextError extends Error {
  override readonly name = 'InvalidDagTextError';
  constructor(
    readonly dag: string,
    readonly reason: string,
  ) {
    super(`DAG ${JSON.stringify(dag)} cannot be stored: ${reason}`);
  }
}

/**
 * Checks a name and a text before a write. The size limit is the loader's (a larger file is never loaded);
 * a NUL character cannot be kept in PostgreSQL's text and has no place in YAML, so every store refuses it.
 */
export function assertDagWrite(name: string, yaml: string): void {
  assertDagName(name);
  const size = Buffer.byteLength(yaml);
  if (size > MAX_DAG_FILE_BYTES) {
    throw new InvalidDagTextError(
      name,
      `the text has ${size} bytes; a DAG file has at most ${MAX_DAG_FILE_BYTES}`,
    );
  }
  if (yaml.includes('\u0000')) throw new InvalidDagTextError(name, 'the text contains a NUL character');
}

/** The file name a created DAG gets: the one asked for if it is `<name>.yaml` or `<name>.yml`, else `.yaml`. */
export function newDagFileName(name: string, asked?: string): string {
  return asked === `${name}.yml` ? asked : `${name}.yaml`;
}

/** Why a write expecting `expected` may not go ahead on `current`, or null when it may. */
export function refuseWrite(
  current: DagDefinition | null | undefined,
  expected: ExpectedVersion,
): DagWriteRefusal | null {
  if (expected === undefined) return null;
  if (expected === null) return current ? { ok: false, reason: 'taken' } : null;
  if (!current) return { ok: false, reason: 'missing' };
  if (current.version !== expected) return { ok: false, reason: 'conflict', current: { ...current } };
  return null;
}
