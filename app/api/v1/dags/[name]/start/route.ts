// POST /api/v1/dags/:name/start {params?}: "run now"; answers with the new run's ID (and status once written).

import { getServices } from '@/server/api/context';
import { readJsonBody, respond, startBodySchema } from '@/server/api/http';
import { startDag } from '@/server/api/operations';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export async function POST(req: Request, ctx: { params: Promise<{ name: string }> }): Promise<Response> {
  const { name } = await ctx.params;
  return respond(req, getServices, async (svc) => {
    const body = await readJsonBody(req, startBodySchema);
    return startDag(svc, name, body.params ?? []);
  });
}
