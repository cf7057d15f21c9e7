// Words for the error codes of failed writes, for reasons shown to operators: a run process records only the
// code of the write it could not make (see store/unwrittenFinalStatus.ts), and libuv spells these the same.

const WORDS: Record<string, string> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EIO: 'i/o error',
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOENT: 'no such file or directory',
  ESTALE: 'stale file handle',
};

/** `ENOSPC: no space left on device`, or the code alone when it has no words here. */
export function describeErrorCode(code: string): string {
  if (code === 'UNKNOWN') return 'an unknown error';
  const words = WORDS[code];
  return words ? `${code}: ${words}` : code;
}
