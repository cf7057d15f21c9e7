// The `pg` part of the CLI (dist/pg.cjs): node-postgres, loaded only when storage.backend is postgres
// (server/cli/openControlPlane.ts); a home on files never loads it.
module.exports = require('pg');
