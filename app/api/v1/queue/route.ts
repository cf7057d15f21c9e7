// GET /api/v1/queue?queue=&dag=&selector=&reason=&limit=: every run that waits (local queues, held and
// dispatched runs) with why it waits; the filters are exact matches (see QueueFilter).

import { getServices } from '@/server/api/context';
import { respond } from '@/server/api/http';
import { listQueue, parseQueueQuery } from '@/server/api/operations';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export function GET(req: Request): Promise<Response> {
  return respond(req, getServices, (svc) => listQueue(svc, parseQueueQuery(new URL(req.url).searchParams)));
}
