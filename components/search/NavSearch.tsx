'use client';
// The search box of the navigation: DAGs by name, tag, description or step command, runs by ID. Submitting
// opens /search?q=..., so a search is a link; "/" focuses the box from anywhere but a field.

import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { Suspense, useEffect, useRef, useState, type FormEvent } from 'react';
import { focusesSearch, searchHref } from './searchKeys';

/** The box; in a Suspense boundary because it reads the URL's query (the page it is on may be static). */
export function NavSearch() {
  return (
    <Suspense fallback={null}>
      <SearchBox />
    </Suspense>
  );
}

function SearchBox() {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const current = pathname === '/search' ? (params.get('q') ?? '') : '';
  const [text, setText] = useState(current);
  const input = useRef<HTMLInputElement>(null);

  // The box shows the query of the results page it leads to (and is cleared elsewhere).
  useEffect(() => setText(current), [current]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!focusesSearch(e, e.target as HTMLElement | null)) return;
      e.preventDefault();
      input.current?.focus();
      input.current?.select();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (text.trim() !== '') router.push(searchHref(text));
  };

  return (
    <form role="search" aria-label="Search DAGs and runs" onSubmit={submit} className="flex items-center">
      <label htmlFor="nav-search" className="sr-only">
        Search DAGs and runs (press / to focus)
      </label>
      <input
        ref={input}
        id="nav-search"
        type="search"
        name="q"
        value={text}
        onChange={(e) => setText(e.target.value)}
        placeholder="Search  /"
        maxLength={200}
        autoComplete="off"
        data-testid="nav-search"
        aria-keyshortcuts="/"
        className="w-48 rounded-md border border-zinc-300 bg-white px-2 py-1 text-sm placeholder:text-zinc-500 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-blue-500 dark:border-zinc-700 dark:bg-zinc-900 dark:placeholder:text-zinc-400"
      />
    </form>
  );
}
