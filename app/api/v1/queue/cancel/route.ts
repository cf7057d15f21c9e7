// POST /api/v1/queue/cancel {run_ids: [...]} (1 to 500): cancels each waiting run; the answer lists, per run,
// whether it worked and why not. One failure does not stop the others.

import { getServices } from '@/server/api/context';
import { cancelBodySchema, readJsonBody, respond } from '@/server/api/http';
import { cancelQueuedRuns } from '@/server/api/operations';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export function POST(req: Request): Promise<Response> {
  return respond(req, getServices, async (svc) => {
    const body = await readJsonBody(req, cancelBodySchema);
    return cancelQueuedRuns(svc, body.run_ids);
  });
}
