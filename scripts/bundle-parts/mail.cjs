// The `mail` part of the CLI (dist/mail.cjs): nodemailer, loaded when a run first sends mail (a mail step or
// a run notification, server/runner/actions/loadNodemailer.ts); every other command never loads it.
module.exports = require('nodemailer');
