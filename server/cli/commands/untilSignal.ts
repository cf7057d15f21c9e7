// Waiting for SIGINT/SIGTERM in the long-running commands, with a hard exit if stopping then takes too long.

import type { Logger } from '../../core/ports';
import { SECOND } from '../../core/units';

const STOP_DEADLINE_MS = 10 * SECOND;

/** Resolves when SIGINT or SIGTERM arrives; arms the hard-exit deadline. */
export function untilSignal(logger: Logger): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (sig: NodeJS.Signals) => {
      logger.info('Stopping', { signal: sig });
      setTimeout(() => {
        logger.error('Could not stop within 10s; exiting');
        process.exit(1);
      }, STOP_DEADLINE_MS).unref();
      resolve(sig);
    };
    process.once('SIGINT', on);
    process.once('SIGTERM', on);
  });
}
