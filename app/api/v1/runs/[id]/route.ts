// GET /api/v1/runs/:id: the latest attempt's full status, with why it waits as it is now.

import { getServices } from '@/server/api/context';
import { respond } from '@/server/api/http';
import { viewRun } from '@/server/api/operations';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export async function GET(req: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await ctx.params;
  return respond(req, getServices, (svc) => viewRun(svc, id));
}
