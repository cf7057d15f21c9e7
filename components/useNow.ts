'use client';
// The current time for relative times, ticking every second; null during server rendering and hydration
// so the server's clock never leaks into markup the browser would then disagree with.

import { useEffect, useState } from 'react';
import { SECOND } from '@/server/core/units';

export function useNow(intervalMs: number = SECOND): number | null {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}
