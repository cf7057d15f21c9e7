// RFC 3339 UTC text of a time, as Date#toISOString gives it. V8's toISOString first sets up the local time
// zone (reading /etc/localtime and ICU's zone data), although it prints UTC: about 0.3 ms of every run
// process's start, which this formatting from the UTC fields avoids.

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** `new Date(ms).toISOString()`: `2026-11-30T15:04:05.123Z`; throws RangeError for an invalid time. */
export function isoTime(ms: number): string {
  const d = new Date(ms);
  const year = d.getUTCFullYear();
  // Invalid times throw, and years outside 0000-9999 use the extended form: both as toISOString does.
  if (!(year >= 0 && year <= 9999)) return d.toISOString();
  return (
    `${pad(year, 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}` +
    `T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}` +
    `.${pad(d.getUTCMilliseconds(), 3)}Z`
  );
}
