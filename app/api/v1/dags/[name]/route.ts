// GET /api/v1/dags/:name: one DAG's definition, errors and recent runs.

import { getServices } from '@/server/api/context';
import { respond } from '@/server/api/http';
import { getDag } from '@/server/api/operations';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export async function GET(req: Request, ctx: { params: Promise<{ name: string }> }): Promise<Response> {
  const { name } = await ctx.params;
  return respond(req, getServices, (svc) => getDag(svc, name));
}
