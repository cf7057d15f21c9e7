// The `cron` part of the CLI (dist/cron.cjs): cron-parser and the luxon it computes with, one copy of each,
// loaded on the first schedule a command reads (server/core/cronLibrary.ts).
const { CronExpressionParser } = require('cron-parser');
const { Settings } = require('luxon');

module.exports = { CronExpressionParser, Settings };
