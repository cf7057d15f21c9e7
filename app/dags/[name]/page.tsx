// /dags/:name: one DAG. Read on the server first, so an unknown name is a real 404.

import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { DagDetailView } from '@/components/dags/DagDetailView';
import { getServices } from '@/server/api/context';
import { NotFoundError } from '@/server/api/errors';
import { getDag } from '@/server/api/operations';
import { isValidDagName } from '@/server/core/names';

export const dynamic = 'force-dynamic';

type Props = { params: Promise<{ name: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: (await params).name };
}

export default async function DagPage({ params }: Props) {
  const name = (await params).name;
  if (!isValidDagName(name)) notFound();
  let detail;
  try {
    detail = await getDag(getServices(), name);
  } catch (err) {
    if (err instanceof NotFoundError) notFound();
    throw err;
  }
  return <DagDetailView name={name} initial={detail} />;
}
