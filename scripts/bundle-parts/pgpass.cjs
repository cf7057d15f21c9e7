// The `pgpass` part of the CLI (dist/pgpass.cjs): the reader of PostgreSQL's password file, loaded only when
// a server asks for a password that the configuration does not give (server/store/postgres/pgpassFile.ts).
module.exports = require('pgpass');
