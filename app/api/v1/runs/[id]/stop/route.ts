// POST /api/v1/runs/:id/stop: SIGTERM to a running run on this host, dequeue a queued one, cancel a run
// waiting for a worker (200), or ask the worker running it to stop it (202: it ends `aborted` shortly).

import { getServices } from '@/server/api/context';
import { Reply, respond } from '@/server/api/http';
import { requestStop } from '@/server/api/operations';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export async function POST(req: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await ctx.params;
  return respond(req, getServices, async (svc) => {
    const r = await requestStop(svc, id);
    return r.outcome === 'requested' ? new Reply(r.status, 202) : r.status;
  });
}
