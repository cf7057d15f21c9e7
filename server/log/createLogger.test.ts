import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './createLogger';

/** A JSON logger writing to a temp file; `lines()` are the raw lines written so far. */
function fileLogger() {
  const dir = mkdtempSync(path.join(tmpdir(), 'dagu-logger-'));
  const file = path.join(dir, 'log');
  const fd = openSync(file, 'a');
  const stream = Object.assign(new PassThrough(), { fd });
  const logger = createLogger({ level: 'info', format: 'json', stream, base: { component: 'runner' } });
  return {
    logger,
    lines: () => readFileSync(file, 'utf8').trim().split('\n'),
    cleanup: () => {
      closeSync(fd);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('createLogger', () => {
  it('writes a field once when a line passes again a field its logger is bound with, with the line value', () => {
    const { logger, lines, cleanup } = fileLogger();
    try {
      logger.child({ run_id: 'r1' }).warn('Failed to write run status', { run_id: 'r1', attempt: 1 });
      logger.child({ run_id: 'r1' }).warn('About another run', { run_id: 'r2' });
      const [first, second] = lines();
      expect(first.match(/"run_id"/g)).toHaveLength(1);
      expect(JSON.parse(first)).toMatchObject({ component: 'runner', run_id: 'r1', attempt: 1 });
      expect(second.match(/"run_id"/g)).toHaveLength(1);
      expect(JSON.parse(second)).toMatchObject({ run_id: 'r2', msg: 'About another run' });
    } finally {
      cleanup();
    }
  });

  it('drops a line it cannot write (ENOSPC) instead of throwing into the caller', () => {
    // Every write to /dev/full fails with ENOSPC, as on a full disk under a run's process log.
    const fd = openSync('/dev/full', 'w');
    try {
      const logger = createLogger({
        level: 'info',
        format: 'json',
        stream: Object.assign(new PassThrough(), { fd }),
      });
      expect(() => logger.error('Final status write failed', { error: 'ENOSPC' })).not.toThrow();
      expect(() => logger.child({ run_id: 'r1' }).warn('x', { run_id: 'r1' })).not.toThrow();
    } finally {
      closeSync(fd);
    }
  });
});
