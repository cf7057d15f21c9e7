'use client';
// The client-side providers of the console (TanStack Query).

export { Providers } from '@/components/Providers';
