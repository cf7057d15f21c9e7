// How the server is protected and whether this browser is signed in (GET /api/v1/session, which never needs
// auth), and signing in and out with an access token (the server keeps it in an HttpOnly cookie).

import { queryOptions, type QueryClient } from '@tanstack/react-query';
import type { SessionView } from '../apiTypes';
import { getJson, postJson } from '../api';
import { queryKeys } from '../queryKeys';

/** The protection rarely changes; a 401 elsewhere makes the shell ask again at once. */
export const SESSION_REFRESH_MS = 30_000;

export const sessionQuery = () =>
  queryOptions({
    queryKey: queryKeys.session(),
    queryFn: ({ signal }) => getJson<SessionView>('/api/v1/session', signal),
    refetchInterval: SESSION_REFRESH_MS,
  });

/** Checks the token with the server (401 when wrong), then refetches every view with the new cookie. */
export async function signIn(client: QueryClient, token: string): Promise<void> {
  await postJson<unknown>('/api/v1/session', { token });
  await client.invalidateQueries();
}

export async function signOut(client: QueryClient): Promise<void> {
  await postJson<unknown>('/api/v1/session/logout');
  await client.invalidateQueries();
}
