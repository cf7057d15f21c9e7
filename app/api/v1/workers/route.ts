// GET /api/v1/workers: the coordinator's workers with their labels, health and the runs they execute.

import { getServices } from '@/server/api/context';
import { respond } from '@/server/api/http';
import { listWorkers } from '@/server/api/workers';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export function GET(req: Request): Promise<Response> {
  return respond(req, getServices, (svc) => listWorkers(svc));
}
