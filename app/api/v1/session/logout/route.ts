// POST /api/v1/session/logout: clears the sign-in cookie.

import { getServices } from '@/server/api/context';
import { respond } from '@/server/api/http';
import { signOut } from '@/server/api/session';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export function POST(req: Request): Promise<Response> {
  return respond(req, getServices, async (svc) => signOut(svc, req), { public: true });
}
