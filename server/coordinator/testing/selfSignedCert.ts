// Moved to server/testing/selfSignedCert.ts; this re-export goes once no test imports this path.
export { writeSelfSignedCert } from '../../testing/selfSignedCert';
