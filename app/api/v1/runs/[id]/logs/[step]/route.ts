// GET /api/v1/runs/:id/logs/:step?stream=stdout|stderr&tail=<bytes>: one step's log (or its tail).

import { BadRequestError } from '@/server/api/errors';
import { getServices } from '@/server/api/context';
import { respond } from '@/server/api/http';
import { readRunLog, type LogStream } from '@/server/api/operations';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export async function GET(
  req: Request,
  ctx: { params: Promise<{ id: string; step: string }> },
): Promise<Response> {
  const { id, step } = await ctx.params;
  const q = new URL(req.url).searchParams;
  return respond(req, getServices, (svc) => {
    const stream = q.get('stream') ?? 'stdout';
    if (stream !== 'stdout' && stream !== 'stderr') {
      throw new BadRequestError(`stream: ${JSON.stringify(stream)} must be stdout or stderr`);
    }
    const tail = q.get('tail');
    const tailBytes = tail === null || tail === '' ? undefined : Number(tail);
    if (tailBytes !== undefined && !(Number.isInteger(tailBytes) && tailBytes > 0)) {
      throw new BadRequestError(`tail: ${JSON.stringify(tail)} must be a positive integer`);
    }
    return readRunLog(svc, id, step, stream as LogStream, { tailBytes });
  });
}
