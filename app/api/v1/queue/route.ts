// GET /api/v1/queue: queued runs per queue, in the order they will start, with why they wait.

import { getServices } from '@/server/api/context';
import { respond } from '@/server/api/http';
import { listQueue } from '@/server/api/operations';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export function GET(): Promise<Response> {
  return respond(getServices, (svc) => listQueue(svc));
}
