'use client';
// The access-token form of a server with auth.token: the server checks the token and keeps it in an
// HttpOnly cookie; every view then refetches.

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { buttonClass } from '../Panels';
import { errorText } from '../errorText';
import { isUnauthorized } from '../api';
import { signIn } from './session';

export function SignInForm() {
  const client = useQueryClient();
  const [token, setToken] = useState('');
  const inputId = useId();
  const errorId = useId();
  const mutation = useMutation({
    mutationFn: (value: string) => signIn(client, value),
    onSuccess: () => setToken(''),
  });
  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (token.trim() !== '') mutation.mutate(token.trim());
  };
  const failed = mutation.isError;
  return (
    <section
      aria-labelledby="sign-in-heading"
      data-testid="sign-in"
      className="mx-auto mt-8 max-w-sm rounded-lg border border-zinc-200 p-6 dark:border-zinc-800"
    >
      <h1 id="sign-in-heading" className="text-xl font-semibold">
        Sign in
      </h1>
      <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
        This server requires an access token (<code className="font-mono">auth.token</code> in its config).
      </p>
      <form onSubmit={onSubmit} className="mt-4 flex flex-col gap-3">
        <label htmlFor={inputId} className="text-sm font-medium">
          Access token
        </label>
        <input
          id={inputId}
          type="password"
          autoComplete="current-password"
          autoFocus
          required
          value={token}
          onChange={(e) => setToken(e.target.value)}
          aria-invalid={failed || undefined}
          aria-describedby={failed ? errorId : undefined}
          className="rounded-md border border-zinc-300 bg-white px-3 py-1.5 font-mono text-sm text-zinc-900 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-blue-500 dark:border-zinc-600 dark:bg-zinc-900 dark:text-zinc-100"
        />
        {failed && (
          <p id={errorId} role="alert" className="text-sm text-red-700 dark:text-red-300">
            {isUnauthorized(mutation.error)
              ? 'The server did not accept this token.'
              : errorText(mutation.error)}
          </p>
        )}
        <div>
          <button type="submit" className={buttonClass('primary')} disabled={mutation.isPending}>
            {mutation.isPending ? 'Signing in…' : 'Sign in'}
          </button>
        </div>
      </form>
    </section>
  );
}
