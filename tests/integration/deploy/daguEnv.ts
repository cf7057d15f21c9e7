// What dagu makes of an environment, for the deploy tests: the variables it reads, and its configuration
// loaded from exactly the variables a deployment file sets.

import { loadConfig } from '../../../server/config/loadConfig';
import { SETTINGS } from '../../../server/config/settings';

/** dagu's configuration from exactly these variables (no defaults from this machine's environment). */
export const configFrom = (env: Record<string, string>) =>
  loadConfig({ env: env as unknown as NodeJS.ProcessEnv });

/** Every environment variable dagu reads: the settings table's, plus the two that locate it. */
export const KNOWN_ENV = new Set([
  ...SETTINGS.flatMap((s) => [s.env, ...(s.envAliases ?? [])]),
  'DAGU_HOME',
  'DAGU_CONFIG',
]);
