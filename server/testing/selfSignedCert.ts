// A self-signed certificate for 127.0.0.1, made with `openssl` (npm test installs it on Debian when missing),
// for the tests of the coordinator's HTTPS server and of the client that trusts it through a CA file.

import { execFileSync } from 'node:child_process';
import path from 'node:path';

/** Writes `cert.pem` and `key.pem` into `dir` and returns their paths. */
export function writeSelfSignedCert(dir: string): { cert: string; key: string } {
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1'].concat([
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ]),
    { stdio: 'ignore' },
  );
  return { cert, key };
}
