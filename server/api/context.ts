// How Next route handlers and server pages reach the Services: one per process, kept on globalThis so the
// CLI's bundle (which may install it) and Next's bundle of the same modules share it, and HMR keeps it.

import { loadConfig } from '../config/loadConfig';
import { createServices, type Services } from './services';

const KEY = Symbol.for('dagu.api.services');
type Holder = typeof globalThis & { [KEY]?: Services };

/** Installs the services the web server was started with (so flags such as --home apply to the API too). */
export function setServices(services: Services | undefined): void {
  (globalThis as Holder)[KEY] = services;
}

/** The process's services; built from `loadConfig()` (config.yaml + DAGU_* env) on first use if none was set. */
export function getServices(): Services {
  const holder = globalThis as Holder;
  holder[KEY] ??= createServices(loadConfig());
  return holder[KEY];
}
