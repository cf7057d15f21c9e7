'use client';
// Cancelling waiting runs from the queue page: rows leave at once, the server's answer (per run) follows.

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { cancelWaitingRuns, hideWaitingRuns, restoreWaitingRuns } from '../queries';

export function useCancelRuns() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (runIds: string[]) => cancelWaitingRuns(client, runIds),
    onMutate: (runIds) => hideWaitingRuns(client, runIds),
    // The request itself failed (network, auth): nothing was cancelled, so the rows come back.
    onError: (_err, _ids, snapshot) => {
      if (snapshot) restoreWaitingRuns(client, snapshot);
    },
  });
}
