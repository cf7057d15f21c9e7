// Loads config.yaml < DAGU_* environment < command-line flags into a validated Config, once, at the edge.

import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { loadYaml } from './loadYaml';
import { editDistance } from '../core/dag/keyHints';
import { formatDuration, parseDuration } from '../core/duration';
import { isValidDagName } from '../core/names';
import { isKnownTimeZone } from '../core/schedule';
import { DAY, MILLISECOND } from '../core/units';
import { daguKey, foldKey, isDaguSection } from './daguKeys';
import {
  fieldName,
  SETTINGS,
  STRUCTURED_KEYS,
  type Setting,
  type SettingKey,
  type SettingsTree,
  type SettingValue,
} from './settings';
import type { AuthConfig, Config, QueueConfig } from './types';

/** Thrown when a setting has an invalid value; the message names the key (and variable) and the value. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export interface LoadConfigOptions {
  /** The environment the settings' variables are read from: the process's, handed down by its composition root. */
  env: NodeJS.ProcessEnv;
  /** Values from command-line flags, keyed by setting key (`port`, `scheduler.port`). */
  flags?: Record<string, unknown>;
  /** Overrides DAGU_HOME (e.g. `--home`). */
  home?: string;
}

/** A setting's value and where it came from; `dagu` is the Dagu key (as written) it was read under. */
type Raw = { value: unknown; origin: string; dagu?: string };

/** A setting's compiled value, of the type its row gives. */
type SettingReader = <K extends SettingKey>(key: K) => SettingValue<K>;

export function resolveHome(env: NodeJS.ProcessEnv, home?: string): string {
  const h = home ?? env.DAGU_HOME ?? path.join(homedir(), '.dagu');
  return path.resolve(h);
}

export function loadConfig(opts: LoadConfigOptions): Config {
  const { env } = opts;
  const home = resolveHome(env, opts.home);
  const configFile = env.DAGU_CONFIG ? path.resolve(env.DAGU_CONFIG) : path.join(home, 'config.yaml');
  const fromFile = readConfigFile(configFile);

  refuseMisspelledVariables(env);
  const raw = new Map<string, Raw>();
  for (const s of SETTINGS) {
    const fileValue = fromFile.values.get(s.key);
    if (fileValue !== undefined) raw.set(s.key, { value: fileValue, origin: `${s.key} in ${configFile}` });
    else {
      const dagu = fromFile.dagu.get(s.key);
      if (dagu) raw.set(s.key, { value: dagu.value, origin: `${dagu.key} in ${configFile}`, dagu: dagu.key });
    }
    // The variable of this product wins over its alias (Dagu's name of the same setting).
    for (const name of [...(s.envAliases ?? []).slice().reverse(), s.env]) {
      const v = env[name];
      if (v !== undefined && v !== '') raw.set(s.key, { value: v, origin: `${name} (${s.key})` });
    }
    const flag = opts.flags?.[s.key];
    if (flag !== undefined)
      raw.set(s.key, { value: flag, origin: `--${s.flag ?? s.key.split('.').pop()} (${s.key})` });
  }

  // Each setting is compiled once, when first read (the order of the reads is the order errors are found in).
  const compiled = new Map<string, CompiledValue>();
  const valueOf = (s: Setting): CompiledValue => {
    let value = compiled.get(s.key);
    if (value === undefined) {
      value = compile(s, raw.get(s.key));
      compiled.set(s.key, value);
    }
    return value;
  };
  const v: SettingReader = (key) => settingValue(key, valueOf);
  applyDaguAuthMode(fromFile, raw, configFile);
  if (fromFile.debug !== undefined && !raw.has('log.level') && fromFile.debug.value === true)
    raw.set('log.level', { value: 'debug', origin: `${fromFile.debug.key} in ${configFile}` });
  const dir = (key: DirectoryKey, fallback: string) => path.resolve(home, v(key) ?? fallback);

  const threshold = v('scheduler.lock_stale_threshold');
  const retry = v('scheduler.lock_retry_interval');
  if (retry >= threshold) {
    const r = raw.get('scheduler.lock_retry_interval');
    throw new ConfigError(
      `${r?.origin ?? 'scheduler.lock_retry_interval'}: ${JSON.stringify(String(r?.value ?? '5s'))} ` +
        `must be below scheduler.lock_stale_threshold (${String(raw.get('scheduler.lock_stale_threshold')?.value ?? '30s')})`,
    );
  }
  const hbInterval = v('run.heartbeat_interval');
  const hbStale = v('run.heartbeat_stale_threshold');
  if (hbInterval * 2 > hbStale) {
    throw new ConfigError(
      `run.heartbeat_stale_threshold must be at least twice run.heartbeat_interval (got ${String(
        raw.get('run.heartbeat_stale_threshold')?.value ?? '45s',
      )} and ${String(raw.get('run.heartbeat_interval')?.value ?? '5s')})`,
    );
  }

  const auth = compileAuth(v, raw, env, fromFile.unused);
  // The fields compiled from more than their own setting, in the order their errors were always reported.
  const dataDir = dir('paths.data_dir', 'data');
  const paths = {
    config_file: configFile,
    dags_dir: dir('paths.dags_dir', 'dags'),
    data_dir: dataDir,
    log_dir: dir('paths.log_dir', 'logs'),
    // Here the flags are data (data/suspend), unless the home says where. A Dagu home keeps them in
    // DAGU_HOME/suspend (or where its paths.suspend_flags_dir says): used when it exists, so that the DAGs
    // suspended under Dagu stay suspended.
    suspend_flags_dir: dir(
      'paths.suspend_flags_dir',
      existsSync(path.join(home, 'suspend')) ? path.join(home, 'suspend') : path.join(dataDir, 'suspend'),
    ),
    base_config: dir('paths.base_config', 'base.yaml'),
  };
  const coordinator = compileCoordinator(v, raw, fromFile.advertise);
  const labels = parseLabelsSetting(v('worker.labels'), raw.get('worker.labels')?.origin ?? 'worker.labels');
  const workDir = dir('worker.work_dir', 'worker');
  const tz = compileTimeZone(v('tz'), raw, env);
  const tree = settingsTree(valueOf);
  return {
    ...tree,
    home,
    paths,
    auth,
    queues: { ...tree.queues, config: fromFile.queues },
    env_passthrough: tree.env_passthrough ?? [],
    env_passthrough_prefixes: tree.env_passthrough_prefixes ?? [],
    coordinator: { ...tree.coordinator, ...coordinator },
    worker: { ...tree.worker, labels, work_dir: workDir },
    tz,
    warnings:
      fromFile.unused.length > 0
        ? [`${configFile}: Dagu settings not used by this product: ${fromFile.unused.join(', ')}`]
        : [],
  };
}

/** The settings read into directories, relative to DAGU_HOME. */
type DirectoryKey =
  | 'paths.dags_dir'
  | 'paths.data_dir'
  | 'paths.log_dir'
  | 'paths.suspend_flags_dir'
  | 'paths.base_config'
  | 'worker.work_dir';

/** Where each setting goes in `Config`: its sections and its field (worked out once). */
const PLACES = SETTINGS.map((s) => ({ s, sections: s.key.split('.').slice(0, -1), field: fieldName(s) }));

/** Every setting as a field of nested objects, as `SettingsTree` describes them. */
function settingsTree(valueOf: (s: Setting) => CompiledValue): SettingsTree {
  const tree: Record<string, unknown> = {};
  for (const { s, sections, field } of PLACES) {
    let node = tree;
    for (const section of sections) {
      node[section] ??= {};
      node = node[section] as Record<string, unknown>;
    }
    node[field] = valueOf(s);
  }
  // The loop above is SettingsTree's definition, row by row; the compiler cannot follow it through the keys.
  return tree as SettingsTree;
}

/**
 * The zone of schedules without `CRON_TZ=`: an IANA zone name, or null for UTC. Unset (or Go's `Local`), it is
 * the host's zone as Dagu takes it: `TZ` of the environment, else the system's (/etc/localtime), so that a
 * Dagu user's `0 9 * * *` still runs at nine o'clock local time.
 */
function compileTimeZone(tz: string | null, raw: Map<string, Raw>, env: NodeJS.ProcessEnv): string | null {
  if (tz === null || tz === 'Local') return hostTimeZone(env);
  // Checked as the scheduler's cron library will read it (Intl), not against the system's zone files.
  if (!isKnownTimeZone(tz))
    throw new ConfigError(
      `${raw.get('tz')?.origin ?? 'tz'}: ${JSON.stringify(tz)} is not a time zone (use an IANA name such as Europe/Paris)`,
    );
  return isUtc(tz) ? null : tz;
}

/**
 * The host's zone as Go's time.Local takes it: the `TZ` variable (`:Europe/Paris` too; empty is UTC), else the
 * zone /etc/localtime links to, else /etc/timezone; null for UTC. Read from the files rather than asked of
 * Intl, whose first use costs some 20 ms, which every run process would pay at its start.
 */
export function hostTimeZone(env: Record<string, string | undefined>): string | null {
  const fromEnv = env.TZ?.replace(/^:/, '');
  const zone =
    fromEnv === undefined
      ? systemTimeZone()
      : fromEnv === '' || isUtc(fromEnv)
        ? null
        : // A TZ that names no zone (a POSIX rule such as `CET-1CEST`) leaves the system's zone in charge.
          (knownZone(zoneOfPath(fromEnv) ?? fromEnv) ?? systemTimeZone());
  return zone && !isUtc(zone) ? zone : null;
}

const ZONEINFO = '/usr/share/zoneinfo';

/** `Europe/Paris` of `/usr/share/zoneinfo/Europe/Paris` (or of its `posix/` or `right/` copy); else null. */
function zoneOfPath(file: string): string | null {
  return /zoneinfo\/(?:posix\/|right\/)?(.+)$/.exec(file)?.[1] ?? null;
}

function systemTimeZone(): string | null {
  try {
    const zone = zoneOfPath(readlinkSync('/etc/localtime'));
    if (zone && knownZone(zone)) return zone;
  } catch {
    /* not a link (a copy of a zone file) or absent: /etc/timezone, then Intl */
  }
  try {
    const named = readFileSync('/etc/timezone', 'utf8').trim();
    if (knownZone(named)) return named;
  } catch {
    /* absent */
  }
  return new Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** `name` when it is a zone: a file of the system's zone database, else one Intl knows; else null. */
function knownZone(name: string): string | null {
  if (isUtc(name)) return name;
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name)) return null;
  return existsSync(path.join(ZONEINFO, name)) || isKnownTimeZone(name) ? name : null;
}

/** The names of UTC itself (not of zones that are only at offset 0 part of the year, such as Europe/London). */
function isUtc(zone: string): boolean {
  return /^(Etc\/)?(UTC|UCT|Universal|Zulu|Greenwich|GMT([+-]?0)?)$/.test(zone);
}

const AUTH_KEYS = ['auth.basic.username', 'auth.basic.password', 'auth.token'] as const;

/**
 * One protection mode or none. Unlike other settings, an empty auth variable is an error rather than "unset":
 * someone who exported DAGU_AUTH_TOKEN= meant to protect the server, not to leave it open.
 */
function compileAuth(
  v: SettingReader,
  raw: Map<string, Raw>,
  env: NodeJS.ProcessEnv,
  unused: string[],
): AuthConfig {
  for (const key of AUTH_KEYS) {
    const s = SETTINGS.find((setting) => setting.key === key)!;
    if (env[s.env] === '' && !raw.has(key))
      throw new ConfigError(`${s.env} (${key}): "" must be a non-empty string`);
  }
  const username = v('auth.basic.username');
  const password = v('auth.basic.password');
  let token = v('auth.token');
  // Dagu 1.x served basic auth to the console and a token to the API side by side; here one mode protects
  // both, so a token given under Dagu's names alone gives way to basic auth (and is named in the warning).
  const daguToken = raw.get('auth.token')?.dagu;
  if (username !== null && token !== null && daguToken !== undefined) {
    unused.push(`${daguToken} (basic auth protects the API here)`);
    token = null;
  }
  if ((username === null) !== (password === null)) {
    const missing = username === null ? 'auth.basic.username' : 'auth.basic.password';
    throw new ConfigError(`${missing} must be set too: basic auth needs both a username and a password`);
  }
  if (username?.includes(':')) {
    // Basic auth sends `user:password` and splits at the first colon: such a user could never sign in.
    throw new ConfigError(`auth.basic.username: ${JSON.stringify(username)} must not contain ":"`);
  }
  if (username !== null && token !== null) {
    throw new ConfigError('set either auth.basic or auth.token, not both');
  }
  if (username !== null && password !== null) return { mode: 'basic', username, password };
  if (token !== null) return { mode: 'token', token };
  return { mode: 'none' };
}

/** The coordinator's fields checked together: the TLS pair and the URL (derived unless set). */
function compileCoordinator(
  v: SettingReader,
  raw: Map<string, Raw>,
  advertise: string | null,
): Pick<Config['coordinator'], 'url' | 'tls'> {
  const cert = v('coordinator.tls.cert_file');
  const key = v('coordinator.tls.key_file');
  if ((cert === null) !== (key === null)) {
    const missing = cert === null ? 'coordinator.tls.cert_file' : 'coordinator.tls.key_file';
    throw new ConfigError(`${missing} must be set too: TLS needs both a certificate and its key`);
  }
  const host = v('coordinator.host');
  const port = v('coordinator.port');
  const url =
    v('coordinator.url') ??
    `${cert ? 'https' : 'http'}://${advertise ?? (host === '0.0.0.0' ? '127.0.0.1' : host)}:${port}`;
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
  } catch {
    const origin = raw.get('coordinator.url')?.origin ?? 'coordinator.url';
    throw new ConfigError(`${origin}: ${JSON.stringify(url)} is not an http:// or https:// URL`);
  }
  return {
    url: url.replace(/\/+$/, ''),
    tls: { cert_file: cert, key_file: key, ca_file: v('coordinator.tls.ca_file') },
  };
}

const MAX_LABEL_VALUE = 200;
const MAX_LABELS = 64;

/** `zone=b,gpu=true` as a map; a pair without `=` or with an empty key is a configuration error. */
export function parseLabelsSetting(text: string | null, origin: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (text === null) return out;
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')) {
    const eq = part.indexOf('=');
    const k = eq < 0 ? '' : part.slice(0, eq).trim();
    if (eq < 0 || !/^[A-Za-z0-9_./-]{1,63}$/.test(k))
      throw new ConfigError(
        `${origin}: ${JSON.stringify(part)} is not a label (use key=value, keys of letters, digits, _ . / -)`,
      );
    const value = part.slice(eq + 1).trim();
    // The coordinator refuses heartbeats beyond these bounds: a worker started with them could never register.
    if (value.length > MAX_LABEL_VALUE)
      throw new ConfigError(
        `${origin}: the value of label ${JSON.stringify(k)} has ${value.length} characters (at most ${MAX_LABEL_VALUE})`,
      );
    out[k] = value;
  }
  if (Object.keys(out).length > MAX_LABELS)
    throw new ConfigError(`${origin}: ${Object.keys(out).length} labels (at most ${MAX_LABELS})`);
  return out;
}

/** What config.yaml holds: this product's keys, Dagu's keys that set the same settings, and the rest of Dagu's. */
interface ConfigFile {
  /** Values under this product's keys. */
  values: Map<string, unknown>;
  /** Values under Dagu's names, by the setting they set (used where `values` lacks the setting). */
  dagu: Map<string, { key: string; value: unknown }>;
  queues: QueueConfig[];
  /** Dagu keys (as written) without a meaning here, for the start-up warning. */
  unused: string[];
  /** Dagu's `auth.mode`. */
  authMode?: { key: string; value: unknown };
  debug?: { key: string; value: unknown };
  /** The host workers reach the coordinator at (Dagu's `coordinator.advertise`). */
  advertise: string | null;
}

const emptyFile = (): ConfigFile => ({
  values: new Map(),
  dagu: new Map(),
  queues: [],
  unused: [],
  advertise: null,
});

function readConfigFile(file: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return emptyFile();
    throw new ConfigError(`cannot read ${file}: ${(err as Error).message}`);
  }
  const { LineCounter, parseDocument } = loadYaml();
  const lines = new LineCounter();
  const doc = parseDocument(text, { uniqueKeys: true, lineCounter: lines, prettyErrors: false });
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    const pos = lines.linePos(e.pos[0]);
    const message = e.code === 'RESOURCE_EXHAUSTION' ? 'the document is nested too deeply' : e.message;
    throw new ConfigError(`${file}:${pos.line}:${pos.col}: invalid YAML: ${message}`);
  }
  let root: unknown;
  try {
    root = doc.toJS();
  } catch (err) {
    // The yaml library refuses aliases that would expand without bound ("billion laughs").
    throw new ConfigError(`${file}: invalid YAML: ${(err as Error).message}`);
  }
  if (root === null || root === undefined) return emptyFile();
  if (typeof root !== 'object' || Array.isArray(root))
    throw new ConfigError(`${file}: must be a mapping of keys`);

  const out = emptyFile();
  const special = new Map<string, { key: string; value: unknown }>();
  const known = new Set<string>([...SETTINGS.map((s) => s.key), ...STRUCTURED_KEYS]);
  const prefixes = new Set(
    [...known].flatMap((k) =>
      k
        .split('.')
        .slice(0, -1)
        .map((_, i, a) => a.slice(0, i + 1).join('.')),
    ),
  );
  const notMapping = (key: string, val: unknown, example: string | undefined) =>
    new ConfigError(
      `${file}: ${key} must be a mapping of keys${example ? ` (such as ${example})` : ''}, got ${JSON.stringify(val)}`,
    );
  const walk = (obj: Record<string, unknown>, prefix: string) => {
    for (const [k, val] of Object.entries(obj)) {
      const key = prefix ? `${prefix}.${k}` : k;
      const isMapping = val !== null && typeof val === 'object' && !Array.isArray(val);
      // Dagu 1.x wrote `auth.token` as a mapping (`value:`): that one is Dagu's, not this product's text key.
      if (known.has(key) && !(isMapping && isDaguSection(key))) {
        out.values.set(key, val);
        continue;
      }
      const dagu = daguKey(key);
      if (dagu && !prefixes.has(key)) {
        const use = dagu.use;
        if ('setting' in use) {
          if (!out.dagu.has(use.setting)) out.dagu.set(use.setting, { key, value: val });
        } else if ('special' in use) special.set(dagu.key, { key, value: val });
        else out.unused.push(key);
        continue;
      }
      if (!prefixes.has(key) && !isDaguSection(key))
        throw new ConfigError(`${file}: unknown key ${JSON.stringify(key)}`);
      // `scheduler:` with nothing under it is an empty section, as in YAML's own reading.
      if (val === null) continue;
      if (!isMapping)
        throw notMapping(
          key,
          val,
          [...known].find((n) => n.startsWith(`${key}.`)),
        );
      walk(val as Record<string, unknown>, key);
    }
  };
  walk(root as Record<string, unknown>, '');
  readDaguSpecials(out, special);
  if (out.values.get('worker.labels') !== undefined)
    out.values.set('worker.labels', labelsText(out.values.get('worker.labels')));
  const daguLabels = out.dagu.get('worker.labels');
  if (daguLabels) daguLabels.value = labelsText(daguLabels.value);
  const queues = out.values.get('queues.config') ?? out.dagu.get('queues.config')?.value;
  out.queues = compileQueues(queues, file);
  return out;
}

/** Worker labels as `key=value,...`: Dagu also writes them as a mapping. */
function labelsText(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(',');
}

/** Dagu keys read together with others (see DAGU_KEYS' `special`). */
function readDaguSpecials(out: ConfigFile, special: Map<string, { key: string; value: unknown }>): void {
  out.authMode = special.get('auth.mode');
  out.debug = special.get('debug');
  const zombie = special.get('scheduler.zombie_detection_interval');
  if (zombie) {
    // Dagu turns the check off with 0; here runs whose process died are always found.
    const off =
      zombie.value === 0 || (typeof zombie.value === 'string' && /^0+(\.0*)?[a-z]*$/i.test(zombie.value));
    if (off) out.unused.push(`${zombie.key} (0: the check cannot be turned off here)`);
    else if (!out.dagu.has('scheduler.zombie_check_interval'))
      out.dagu.set('scheduler.zombie_check_interval', zombie);
  }
  const advertise = special.get('coordinator.advertise');
  if (typeof advertise?.value === 'string' && advertise.value.trim() !== '')
    out.advertise = advertise.value.trim();
  const coordinators = special.get('worker.coordinators');
  if (coordinators) {
    const list = (
      Array.isArray(coordinators.value) ? coordinators.value : String(coordinators.value).split(',')
    )
      .map((c) => String(c).trim())
      .filter((c) => c !== '');
    if (list.length === 1 && !out.dagu.has('coordinator.url'))
      out.dagu.set('coordinator.url', {
        key: coordinators.key,
        value: /^https?:\/\//.test(list[0]) ? list[0] : `http://${list[0]}`,
      });
    else if (list.length > 1) out.unused.push(`${coordinators.key} (one coordinator URL here)`);
  }
}

/**
 * Dagu's `auth.mode`: `none` leaves the server open whatever credentials the file holds (as in Dagu), `basic`
 * uses them. Dagu's `builtin` mode (user accounts) does not exist here: the file's credentials, if any, still
 * protect the server, and the warning says so.
 */
function applyDaguAuthMode(file: ConfigFile, raw: Map<string, Raw>, configFile: string): void {
  if (!file.authMode) return;
  const mode = String(file.authMode.value).toLowerCase();
  const fromFile = (key: string) => raw.get(key)?.origin.endsWith(` in ${configFile}`) === true;
  if (mode === 'none') {
    for (const key of AUTH_KEYS)
      if (fromFile(key)) {
        file.unused.push(`${raw.get(key)!.dagu ?? key} (auth.mode is none)`);
        raw.delete(key);
      }
  } else if (mode === 'builtin') {
    const open = !AUTH_KEYS.some((key) => raw.has(key));
    file.unused.push(
      `${file.authMode.key}: builtin (no user accounts here${open ? '; the server is open: set auth.basic or auth.token' : ''})`,
    );
  } else if (mode !== 'basic') {
    file.unused.push(`${file.authMode.key}: ${JSON.stringify(file.authMode.value)}`);
  }
}

function compileQueues(value: unknown, file: string): QueueConfig[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value))
    throw new ConfigError(`${file}: queues.config must be a list of {name, max_concurrency}`);
  const seen = new Set<string>();
  return value.map((q, i) => {
    const where = `${file}: queues.config[${i}]`;
    if (q === null || typeof q !== 'object' || Array.isArray(q))
      throw new ConfigError(`${where} must be a mapping`);
    // Dagu spells the limit max_concurrency, maxConcurrency, or (deprecated) max_active_runs / maxActiveRuns.
    let name: unknown;
    let mc: unknown;
    let legacy: unknown;
    for (const [k, val] of Object.entries(q as Record<string, unknown>)) {
      const folded = foldKey(k);
      if (k === 'name' || folded === 'name') name = val;
      else if (k === 'max_concurrency') mc = val;
      else if (folded === 'maxconcurrency') mc ??= val;
      else if (folded === 'maxactiveruns') legacy = val;
      else throw new ConfigError(`${where}: unknown key ${JSON.stringify(k)}`);
    }
    if (typeof name !== 'string' || !isValidDagName(name))
      throw new ConfigError(`${where}.name: ${JSON.stringify(name)} is not a valid queue name`);
    if (seen.has(name))
      throw new ConfigError(`${where}.name: queue ${JSON.stringify(name)} is defined twice`);
    seen.add(name);
    mc ??= legacy ?? 1;
    if (typeof mc !== 'number' || !Number.isInteger(mc) || mc < 1)
      throw new ConfigError(
        `${where}.max_concurrency: ${JSON.stringify(mc)} must be a whole number of at least 1`,
      );
    return { name, max_concurrency: mc };
  });
}

/** `DAGU_*` variables dagu reads that are not settings (bin/dagu sets the last two). */
const OTHER_VARIABLES = ['DAGU_HOME', 'DAGU_CONFIG', 'DAGU_DEBUG', 'DAGU_EXECUTABLE', 'DAGU_PROJECT_ROOT'];

/**
 * A `DAGU_*` variable one or two letters away from a setting's is almost surely a typo, which would otherwise
 * leave the setting at its default without a word (a 30s lock threshold where 3s was meant). Other unknown
 * `DAGU_*` names are left alone: tools and tests around dagu use the prefix too.
 */
function refuseMisspelledVariables(env: NodeJS.ProcessEnv): void {
  const known = SETTINGS.flatMap((s) => [s.env, ...(s.envAliases ?? [])]);
  for (const name of Object.keys(env)) {
    if (!name.startsWith('DAGU_') || known.includes(name) || OTHER_VARIABLES.includes(name)) continue;
    // One edit on a short name already makes another word (DAGU_HOME, DAGU_HOST).
    const near = known
      .map((k) => ({ k, d: editDistance(k, name) }))
      .filter(({ k, d }) => d <= (k.length < 14 ? 1 : 2))
      .sort((a, b) => a.d - b.d)[0]?.k;
    if (near) throw new ConfigError(`${name} is not a setting (did you mean ${near}?)`);
  }
}

/** The longest duration setting: timers of Node fire at once beyond 2^31-1 ms (about 24.8 days). */
const MAX_DURATION_MS = 24 * DAY;

const ROWS = new Map(SETTINGS.map((s) => [s.key, s]));

/** The setting's value, checked against its row: of the type `SettingValue` reads off the same row. */
function settingValue<K extends SettingKey>(key: K, valueOf: (s: Setting) => CompiledValue): SettingValue<K> {
  const row = ROWS.get(key)!;
  // The one place the compiler takes our word: compile() returns, for each kind, what KindValue names.
  return valueOf(row) as SettingValue<K>;
}

/** What compile() returns for some setting; `SettingValue` says which for which. */
type CompiledValue = number | boolean | string | string[] | null;

function compile(s: Setting, raw: Raw | undefined): CompiledValue {
  // A key written with no value (`port:` in YAML) is unset, as an empty environment variable is.
  const value = raw === undefined || raw.value === null ? s.default : raw.value;
  const origin = raw?.origin ?? s.key;
  const shown = JSON.stringify(typeof value === 'string' ? value : String(value));
  if (value === null) return null;
  switch (s.kind) {
    case 'duration': {
      if (typeof value !== 'string')
        throw new ConfigError(`${origin}: ${shown} must be a duration string such as "30s" or "2m"`);
      const d = parseDuration(value);
      if (!d.ok) throw new ConfigError(`${origin}: ${shown} is not a duration (use e.g. 30s, 2m, 1h30m)`);
      if (d.ms < 0) throw new ConfigError(`${origin}: ${shown} is negative`);
      if (d.ms === 0 && !s.allowZero) throw new ConfigError(`${origin}: ${shown} must be greater than 0s`);
      // Timers take whole milliseconds below 2^31; a longer delay fires at once, a shorter one spins.
      if (d.ms > 0 && d.ms < MILLISECOND)
        throw new ConfigError(`${origin}: ${shown} is below 1ms, the smallest interval timers keep`);
      if (d.ms > MAX_DURATION_MS)
        throw new ConfigError(`${origin}: ${shown} is too long (at most ${formatDuration(MAX_DURATION_MS)})`);
      return d.ms;
    }
    case 'port': {
      const n = typeof value === 'number' ? value : /^\d+$/.test(String(value)) ? Number(value) : NaN;
      const min = s.portZeroDisables ? 0 : 1;
      if (!Number.isInteger(n) || n < min || n > 65535)
        throw new ConfigError(
          `${origin}: ${shown} is not a valid port (use ${min} to 65535${s.portZeroDisables ? '; 0 disables it' : ''})`,
        );
      return n;
    }
    case 'int': {
      const n = typeof value === 'number' ? value : /^-?\d+$/.test(String(value)) ? Number(value) : NaN;
      if (!Number.isInteger(n)) throw new ConfigError(`${origin}: ${shown} must be a whole number`);
      if (s.min !== undefined && n < s.min)
        throw new ConfigError(`${origin}: ${shown} must be at least ${s.min}`);
      if (s.max !== undefined && n > s.max)
        throw new ConfigError(`${origin}: ${shown} must be at most ${s.max}`);
      return n;
    }
    case 'bool': {
      if (typeof value === 'boolean') return value;
      const t = String(value).toLowerCase();
      if (['true', '1', 'yes'].includes(t)) return true;
      if (['false', '0', 'no'].includes(t)) return false;
      throw new ConfigError(`${origin}: ${shown} must be true or false`);
    }
    case 'enum': {
      if (typeof value !== 'string' || !s.values.includes(value))
        throw new ConfigError(`${origin}: ${shown} must be one of ${s.values.join(', ')}`);
      return value;
    }
    case 'list': {
      // A YAML list in config.yaml, or comma-separated text (how an environment variable spells a list).
      const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : null;
      if (items === null || !items.every((i): i is string => typeof i === 'string'))
        throw new ConfigError(`${origin}: ${shown} must be a list of names or comma-separated text`);
      const names = items.map((i) => i.trim()).filter((i) => i !== '');
      const bad = names.find((n) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(n));
      if (bad !== undefined)
        throw new ConfigError(`${origin}: ${JSON.stringify(bad)} is not an environment variable name`);
      return names;
    }
    case 'string': {
      if (typeof value !== 'string' || value === '')
        throw new ConfigError(`${origin}: ${shown} must be a non-empty string`);
      if (s.pattern && !s.pattern.regex.test(value))
        throw new ConfigError(`${origin}: ${shown} is not valid (${s.pattern.what})`);
      return value;
    }
  }
}
