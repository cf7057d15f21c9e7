// POST /api/v1/runs/:id/dequeue: removes a queued run from its queue, or cancels one waiting for a worker
// (its task is dropped); either way it ends aborted.

import { getServices } from '@/server/api/context';
import { respond } from '@/server/api/http';
import { dequeueOrCancel } from '@/server/api/operations';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export async function POST(req: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await ctx.params;
  return respond(req, getServices, (svc) => dequeueOrCancel(svc, id));
}
