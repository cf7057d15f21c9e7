// Editing DAG files from the console: read a DAG's YAML with its version, check a text with `dagu validate`'s
// loader, save it only when valid and unchanged on disk, create from a template, rename and delete. Every
// write is refused (403) when server.permissions.write_dags is false and leaves a `dag.*` event for audit.

import path from 'node:path';
import { z } from 'zod';
import type { DagError } from '../core/dag/dagError';
import { formatDagError } from '../core/dag/dagError';
import { dagNameFromFile } from '../core/dag/dagName';
import { assertDagName, isValidDagName } from '../core/names';
import { MAX_DAG_FILE_BYTES, loadDagByName, parseDagText } from '../store/dagCatalog';
import {
  createDagFile,
  dagVersion,
  deleteDagFile,
  findDagFile,
  readDagSource,
  renameDagFile,
  replaceDagFile,
  type DagSource,
} from '../store/dagFiles';
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

async function requireSource(svc: Services, name: string): Promise<DagSource> {
  const file = await findDagFile(svc.config.paths.dags_dir, name);
  const source = file === null ? null : await readDagSource(file);
  if (source === null) throw new NotFoundError(`DAG ${JSON.stringify(name)} not found`);
  return source;
}

function relative(svc: Services, file: string): string {
  return path.relative(svc.config.paths.dags_dir, file);
}

/**
 * The file as written, to edit; without write access, with the SMTP password masked (and the version that of
 * the text served: nothing can be saved over it then).
 */
export async function getDagSpec(svc: Services, name: string): Promise<DagSpecView> {
  const source = await requireSource(svc, name);
  const writable = svc.config.server.permissions.write_dags;
  const yaml = writable ? source.text : maskDagSecrets(source.text);
  return {
    name,
    file: relative(svc, source.file),
    yaml,
    version: writable ? source.version : dagVersion(yaml),
    writable,
  };
}

/** Checks `yaml` as the file of DAG `name` (its file if it exists, else `<name>.yaml`); writes nothing. */
export async function checkDagSpec(svc: Services, name: string, yaml: string): Promise<SpecCheck> {
  assertDagName(name);
  const dagsDir = svc.config.paths.dags_dir;
  const file = (await findDagFile(dagsDir, name)) ?? path.resolve(dagsDir, `${name}.yaml`);
  return checkText(svc, file, yaml);
}

async function checkText(svc: Services, file: string, yaml: string): Promise<SpecCheck> {
  const result = await parseDagText(svc.config.paths.dags_dir, file, yaml, { strict: true });
  const shown = relative(svc, file);
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
 * Saves `yaml` as DAG `name` if it is valid (else 422 with the errors) and the file still has `baseVersion`
 * (else 409 with the text on disk now, for the console's three-way view).
 */
export async function saveDagSpec(
  svc: Services,
  name: string,
  body: { yaml: string; base_version: string },
): Promise<Reply> {
  assertWritesAllowed(svc);
  const source = await requireSource(svc, name);
  const check = await checkText(svc, source.file, body.yaml);
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
  const result = await replaceDagFile(source.file, body.yaml, body.base_version);
  if (!result.written) {
    if (result.current === null) throw new NotFoundError(`DAG ${JSON.stringify(name)} was removed meanwhile`);
    return conflict(name, result.current);
  }
  await svc.events.append('dag.saved', {
    dag: name,
    file: relative(svc, source.file),
    from_version: body.base_version,
    version: result.version,
  });
  return new Reply(
    { name, file: relative(svc, source.file), version: result.version, warnings: check.warnings },
    200,
  );
}

function conflict(name: string, current: DagSource): Reply {
  return new Reply(
    {
      error: {
        code: 'conflict',
        message: `DAG ${JSON.stringify(name)} changed on disk since it was loaded; merge with the current text and save again`,
      },
      current: { yaml: current.text, version: current.version },
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
  const dagsDir = svc.config.paths.dags_dir;
  if (!(await createDagFile(dagsDir, name, text))) {
    throw new ConflictError(`a DAG named ${JSON.stringify(name)} already exists`);
  }
  const file = `${name}.yaml`;
  const source = await readDagSource(path.resolve(dagsDir, file));
  const version = source?.version ?? '';
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

/** Runs of `name` that are queued or running: renaming or deleting the DAG under them would strand them. */
async function activeRuns(svc: Services, name: string): Promise<string[]> {
  return (await svc.runs.listActive()).filter((r) => r.dag_name === name).map((r) => r.run_id);
}

async function refuseWhileActive(svc: Services, name: string, what: 'rename' | 'delete'): Promise<void> {
  const active = await activeRuns(svc, name);
  if (active.length === 0) return;
  const shown = active.slice(0, 5).join(', ') + (active.length > 5 ? `, and ${active.length - 5} more` : '');
  throw new ConflictError(
    `cannot ${what} DAG ${JSON.stringify(name)} while it has queued or running runs (${shown}); stop or dequeue them first`,
  );
}

function assertBase(name: string, source: DagSource, baseVersion: string | undefined): void {
  if (baseVersion !== undefined && baseVersion !== source.version) {
    throw new ConflictError(
      `DAG ${JSON.stringify(name)} changed on disk since it was loaded; reload it first`,
    );
  }
}

/** Renames DAG `name` (its file) to `new_name`; 409 when that name is taken or the DAG has active runs. */
export async function renameDag(
  svc: Services,
  name: string,
  body: { new_name: string; base_version?: string },
): Promise<{ name: string; file: string }> {
  assertWritesAllowed(svc);
  const newName = checkNewName(body.new_name, 'new_name');
  const source = await requireSource(svc, name);
  assertBase(name, source, body.base_version);
  if (newName === name)
    throw new BadRequestError(`new_name: the DAG is already named ${JSON.stringify(name)}`);
  const stem = dagNameFromFile(source.file);
  if (stem !== name) {
    throw new BadRequestError(
      `DAG ${JSON.stringify(name)} takes its name from its name: key in ${relative(svc, source.file)}; edit that key instead`,
    );
  }
  const loaded = await loadDagByName(svc.config.paths.dags_dir, name);
  if (loaded.ok && loaded.dag.name !== stem) {
    throw new BadRequestError(
      `${relative(svc, source.file)} sets name: ${loaded.dag.name}; edit that key instead`,
    );
  }
  if ((await findDagFile(svc.config.paths.dags_dir, newName)) !== null) {
    throw new ConflictError(`a DAG named ${JSON.stringify(newName)} already exists`);
  }
  await refuseWhileActive(svc, name, 'rename');
  const r = await renameDagFile(source.file, newName);
  if (!r.renamed) throw new ConflictError(`a DAG named ${JSON.stringify(newName)} already exists`);
  const file = relative(svc, r.file);
  await svc.events.append('dag.renamed', {
    dag: name,
    new_name: newName,
    from_file: relative(svc, source.file),
    file,
  });
  return { name: newName, file };
}

/** Deletes DAG `name`'s file; 409 while it has queued or running runs (their history stays). */
export async function deleteDag(
  svc: Services,
  name: string,
  body: { base_version?: string },
): Promise<{ name: string; deleted: true }> {
  assertWritesAllowed(svc);
  const source = await requireSource(svc, name);
  assertBase(name, source, body.base_version);
  await refuseWhileActive(svc, name, 'delete');
  if (!(await deleteDagFile(source.file))) throw new NotFoundError(`DAG ${JSON.stringify(name)} not found`);
  await svc.events.append('dag.deleted', {
    dag: name,
    file: relative(svc, source.file),
    version: source.version,
  });
  return { name, deleted: true };
}
