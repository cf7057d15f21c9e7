// GET /api/v1/session: how the server is protected and whether this browser is signed in (never needs auth).
// POST /api/v1/session {token}: with auth.token, checks the token and sets the HttpOnly cookie; 401 if wrong.

import { getServices } from '@/server/api/context';
import { readJsonBody, respond, signInBodySchema } from '@/server/api/http';
import { getSession, signIn } from '@/server/api/session';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export function GET(req: Request): Promise<Response> {
  return respond(req, getServices, async (svc) => getSession(svc, req), { public: true });
}

export function POST(req: Request): Promise<Response> {
  return respond(
    req,
    getServices,
    async (svc) => signIn(svc, req, (await readJsonBody(req, signInBodySchema)).token),
    { public: true },
  );
}
