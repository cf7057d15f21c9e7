// The error text the stores report for a file that is not JSON, for the suites that corrupt files on purpose.

/** The message JSON.parse gives for `text`, as the stores quote it after "invalid JSON: ". */
export function jsonError(text: string): string {
  try {
    JSON.parse(text);
  } catch (err) {
    return `invalid JSON: ${(err as Error).message}`;
  }
  throw new Error(`${text} parses`);
}
