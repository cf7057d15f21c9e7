// One line of text for any error a query or mutation ends with.

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
