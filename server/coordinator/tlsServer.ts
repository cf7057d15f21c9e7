// The coordinator's HTTPS side: the certificate and key are read at start, so a missing or unreadable file
// stops `dagu coordinator` with the setting and the file named, before it listens.

import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import { TlsFileError } from './errors';

/** The PEM certificate and key to serve HTTPS with. */
export interface TlsFiles {
  cert: Buffer;
  key: Buffer;
  certFile: string;
}

/** The certificate and key, read now so a bad path stops the start with the key and file named. */
export async function readTlsFiles(tls: {
  cert_file: string | null;
  key_file: string | null;
}): Promise<TlsFiles | null> {
  const { cert_file: certFile, key_file: keyFile } = tls;
  if (certFile === null && keyFile === null) return null;
  if (certFile === null) {
    throw new TlsFileError(
      'coordinator.tls.cert_file',
      null,
      'set it together with coordinator.tls.key_file',
    );
  }
  if (keyFile === null) {
    throw new TlsFileError(
      'coordinator.tls.key_file',
      null,
      'set it together with coordinator.tls.cert_file',
    );
  }
  const read = async (key: string, file: string) => {
    try {
      return await readFile(file);
    } catch (err) {
      throw new TlsFileError(key, file, err instanceof Error ? err.message : String(err));
    }
  };
  return {
    cert: await read('coordinator.tls.cert_file', certFile),
    key: await read('coordinator.tls.key_file', keyFile),
    certFile,
  };
}

/** An HTTPS server; a certificate or key that is not valid PEM is reported as a TlsFileError. */
export function createTlsServer(
  tls: TlsFiles,
  onRequest: (req: IncomingMessage, res: ServerResponse) => void,
): https.Server {
  try {
    return https.createServer({ cert: tls.cert, key: tls.key }, onRequest);
  } catch (err) {
    // A file that is readable but not a PEM certificate/key pair (or a key that does not match).
    throw new TlsFileError(
      'coordinator.tls.cert_file',
      tls.certFile,
      err instanceof Error ? err.message : String(err),
    );
  }
}
