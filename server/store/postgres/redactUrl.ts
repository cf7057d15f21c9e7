// A PostgreSQL URL as messages show it. A module of its own, without `pg`: commands that only name the database
// in a message (a DAG not found on PostgreSQL) must not load the client library, which every run on files
// would then load too.

/** The URL without its password, for logs and errors. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return '(an unparseable URL)';
  }
}
