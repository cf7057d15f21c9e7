'use client';
// "Sign out" in the navigation, only for a server with auth.token and a signed-in browser.

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { buttonClass } from '../Panels';
import { signOut, sessionQuery } from './session';

export function SignOutButton() {
  const client = useQueryClient();
  const { data } = useQuery(sessionQuery());
  const mutation = useMutation({ mutationFn: () => signOut(client) });
  if (data?.auth !== 'token' || !data.authenticated) return null;
  return (
    <button
      type="button"
      className={buttonClass('secondary')}
      disabled={mutation.isPending}
      onClick={() => mutation.mutate()}
    >
      Sign out
    </button>
  );
}
