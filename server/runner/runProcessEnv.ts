// The environment of a run process the scheduler starts. Node reads NODE_EXTRA_CA_CERTS (a CA bundle of a
// few hundred kilobytes) at every start, before any of our code runs; a run process makes no TLS calls, so
// it starts without it and puts it back for its steps, which see the environment the scheduler had.

/** Where the variable waits while the run process starts. */
export const STASHED_CA_CERTS = 'DAGU_STEP_NODE_EXTRA_CA_CERTS';

/** The scheduler's side: the run process's environment, with the CA bundle set aside for the steps. */
export function runProcessEnv<E extends Record<string, string | undefined>>(env: E): E {
  const ca = env.NODE_EXTRA_CA_CERTS;
  if (ca === undefined || ca === '') return env;
  const out: Record<string, string | undefined> = { ...env, [STASHED_CA_CERTS]: ca };
  delete out.NODE_EXTRA_CA_CERTS;
  return out as E;
}

/** The run process's side, first thing: the steps (and any child it starts) get the variable back. */
export function restoreStashedEnv(env: Record<string, string | undefined>): void {
  const ca = env[STASHED_CA_CERTS];
  if (ca === undefined) return;
  delete env[STASHED_CA_CERTS];
  if (env.NODE_EXTRA_CA_CERTS === undefined) env.NODE_EXTRA_CA_CERTS = ca;
}
