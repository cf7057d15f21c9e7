// Shown while a page's server part loads.
import { LoadingPanel } from '@/components/Panels';

export default function Loading() {
  return <LoadingPanel />;
}
