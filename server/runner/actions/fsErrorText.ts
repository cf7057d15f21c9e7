// File-system errors worded as Dagu's Go code words them ("lstat /data/x: no such file or directory"),
// so a step's error reads the same here as under Dagu; unknown errors keep Node's own message.

const ERRNO_TEXT: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EEXIST: 'file exists',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOTDIR: 'not a directory',
  EISDIR: 'is a directory',
  ENOTEMPTY: 'directory not empty',
  EXDEV: 'invalid cross-device link',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'file name too long',
  ENOSPC: 'no space left on device',
  EROFS: 'read-only file system',
  EBUSY: 'device or resource busy',
  EINVAL: 'invalid argument',
  EMFILE: 'too many open files',
};

// Node names a few system calls differently from Go's os package.
const GO_OP: Record<string, string> = { scandir: 'open', opendir: 'open', copyfile: 'open', rm: 'unlinkat' };

/** `op path[ dest]: reason` for a Node system error; the plain message for anything else. */
export function fsErrorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const e = error as NodeJS.ErrnoException & { dest?: string };
  const reason = e.code !== undefined ? ERRNO_TEXT[e.code] : undefined;
  if (reason === undefined || e.syscall === undefined) return e.message;
  const op = GO_OP[e.syscall] ?? e.syscall;
  const where = [e.path, e.dest].filter((p) => p !== undefined).join(' ');
  return where === '' ? `${op}: ${reason}` : `${op} ${where}: ${reason}`;
}

/** Just the reason of a system error (`file exists`), or Node's message. */
export function fsErrorReason(error: unknown): string {
  const code = errnoCode(error);
  const reason = code !== undefined ? ERRNO_TEXT[code] : undefined;
  return reason ?? (error instanceof Error ? error.message : String(error));
}

/** The error's errno code (`ENOENT`, ...), or undefined. */
export function errnoCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | null)?.code;
}
