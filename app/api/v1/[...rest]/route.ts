// Any other /api/v1 path: a JSON 404 rather than the console's HTML not-found page.

import { jsonResponse } from '@/server/api/http';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

function notFound(req: Request): Response {
  const { pathname } = new URL(req.url);
  return jsonResponse(
    { error: { code: 'not_found', message: `no API route ${req.method} ${pathname}` } },
    404,
  );
}

export { notFound as GET, notFound as POST, notFound as PUT, notFound as PATCH, notFound as DELETE };
