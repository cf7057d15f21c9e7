// /search?q=: DAGs and runs the navigation's search box found; the query lives in the URL.

import type { Metadata } from 'next';
import { PageHeader } from '@/components/Panels';
import { SearchView } from '@/components/search/SearchView';

export const metadata: Metadata = { title: 'Search' };

type SearchParams = Record<string, string | string[] | undefined>;

export default async function SearchPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const sp = await searchParams;
  const q = (Array.isArray(sp.q) ? sp.q[0] : sp.q) ?? '';
  return (
    <>
      <PageHeader title={q.trim() === '' ? 'Search' : `Search: ${q.trim()}`} />
      <SearchView q={q} />
    </>
  );
}
