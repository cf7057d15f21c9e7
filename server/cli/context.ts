// Composition root helpers shared by the commands: config from file/env/flags, the real logger, the stores.

import { loadConfig } from '../config/loadConfig';
import type { Config } from '../config/types';
import { silentLogger, type Logger, type LogFields } from '../core/ports';
import { createLogger, type CreateLoggerOptions } from '../log/createLogger';
import { dagMirrorDir } from '../store/dagMirror';
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
 * `paths.dags_dir` is the directory the process reads DAGs from: on PostgreSQL, its mirror of the database
 * (`withDagsDirOfBackend`), unless `how.dagsDir` asks for the configured one. `how.logStream`: where the log
 * lines go instead of stderr (a run in a run host writes them to its own process log).
 */
export function cliContext(
  opts: GlobalOptions,
  base: LogFields = {},
  settingFlags: Record<string, unknown> = {},
  how: { dagsDir?: 'of-backend' | 'configured'; logStream?: CreateLoggerOptions['stream'] } = {},
): CliContext {
  const flags: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(settingFlags)) if (value !== undefined) flags[key] = value;
  if (opts.host !== undefined) flags.host = opts.host;
  if (opts.port !== undefined) flags.port = opts.port;
  if (opts.schedulerPort !== undefined) flags['scheduler.port'] = opts.schedulerPort;
  const loaded = loadConfig({ home: opts.home, flags, env: process.env });
  // `configured`: a command that reads the DAG files of paths.dags_dir themselves (copying them into the database).
  const config = how.dagsDir === 'configured' ? loaded : withDagsDirOfBackend(loaded);
  // --quiet keeps a foreground run silent unless something goes wrong.
  const level =
    opts.quiet && (config.log.level === 'info' || config.log.level === 'debug') ? 'warn' : config.log.level;
  const logger = createLogger({ level, format: config.log.format, base, stream: how.logStream });
  // The config's warnings (Dagu settings not used here) are for the commands people run: --quiet prints
  // nothing but errors, and every run a scheduler, the console or a parent run starts is quiet, so a run's
  // output does not repeat them.
  useHomeConfig(config, opts.quiet ? silentLogger : logger);
  return { config, logger };
}

/**
 * On PostgreSQL the DAGs live in the database, and every reader of the DAGs directory (scheduler, console,
 * runs, `dagu start etl`) reads this host's copy of them: `<paths.data_dir>/dags-mirror`, kept in step by the
 * control plane (store/dagMirror.ts). `paths.dags_dir` is then not read: its files are never deleted by the
 * mirror, and `dagu dags push` puts them into the database.
 */
export function withDagsDirOfBackend(config: Config): Config {
  if (config.storage.backend !== 'postgres') return config;
  return { ...config, paths: { ...config.paths, dags_dir: dagMirrorDir(config.paths) } };
}
