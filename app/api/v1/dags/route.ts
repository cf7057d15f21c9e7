// GET /api/v1/dags: every DAG file with its schedule, next run, last run and any validation errors.

import { getServices } from '@/server/api/context';
import { respond } from '@/server/api/http';
import { listDags } from '@/server/api/operations';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export function GET(req: Request): Promise<Response> {
  return respond(req, getServices, (svc) => listDags(svc));
}
