// Editing DAGs from the console: read a DAG's YAML with its version, check a text with `dagu validate`'s
// loader, save it only when valid and unchanged since it was loaded, create from a template, rename and
// delete. Reads and writes go to the DAG definitions store (the DAGs directory, or PostgreSQL, whose
// version check is then done by the database); the local DAGs directory only names a Dagu 1.x file by the
// `name:` it declares. Every write is refused (403) when server.permissions.write_dags is false and leaves a
// `dag.*` event for audit.

import path from 'node:path';
import { z } from 'zod';
import type { DagError } from '../core/dag/dagError';
import { formatDagError } from '../core/dag/dagError';
import { dagNameFromFile } from '../core/dag/dagName';
import { assertDagName, isValidDagName } from '../core/names';
import { MAX_DAG_FILE_BYTES, parseDagText } from '../store/dagCatalog';
import type { DagDefinition } from '../store/dagDefinitions';
import { dagVersion, findDagFile } from '../store/dagFiles';
import { activeDagRuns, activeDagRunsRefusal } from './dagActiveRuns';
import { DAG_TEMPLATES, dagTemplateText } from './dagTemplates';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from './errors';
import { Reply } from './http';
import { locateWarnings } from './locateWarnings';
import { maskDagSecrets } from './maskDagSecrets';
import type { Services } from './services';

/** Bodies carrying a DAG's text: the largest DAG file, escaped as JSON (at most doubled), and room for the rest. */
export const SPEC_BODY_BYTES = 2 * MAX_DAG_FILE_BYTES + 4096;

const yamlField = z.string().max(MAX_DAG_FILE_BYTES, `a DAG file has at most ${MAX_DAG_FILE_BYTES} bytes`);
const versionField = z.string().min(1, 'the version is not empty').max(200);
const nameField = z.string().min(1, 'the name is not empty').max(200);

export const validateBodySchema = z.strictObject({ yaml: yamlField });
export const saveBodySchema = z.strictObject({ yaml: yamlField, base_version: versionField });
export const createBodySchema = z.strictObject({
  name: nameField,
  template: z.enum(DAG_TEMPLATES).optional(),
});
export const renameBodySchema = z.strictObject({
  new_name: nameField,
  base_version: versionField.optional(),
});
export const deleteBodySchema = z.strictObject({ base_version: versionField.optional() });

/** One problem of a DAG text, placed for the editor: 1-based line and column (null: no place in the text). */
export interface SpecDiagnostic {
  line: number | null;
  column: number | null;
  field: string;
  message: string;
  /** As `dagu validate` prints it: `etl.yaml:3:5: steps[0].run: ...`. */
  text: string;
}

export interface SpecCheck {
  valid: boolean;
  errors: SpecDiagnostic[];
  /** Deprecated spellings and the like: the text is valid. Placed at the field they name, where found. */
  warnings: SpecDiagnostic[];
}

/** GET /api/v1/dags/:name/spec. */
export interface DagSpecView {
  name: string;
  /** Relative to the DAGs directory. */
  file: string;
  yaml: string;
  /** The text's hash: a save carries it back as `base_version`. */
  version: string;
  /** Whether this server lets the console write DAG files (server.permissions.write_dags). */
  writable: boolean;
}

/** Throws 403 unless server.permissions.write_dags allows writing DAG files. */
export function assertWritesAllowed(svc: Services): void {
  if (!svc.config.server.permissions.write_dags) {
    throw new ForbiddenError(
      'editing DAG files is turned off on this server (server.permissions.write_dags is false)',
    );
  }
}

/** Who the store records as the writer of the console's edits. */
const WRITER = 'console';

/**
 * DAG `name` as stored, or null: by its name, else (a Dagu 1.x file may declare another `name:`) the DAG
 * whose file in the local DAGs directory declares it. Throws InvalidNameError for a name that is not valid.
 */
async function findDag(svc: Services, name: string): Promise<DagDefinition | null> {
  assertDagName(name);
  const own = await svc.dags.get(name);
  if (own) return own;
  const file = await findDagFile(svc.config.paths.dags_dir, name);
  const stem = file === null ? null : dagNameFromFile(file);
  return stem === null || stem === name ? null : svc.dags.get(stem);
}

async function requireDag(svc: Services, name: string): Promise<DagDefinition> {
  const dag = await findDag(svc, name);
  if (dag === null) throw new NotFoundError(`DAG ${JSON.stringify(name)} not found`);
  return dag;
}

/** Where the DAG's file is (or would be) in the DAGs directory: the loader parses it as that file. */
function fileOf(svc: Services, fileName: string): string {
  return path.resolve(svc.config.paths.dags_dir, fileName);
}

/**
 * The file as written, to edit; without write access, with the SMTP password masked (and the version that of
 * the text served: nothing can be saved over it then).
 */
export async function getDagSpec(svc: Services, name: string): Promise<DagSpecView> {
  const dag = await requireDag(svc, name);
  const writable = svc.config.server.permissions.write_dags;
  const yaml = writable ? dag.yaml : maskDagSecrets(dag.yaml);
  return {
    name,
    file: dag.fileName,
    yaml,
    version: writable ? dag.version : dagVersion(yaml),
    writable,
  };
}

/** Checks `yaml` as the file of DAG `name` (its file if it exists, else `<name>.yaml`); writes nothing. */
export async function checkDagSpec(svc: Services, name: string, yaml: string): Promise<SpecCheck> {
  const dag = await findDag(svc, name);
  return checkText(svc, dag?.fileName ?? `${name}.yaml`, yaml);
}

/** Checks `yaml` as the file `fileName` of the DAGs directory. */
async function checkText(svc: Services, fileName: string, yaml: string): Promise<SpecCheck> {
  const result = await parseDagText(svc.config.paths.dags_dir, fileOf(svc, fileName), yaml, { strict: true });
  const shown = fileName;
  const diagnostic = (e: DagError): SpecDiagnostic => ({
    line: e.line,
    column: e.column,
    field: e.field,
    message: e.message,
    text: formatDagError({ ...e, file: e.file === null ? null : shown }),
  });
  if (!result.ok) return { valid: false, errors: result.errors.map(diagnostic), warnings: [] };
  const places = locateWarnings(yaml, result.warnings);
  const warnings = result.warnings.map((message, i): SpecDiagnostic => {
    const at = places[i];
    const where = at ? `${shown}:${at.line}:${at.column}` : shown;
    return {
      line: at?.line ?? null,
      column: at?.column ?? null,
      field: at?.field ?? '',
      message,
      text: `${where}: warning: ${message}`,
    };
  });
  return { valid: true, errors: [], warnings };
}

/**
 * Saves `yaml` as DAG `name` if it is valid (else 422 with the errors) and the DAG still has `baseVersion`
 * (else 409 with the text it has now, for the console's three-way view).
 */
export async function saveDagSpec(
  svc: Services,
  name: string,
  body: { yaml: string; base_version: string },
): Promise<Reply> {
  assertWritesAllowed(svc);
  const dag = await requireDag(svc, name);
  const check = await checkText(svc, dag.fileName, body.yaml);
  if (!check.valid) {
    return new Reply(
      {
        error: { code: 'invalid_dag', message: `not saved: ${check.errors[0].text}` },
        errors: check.errors,
        warnings: check.warnings,
      },
      422,
    );
  }
  const result = await svc.dags.put(dag.name, body.yaml, { expectedVersion: body.base_version, by: WRITER });
  if (!result.ok) {
    if (result.reason === 'conflict') return conflict(name, result.current);
    throw new NotFoundError(`DAG ${JSON.stringify(name)} was removed meanwhile`);
  }
  await svc.events.append('dag.saved', {
    dag: name,
    file: dag.fileName,
    from_version: body.base_version,
    version: result.version,
  });
  return new Reply({ name, file: dag.fileName, version: result.version, warnings: check.warnings }, 200);
}

function conflict(name: string, current: DagDefinition): Reply {
  return new Reply(
    {
      error: {
        code: 'conflict',
        message: `DAG ${JSON.stringify(name)} changed since it was loaded; merge with the current text and save again`,
      },
      current: { yaml: current.yaml, version: current.version },
    },
    409,
  );
}

/** Creates DAG `name` from a template (default `hello`); 409 when the name is taken. */
export async function createDag(
  svc: Services,
  body: { name: string; template?: (typeof DAG_TEMPLATES)[number] },
): Promise<Reply> {
  assertWritesAllowed(svc);
  const name = checkNewName(body.name, 'name');
  const text = dagTemplateText(body.template ?? 'hello');
  const taken = () => new ConflictError(`a DAG named ${JSON.stringify(name)} already exists`);
  if ((await findDag(svc, name)) !== null) throw taken();
  const result = await svc.dags.put(name, text, { expectedVersion: null, by: WRITER });
  if (!result.ok) throw taken();
  const { version } = result;
  const file = `${name}.yaml`;
  await svc.events.append('dag.created', { dag: name, file, template: body.template ?? 'hello', version });
  return new Reply({ name, file, version }, 201);
}

/** "name: ..." as the field that is wrong, with the rule; the same rule the DAG loader applies to names. */
function checkNewName(value: string, field: string): string {
  if (!isValidDagName(value)) {
    throw new BadRequestError(
      `${field}: ${JSON.stringify(value)} is not a DAG name: use 1 to 64 letters, digits, "_", "-" or "." (not leading, no "..")`,
    );
  }
  return value;
}

async function refuseWhileActive(svc: Services, name: string, what: 'rename' | 'delete'): Promise<void> {
  const active = await activeDagRuns(svc.runs, name);
  if (active.length > 0) throw new ConflictError(activeDagRunsRefusal(name, what, active));
}

function changedMeanwhile(name: string): ConflictError {
  return new ConflictError(`DAG ${JSON.stringify(name)} changed since it was loaded; reload it first`);
}

function assertBase(name: string, dag: DagDefinition, baseVersion: string | undefined): void {
  if (baseVersion !== undefined && baseVersion !== dag.version) throw changedMeanwhile(name);
}

/** Renames DAG `name` (its file) to `new_name`; 409 when that name is taken or the DAG has active runs. */
export async function renameDag(
  svc: Services,
  name: string,
  body: { new_name: string; base_version?: string },
): Promise<{ name: string; file: string }> {
  assertWritesAllowed(svc);
  const newName = checkNewName(body.new_name, 'new_name');
  const dag = await requireDag(svc, name);
  assertBase(name, dag, body.base_version);
  if (newName === name)
    throw new BadRequestError(`new_name: the DAG is already named ${JSON.stringify(name)}`);
  if (dag.name !== name) {
    throw new BadRequestError(
      `DAG ${JSON.stringify(name)} takes its name from its name: key in ${dag.fileName}; edit that key instead`,
    );
  }
  const parsed = await parseDagText(svc.config.paths.dags_dir, fileOf(svc, dag.fileName), dag.yaml);
  if (parsed.ok && parsed.dag.name !== dag.name) {
    throw new BadRequestError(`${dag.fileName} sets name: ${parsed.dag.name}; edit that key instead`);
  }
  const taken = () => new ConflictError(`a DAG named ${JSON.stringify(newName)} already exists`);
  if ((await findDag(svc, newName)) !== null) throw taken();
  await refuseWhileActive(svc, name, 'rename');
  const r = await svc.dags.rename(dag.name, newName, { expectedVersion: dag.version, by: WRITER });
  if (!r.ok) {
    if (r.reason === 'taken') throw taken();
    if (r.reason === 'conflict') throw changedMeanwhile(name);
    throw new NotFoundError(`DAG ${JSON.stringify(name)} was removed meanwhile`);
  }
  await svc.events.append('dag.renamed', {
    dag: name,
    new_name: newName,
    from_file: dag.fileName,
    file: r.fileName,
  });
  return { name: newName, file: r.fileName };
}

/** Deletes DAG `name`; 409 while it has queued or running runs (their history stays). */
export async function deleteDag(
  svc: Services,
  name: string,
  body: { base_version?: string },
): Promise<{ name: string; deleted: true }> {
  assertWritesAllowed(svc);
  const dag = await requireDag(svc, name);
  assertBase(name, dag, body.base_version);
  await refuseWhileActive(svc, name, 'delete');
  // Conditional on the text just read: an edit saved meanwhile is not deleted unseen.
  const r = await svc.dags.delete(dag.name, { expectedVersion: dag.version, by: WRITER });
  if (!r.ok) {
    if (r.reason === 'conflict') throw changedMeanwhile(name);
    throw new NotFoundError(`DAG ${JSON.stringify(name)} not found`);
  }
  await svc.events.append('dag.deleted', { dag: name, file: dag.fileName, version: dag.version });
  return { name, deleted: true };
}
