// The routes of the console's DAG editor (dagEditing.ts): read a DAG's YAML, check a text, save, rename and
// delete. Creating a DAG is POST /api/v1/dags, beside the list, in apiRoutes.ts. Every handler goes through
// `respond` (auth, same-origin check); the writes also check server.permissions.write_dags.

import type { ApiRoute } from './apiRoutes';
import {
  SPEC_BODY_BYTES,
  checkDagSpec,
  deleteBodySchema,
  deleteDag,
  getDagSpec,
  renameBodySchema,
  renameDag,
  saveBodySchema,
  saveDagSpec,
  validateBodySchema,
} from './dagEditing';
import { readJsonBody, respond } from './http';

export const DAG_EDIT_ROUTES: readonly ApiRoute[] = [
  {
    // GET: the DAG file's text and version (its hash). POST {yaml, base_version}: saves it if valid (422 with
    // the errors if not) and unchanged on disk since base_version (409 with the text on disk if not).
    path: '/api/v1/dags/:name/spec',
    handlers: {
      GET: (svc, req, p) => respond(req, svc, (s) => getDagSpec(s, p.name)),
      POST: (svc, req, p) =>
        respond(req, svc, async (s) =>
          saveDagSpec(s, p.name, await readJsonBody(req, saveBodySchema, SPEC_BODY_BYTES)),
        ),
    },
  },
  {
    // {yaml}: checks the text as this DAG's file with `dagu validate`'s loader; writes nothing.
    path: '/api/v1/dags/:name/validate',
    handlers: {
      POST: (svc, req, p) =>
        respond(req, svc, async (s) =>
          checkDagSpec(s, p.name, (await readJsonBody(req, validateBodySchema, SPEC_BODY_BYTES)).yaml),
        ),
    },
  },
  {
    // {new_name, base_version?}: renames the DAG's file; 409 when the name is taken or runs are active.
    path: '/api/v1/dags/:name/rename',
    handlers: {
      POST: (svc, req, p) =>
        respond(req, svc, async (s) => renameDag(s, p.name, await readJsonBody(req, renameBodySchema))),
    },
  },
  {
    // {base_version?}: deletes the DAG's file (its runs' history stays); 409 while runs are active.
    path: '/api/v1/dags/:name/delete',
    handlers: {
      POST: (svc, req, p) =>
        respond(req, svc, async (s) => deleteDag(s, p.name, await readJsonBody(req, deleteBodySchema))),
    },
  },
];
