// Composition root helpers shared by the commands: config from file/env/flags, the real logger, the stores.

import { loadConfig } from '../config/loadConfig';
import type { Config } from '../config/types';
import { silentLogger, type Logger, type LogFields } from '../core/ports';
import { createLogger } from '../log/createLogger';
import { useHomeConfig } from './initHome';

export interface GlobalOptions {
  home?: string;
  host?: string;
  port?: string;
  schedulerPort?: string;
  quiet?: boolean;
}

export interface CliContext {
  config: Config;
  logger: Logger;
}

/**
 * Loads the configuration (throws ConfigError, which the CLI reports with exit code 2) and a logger.
 * `settingFlags` are a command's own flags keyed by setting key (`'worker.labels'`); unset ones are skipped.
 */
export function cliContext(
  opts: GlobalOptions,
  base: LogFields = {},
  settingFlags: Record<string, unknown> = {},
): CliContext {
  const flags: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(settingFlags)) if (value !== undefined) flags[key] = value;
  if (opts.host !== undefined) flags.host = opts.host;
  if (opts.port !== undefined) flags.port = opts.port;
  if (opts.schedulerPort !== undefined) flags['scheduler.port'] = opts.schedulerPort;
  const config = loadConfig({ home: opts.home, flags, env: process.env });
  // --quiet keeps a foreground run silent unless something goes wrong.
  const level =
    opts.quiet && (config.log.level === 'info' || config.log.level === 'debug') ? 'warn' : config.log.level;
  const logger = createLogger({ level, format: config.log.format, base });
  // The config's warnings (Dagu settings not used here) are for the commands people run: --quiet prints
  // nothing but errors, and every run a scheduler, the console or a parent run starts is quiet, so a run's
  // output does not repeat them.
  useHomeConfig(config, opts.quiet ? silentLogger : logger);
  return { config, logger };
}
