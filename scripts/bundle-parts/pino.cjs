// The `pino` part of the CLI (dist/pino.cjs): the logger, loaded on the first line a command logs
// (server/log/loadPino.ts); a quiet run that succeeds never loads it.
module.exports = require('pino');
