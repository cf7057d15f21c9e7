'use client';
// Shows the page, or what it takes to see it: the token form when the server wants a token this browser has
// not given (or an API call was just refused), a hint to reload under basic auth (the browser asks).

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useSyncExternalStore, type ReactNode } from 'react';
import { signInNeed } from './signInNeed';
import { lastUnauthorizedAt, subscribeUnauthorized } from '../api';
import { queryKeys } from '../queryKeys';
import { SignInForm } from './SignInForm';
import { sessionQuery } from './session';

const noUnauthorizedOnServer = () => null;

export function AuthGate({ children }: { children: ReactNode }) {
  const client = useQueryClient();
  const session = useQuery(sessionQuery());
  const unauthorizedAt = useSyncExternalStore(
    subscribeUnauthorized,
    lastUnauthorizedAt,
    noUnauthorizedOnServer,
  );

  // A refused call means the session answer may be out of date (an expired cookie): ask again.
  useEffect(() => {
    if (unauthorizedAt !== null) void client.invalidateQueries({ queryKey: queryKeys.session() });
  }, [client, unauthorizedAt]);

  const need = signInNeed(session.data ?? null, session.dataUpdatedAt, unauthorizedAt);
  if (need === 'token') return <SignInForm />;
  return (
    <>
      {need === 'basic' && (
        <p
          role="alert"
          className="mb-4 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:bg-amber-950 dark:text-amber-100"
        >
          The server refused this browser&apos;s credentials. Reload the page to sign in again.
        </p>
      )}
      {children}
    </>
  );
}
