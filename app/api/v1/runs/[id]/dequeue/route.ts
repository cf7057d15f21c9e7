// POST /api/v1/runs/:id/dequeue: removes a queued run from its queue (it ends aborted).

import { getServices } from '@/server/api/context';
import { assertSameOrigin, respond } from '@/server/api/http';
import { dequeueRun } from '@/server/api/operations';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export async function POST(req: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await ctx.params;
  return respond(getServices, (svc) => {
    assertSameOrigin(req);
    return dequeueRun(svc, id);
  });
}
