// GET /api/v1/health: the API answers and its data directory is configured. Needs no credentials, so load
// balancers and probes can use it.

import { getServices } from '@/server/api/context';
import { respond } from '@/server/api/http';
import { VERSION } from '@/server/cli/version';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export function GET(req: Request): Promise<Response> {
  return respond(
    req,
    getServices,
    async (svc) => ({
      status: 'ok',
      version: VERSION,
      time: new Date(svc.clock.nowMs()).toISOString(),
    }),
    { public: true },
  );
}
