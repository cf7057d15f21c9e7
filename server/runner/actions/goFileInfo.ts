// File facts written the way Dagu's Go code prints them: a mode as Go's FileMode.String() spells it
// (`-rw-r--r--`, `drwxr-x---`, `Lrwxrwxrwx`) and a modification time as Go's JSON encoder writes a local
// time.Time (RFC 3339 with nanoseconds, trailing zeros dropped, `Z` for a zero offset).

const S_IFMT = 0o170000;
const S_IFSOCK = 0o140000;
const S_IFLNK = 0o120000;
const S_IFREG = 0o100000;
const S_IFBLK = 0o060000;
const S_IFDIR = 0o040000;
const S_IFCHR = 0o020000;
const S_IFIFO = 0o010000;
const S_ISUID = 0o4000;
const S_ISGID = 0o2000;
const S_ISVTX = 0o1000;

/** The kind of a file as Dagu's `type` field names it. */
export type GoFileType = 'file' | 'directory' | 'symlink' | 'other';

export function goFileType(mode: number): GoFileType {
  switch (mode & S_IFMT) {
    case S_IFLNK:
      return 'symlink';
    case S_IFDIR:
      return 'directory';
    case S_IFREG:
      return 'file';
    default:
      return 'other';
  }
}

/** A POSIX `st_mode` as Go's FileMode.String() writes it: type letters (or `-`), then `rwxrwxrwx`. */
export function goFileMode(mode: number): string {
  const kind = mode & S_IFMT;
  // Go's letters in its bit order: d a l T L D p S u g c t ?; a stat never sets a, l, T or ?.
  let letters = '';
  if (kind === S_IFDIR) letters += 'd';
  if (kind === S_IFLNK) letters += 'L';
  if (kind === S_IFBLK || kind === S_IFCHR) letters += 'D';
  if (kind === S_IFIFO) letters += 'p';
  if (kind === S_IFSOCK) letters += 'S';
  if (mode & S_ISUID) letters += 'u';
  if (mode & S_ISGID) letters += 'g';
  if (kind === S_IFCHR) letters += 'c';
  if (mode & S_ISVTX) letters += 't';
  let perms = '';
  const rwx = 'rwxrwxrwx';
  for (let i = 0; i < 9; i++) perms += mode & (1 << (8 - i)) ? rwx[i] : '-';
  return (letters || '-') + perms;
}

/** The permission bits of a mode (what Go's FileMode.Perm() keeps). */
export function permBits(mode: number): number {
  return mode & 0o777;
}

const NS_PER_MS = 1_000_000n;
const NS_PER_S = 1_000_000_000n;

/** A time in nanoseconds since the epoch, in the process's local zone, as Go's RFC3339Nano writes it. */
export function goTime(epochNs: bigint): string {
  const ms = Number(floorDiv(epochNs, NS_PER_MS));
  const nanos = Number(epochNs - floorDiv(epochNs, NS_PER_S) * NS_PER_S);
  const date = new Date(ms);
  const offsetMin = -date.getTimezoneOffset();
  const wall =
    `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1, 2)}-${pad(date.getDate(), 2)}` +
    `T${pad(date.getHours(), 2)}:${pad(date.getMinutes(), 2)}:${pad(date.getSeconds(), 2)}`;
  const fraction = nanos === 0 ? '' : `.${pad(nanos, 9).replace(/0+$/, '')}`;
  return wall + fraction + zone(offsetMin);
}

function zone(offsetMin: number): string {
  if (offsetMin === 0) return 'Z';
  const sign = offsetMin < 0 ? '-' : '+';
  const abs = Math.abs(offsetMin);
  return `${sign}${pad(Math.floor(abs / 60), 2)}:${pad(abs % 60, 2)}`;
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n ? q - 1n : q;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}
