// Loads nodemailer when a mail is first sent, so that runs without mail never load it. In the bundled CLI
// the name is a plain require (a bundle part or an external can take it over); under an ES module
// runtime (the tests) Node's own require loads it.

import { createRequire } from 'node:module';
import type * as Nodemailer from 'nodemailer';

export function loadNodemailer(): typeof Nodemailer {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- bundled, loaded lazily
  if (typeof require === 'function') return require('nodemailer') as typeof Nodemailer;
  return createRequire(import.meta.url)('nodemailer') as typeof Nodemailer;
}
