// GET /api/v1/events?type=dag.run.queued&type=...&after=<id>&limit=N[&follow=1&wait=<ms>]: events oldest
// first; with follow, answers as soon as one matches (or with none after the wait, at most 30 s).

import { getServices } from '@/server/api/context';
import { listEvents, parseEventsQuery } from '@/server/api/events';
import { respond } from '@/server/api/http';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export function GET(req: Request): Promise<Response> {
  return respond(req, getServices, (svc) =>
    listEvents(svc, parseEventsQuery(new URL(req.url).searchParams), { signal: req.signal }),
  );
}
