// /dags/:name: one DAG. Read on the server first (by `dagu server`, see app/pageData.ts), so an unknown name
// is a real 404.

import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { DagDetailView } from '@/components/dags/DagDetailView';
import type { DagDetail } from '@/components/apiTypes';
import { pageData } from '@/app/pageData';

export const dynamic = 'force-dynamic';

type Props = { params: Promise<{ name: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: (await params).name };
}

export default async function DagPage({ params }: Props) {
  const name = (await params).name;
  const data = await pageData<DagDetail>(`dag:${name}`);
  if (data.outcome === 'not_found') notFound();
  return <DagDetailView name={name} initial={data.value} />;
}
