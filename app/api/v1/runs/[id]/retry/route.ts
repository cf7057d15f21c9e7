// POST /api/v1/runs/:id/retry: a new attempt of a finished run (202: started or handed to the workers);
// 409 when the run has not finished.

import { getServices } from '@/server/api/context';
import { Reply, respond } from '@/server/api/http';
import { retryRun } from '@/server/api/operations';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export async function POST(req: Request, ctx: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await ctx.params;
  return respond(req, getServices, async (svc) => new Reply(await retryRun(svc, id), 202));
}
