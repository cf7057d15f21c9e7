// GET /api/v1/overview: scheduler instances and the active one, failover settings and history, counts of
// running, queued and held runs and of workers, and whether the server is open without auth.

import { getServices } from '@/server/api/context';
import { respond } from '@/server/api/http';
import { getOverview } from '@/server/api/operations';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export function GET(req: Request): Promise<Response> {
  return respond(req, getServices, (svc) => getOverview(svc));
}
