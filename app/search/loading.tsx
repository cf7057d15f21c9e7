// Shown while the search page loads.
import { LoadingPanel } from '@/components/Panels';

export default function Loading() {
  return <LoadingPanel label="Searching…" />;
}
