// The workers page's data: GET /api/v1/workers, polled like every live view.

import { queryOptions } from '@tanstack/react-query';
import type { WorkerListing } from '../apiTypes';
import { getJson } from '../api';
import { livePoll } from '../live/liveEvents';
import { queryKeys } from '../queryKeys';

export const WORKERS_REFRESH_MS = 2000;

export const workersQuery = () =>
  queryOptions({
    queryKey: queryKeys.workers(),
    queryFn: ({ signal }) => getJson<WorkerListing>('/api/v1/workers', signal),
    refetchInterval: livePoll(WORKERS_REFRESH_MS),
  });
