// The overview's data: GET /api/v1/overview. The event stream's `scheduler` message refreshes it within half
// a second of a takeover; without the stream it is polled every second, so a takeover still shows within
// two seconds of happening (the poll plus the answer's own time).

import { queryOptions } from '@tanstack/react-query';
import type { Overview } from '../apiTypes';
import { getJson } from '../api';
import { livePoll } from '../live/liveEvents';
import { queryKeys } from '../queryKeys';

export const OVERVIEW_REFRESH_MS = 1000;
/** With the stream healthy: the ages it shows (last renewal, record updated) stay near the truth. */
export const OVERVIEW_STREAM_REFRESH_MS = 5000;

export const overviewQuery = () =>
  queryOptions({
    queryKey: queryKeys.overview(),
    queryFn: ({ signal }) => getJson<Overview>('/api/v1/overview', signal),
    refetchInterval: livePoll(OVERVIEW_REFRESH_MS, OVERVIEW_STREAM_REFRESH_MS),
  });
