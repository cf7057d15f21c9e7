// The overview's data: one poll of GET /api/v1/overview. Polled every second so a takeover shows within
// two seconds of happening (the poll plus the answer's own time).

import { queryOptions } from '@tanstack/react-query';
import type { Overview } from '../apiTypes';
import { getJson } from '../api';
import { queryKeys } from '../queryKeys';

export const OVERVIEW_REFRESH_MS = 1000;

export const overviewQuery = () =>
  queryOptions({
    queryKey: queryKeys.overview(),
    queryFn: ({ signal }) => getJson<Overview>('/api/v1/overview', signal),
    refetchInterval: OVERVIEW_REFRESH_MS,
  });
