// POST /api/v1/dags/:name/enqueue {params?, run_id?}: queues a run; the scheduler starts it when there is room.

import { getServices } from '@/server/api/context';
import { enqueueBodySchema, readJsonBody, respond } from '@/server/api/http';
import { enqueueDag } from '@/server/api/operations';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export async function POST(req: Request, ctx: { params: Promise<{ name: string }> }): Promise<Response> {
  const { name } = await ctx.params;
  return respond(req, getServices, async (svc) => {
    const body = await readJsonBody(req, enqueueBodySchema);
    return enqueueDag(svc, name, body.params ?? [], { runId: body.run_id });
  });
}
