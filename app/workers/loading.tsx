// Shown while the workers page loads.
import { LoadingPanel } from '@/components/Panels';

export default function Loading() {
  return <LoadingPanel label="Loading workers…" />;
}
