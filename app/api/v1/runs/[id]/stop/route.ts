// POST /api/v1/runs/:id/stop: SIGTERM to a running run on this host, or dequeue a queued one.

import { getServices } from '@/server/api/context';
import { assertSameOrigin, respond } from '@/server/api/http';
import { stopRun } from '@/server/api/operations';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export async function POST(req: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await ctx.params;
  return respond(getServices, (svc) => {
    assertSameOrigin(req);
    return stopRun(svc, id);
  });
}
