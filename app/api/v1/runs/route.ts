// GET /api/v1/runs?dag=&status=&limit=&cursor=: runs newest first, one page at a time.

import { getServices } from '@/server/api/context';
import { respond } from '@/server/api/http';
import { listRuns } from '@/server/api/operations';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export function GET(req: Request): Promise<Response> {
  const q = new URL(req.url).searchParams;
  return respond(req, getServices, (svc) =>
    listRuns(svc, {
      dag: q.get('dag'),
      status: q.get('status'),
      limit: q.get('limit'),
      cursor: q.get('cursor'),
    }),
  );
}
