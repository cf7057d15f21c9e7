// The version `dagu version` prints and GET /api/v1/health reports; kept in step with package.json by the
// release process.
export const VERSION = '0.1.0';
