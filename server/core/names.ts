// Patterns for every name that becomes part of a path. Checked before any path is built.

/** Run IDs: letters, digits, `_` and `-`, at most 64 characters. */
export const RUN_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** DAG and queue names: like run IDs, plus `.` inside (never `..`, never leading). */
export const DAG_NAME_PATTERN = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}$/;

/** Thrown when a name that would become part of a path does not match its pattern. */
export class InvalidNameError extends Error {
  constructor(
    readonly kind: 'run ID' | 'DAG name' | 'queue name',
    readonly value: string,
  ) {
    super(
      `invalid ${kind} ${JSON.stringify(value)}: ${
        kind === 'run ID'
          ? 'use 1 to 64 letters, digits, "_" or "-"'
          : 'use 1 to 64 letters, digits, "_", "-" or "." (not leading, no "..")'
      }`,
    );
    this.name = 'InvalidNameError';
  }
}

export function isValidRunId(value: string): boolean {
  return RUN_ID_PATTERN.test(value);
}

export function isValidDagName(value: string): boolean {
  return DAG_NAME_PATTERN.test(value) && !value.includes('..');
}

export function assertRunId(value: string): string {
  if (!isValidRunId(value)) throw new InvalidNameError('run ID', value);
  return value;
}

export function assertDagName(value: string, kind: 'DAG name' | 'queue name' = 'DAG name'): string {
  if (!isValidDagName(value)) throw new InvalidNameError(kind, value);
  return value;
}
