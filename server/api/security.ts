// Whether the console is open to the network: a server bound beyond loopback without auth lets anyone who
// reaches it start and cancel runs. The start-up warning and the console's banner both come from here.

import type { AuthConfig } from '../config/types';

/** The address the web server listens on. */
export interface ListenAddress {
  host: string;
  port: number;
}

/** How the server is protected, as the overview and the session endpoint report it. */
export interface SecurityView {
  auth: AuthConfig['mode'];
  /** True when the server listens beyond loopback without auth: the console shows a warning banner. */
  exposed_without_auth: boolean;
  /** `host:port` (IPv6 in brackets). */
  listen: string;
}

/**
 * Loopback: 127.0.0.0/8, ::1 (also as an IPv4-mapped address) and `localhost`. Anything else, including
 * 0.0.0.0, :: and host names, may be reachable from elsewhere.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  const v4 = h.startsWith('::ffff:') ? h.slice('::ffff:'.length) : h;
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(v4);
  return m !== null && Number(m[1]) === 127 && m.slice(2).every((part) => Number(part) <= 255);
}

export function formatListen(l: ListenAddress): string {
  return `${l.host.includes(':') ? `[${l.host}]` : l.host}:${l.port}`;
}

export function securityView(auth: AuthConfig, listen: ListenAddress): SecurityView {
  return {
    auth: auth.mode,
    exposed_without_auth: auth.mode === 'none' && !isLoopbackHost(listen.host),
    listen: formatListen(listen),
  };
}

/** The warning an exposed server logs at start (operators grep for it). */
export function exposureWarning(listen: ListenAddress): string {
  return (
    `The console and API listen on ${formatListen(listen)} without authentication: anyone who can reach ` +
    'this address can start and cancel runs. Set auth.basic or auth.token in config.yaml.'
  );
}
