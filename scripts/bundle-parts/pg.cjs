// The `pg` part of the CLI (dist/pg.cjs): node-postgres, loaded only when storage.backend is postgres
// (server/cli/openControlPlane.ts); a home on files never loads it.
//
// When it loads, pg asks whether it runs in a Cloudflare Worker. Node 20 has no `navigator`, so pg finds out
// by constructing a fetch `Response`, which loads Node's whole fetch implementation: about 15 ms of every run
// process's start on PostgreSQL. A `navigator` naming Node answers the same question for nothing; it exists
// only while pg loads, and only when the runtime has none of its own.
const own = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
if (!own)
  Object.defineProperty(globalThis, 'navigator', { value: { userAgent: 'Node.js' }, configurable: true });
try {
  module.exports = require('pg');
} finally {
  if (!own) delete globalThis.navigator;
}
