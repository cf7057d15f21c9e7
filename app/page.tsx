// The console's home: the overview of schedulers, failovers, runs and workers.

import type { Metadata } from 'next';
import { PageHeader } from '@/components/Panels';
import { OverviewView } from '@/components/overview/OverviewView';

export const metadata: Metadata = { title: 'Overview' };

export default function OverviewPage() {
  return (
    <>
      <PageHeader title="Overview" />
      <OverviewView />
    </>
  );
}
