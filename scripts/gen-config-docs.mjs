// Generates docs/configuration.md from the settings table (server/config/settings.ts), so that the
// configuration reference lists exactly the keys, variables and defaults the loader knows.
// `npm run gen:docs` writes it; server/docs/configDocs.test.ts fails while the checked-in page differs.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SETTINGS_FILE = 'server/config/settings.ts';
export const CONFIG_DOC_FILE = 'docs/configuration.md';

/** Section of the page for each top-level key; a key with another prefix gets a section of its own. */
const SECTIONS = [
  ['Web server', ['host', 'port', 'server']],
  ['Access control', ['auth']],
  ['Directories', ['paths', 'skip_examples']],
  ['Logging', ['log']],
  ['Scheduler', ['scheduler', 'tz']],
  ['Runs', ['run']],
  ['Queues', ['queues']],
  ['Coordinator', ['default_execution_mode', 'coordinator']],
  ['Worker', ['worker']],
  ['Step environment', ['env_passthrough', 'env_passthrough_prefixes', 'default_shell']],
];

const INTRO = `# Configuration reference

<!-- GENERATED from ${SETTINGS_FILE} by scripts/gen-config-docs.mjs: do not edit by hand. Run
     \`npm run gen:docs\` after changing a setting; a unit test fails while this page is stale. -->

Every setting has a key in \`config.yaml\` and an environment variable. Where both are given the variable
wins, and a command-line flag wins over both. The file is \`DAGU_HOME/config.yaml\` (\`DAGU_HOME\` defaults to
\`~/.dagu\`); \`DAGU_CONFIG\` points at another file. Keys are nested in the file: \`scheduler.lock_retry_interval\`
is written

\`\`\`yaml
scheduler:
  lock_retry_interval: 5s
\`\`\`

Rules that hold for every setting:

- **Durations** are written the way Go writes them: a number and a unit, summed (\`500ms\`, \`30s\`, \`2m\`,
  \`1h30m\`; \`0s\` where zero is allowed). Messages, the console and the API print them the same way, always with
  the seconds (\`2m\` is printed \`2m0s\`).
- **Booleans** are \`true\` or \`false\`; \`1\`/\`0\` and \`yes\`/\`no\` are accepted too.
- **An empty environment variable** counts as unset, except the \`auth.*\` ones, where it is an error (an empty
  \`DAGU_AUTH_TOKEN\` more likely means a secret that failed to load than an open server).
- **An invalid value** stops the command before it does anything, with one line that names the key, where the
  value came from (the variable, the flag or the file) and what is allowed, and exit status 2. An unknown key in
  \`config.yaml\` is an error too.
- Two settings are checked together: \`scheduler.lock_retry_interval\` must be below
  \`scheduler.lock_stale_threshold\`, and \`run.heartbeat_stale_threshold\` must be at least twice
  \`run.heartbeat_interval\`. \`auth.basic.username\` and \`auth.basic.password\` go together and exclude
  \`auth.token\`; \`coordinator.tls.cert_file\` and \`coordinator.tls.key_file\` go together.

Command-line flags that set a value: \`--home\` (every command; \`DAGU_HOME\`), \`--host\` and \`--port\`
(\`server\`, \`start-all\`), \`--scheduler-port\` (\`scheduler\`, \`start-all\`), \`--coordinator-host\` and
\`--coordinator-port\` (\`coordinator\`), and \`--coordinator\`, \`--token\`, \`--labels\`, \`--max-active-runs\` and
\`--id\` (\`worker\`). \`dagu <command> --help\` lists them.

Other environment variables the program reads:

| Variable | Meaning |
| --- | --- |
| \`DAGU_HOME\` | The home directory: \`config.yaml\`, \`dags/\`, \`data/\` and \`logs/\` (default \`~/.dagu\`) |
| \`DAGU_CONFIG\` | Another configuration file than \`DAGU_HOME/config.yaml\` |
| \`DAGU_DEBUG\` | Set to anything: an unexpected error prints its stack trace after the one-line message |
| \`UV_THREADPOOL_SIZE\` | \`bin/dagu\` sets it to 16 for the long-running commands (\`scheduler\`, \`server\`, \`start-all\`, \`coordinator\`, \`worker\`) unless it is set, so that file calls stuck on a hung mount do not hold up the rest; short commands keep libuv's 4, and make their file calls synchronously while they run no step (a run between its steps waits on nothing else) |
`;

/** The text docs/configuration.md should have for this settings table. */
export function renderConfigDocs({ settings, structuredKeys, formatDuration, parseDuration, daguKeys = {} }) {
  const groups = new Map(SECTIONS.map(([title]) => [title, []]));
  for (const s of settings) {
    const top = s.key.split('.')[0];
    const section = SECTIONS.find(([, prefixes]) => prefixes.includes(top));
    const title = section ? section[0] : top;
    if (!groups.has(title)) groups.set(title, []);
    groups.get(title).push(s);
  }
  const out = [INTRO];
  for (const [title, list] of groups) {
    if (list.length === 0) continue;
    out.push(`## ${title}\n`);
    out.push('| Key | Environment variable | Type | Default | Meaning |');
    out.push('| --- | --- | --- | --- | --- |');
    for (const s of list) {
      const env = [s.env, ...(s.envAliases ?? [])].map(code).join(', also ');
      const doc = s.doc.endsWith('.') ? s.doc : `${s.doc}.`;
      out.push(
        `| ${code(s.key)} | ${env} | ${kindText(s)} | ${defaultText(s, formatDuration, parseDuration)} | ${escapeCell(doc)} |`,
      );
    }
    if (title === 'Queues') out.push('', queuesNote(structuredKeys));
    if (title === 'Step environment') out.push('', STEP_ENV_NOTE);
    out.push('');
  }
  if (Object.keys(daguKeys).length > 0) out.push(daguSection(daguKeys));
  return `${out.join('\n').trimEnd()}\n`;
}

const DAGU_SPECIAL = {
  debug: '`true`: `log.level` `debug`',
  'auth.mode':
    "`none`: the file's credentials are not used; `basic`: they are; `builtin`: warned (no user accounts here; the file's credentials, if any, still protect the server)",
  is_basic_auth: 'no effect: the credentials alone turn basic auth on',
  is_auth_token: 'no effect: the token alone turns token auth on',
  'scheduler.zombie_detection_interval':
    '`scheduler.zombie_check_interval`; `0` (off) is warned, the check stays on',
  'coordinator.advertise': 'the host of the default `coordinator.url`',
  'worker.coordinators': 'one address: `coordinator.url`; several: warned',
};

function daguSection(daguKeys) {
  const rows = Object.entries(daguKeys).map(([key, use]) => {
    const here = use.setting
      ? code(use.setting)
      : use.special
        ? DAGU_SPECIAL[key]
        : 'not used: named in the warning';
    return `| ${code(key)} | ${here} |`;
  });
  return `## A Dagu home's config.yaml

A \`config.yaml\` written for Dagu (1.30.2 or 2.x) is read as it is. Dagu's keys are matched the way Dagu reads
them, ignoring case and \`_\`, so 1.30.2's \`dagsDir\` and \`lockStaleThreshold\` are 2.x's \`dags_dir\` and
\`lock_stale_threshold\`. A Dagu key with a meaning here sets the setting in the right column; where this
product's own key is set too, **this product's key wins** (Dagu itself lets its legacy top-level \`dags_dir\`
win over \`paths.dags_dir\`). The Dagu keys without a meaning here are named in one warning when a command
starts (\`config.yaml: Dagu settings not used by this product: navbarColor, permissions, ...\`) and do not stop
it; a key that neither product has is still an error. In \`queues.config\`, Dagu's \`max_active_runs\`,
\`maxActiveRuns\` and \`maxConcurrency\` are read as \`max_concurrency\`; \`worker.labels\` may be a mapping.

Dagu's base config, \`base.yaml\` (\`paths.base_config\`), is merged under every DAG as Dagu merges it: a key
the DAG sets wins, a key only the base sets is inherited; \`env\` and \`dotenv\` are appended, the base's
entries first; mappings (\`handler_on\` handler by handler, \`smtp\`, \`defaults\`, ...) are merged key by key,
except \`mail_on\`, \`retry_policy\` and \`webhook\`, which the DAG replaces whole; the base's \`name\` and
\`steps\` are not inherited. \`default_shell\` is the base's \`shell\` where it sets none, and \`tz\` the zone of
each schedule without \`CRON_TZ=\`. Dagu's run history, queue items and other files under \`data/\` are left as
they are and are not read as this product's. Where both write in the same directory, the names differ: this
product's scheduler state is \`data/scheduler/tick-state.json\` (Dagu 2.x's is \`state.json\` beside it), and its
dispatch tasks and worker records live in \`data/cluster/\` (Dagu 2.x's in \`data/distributed/\`).

| Dagu key | Here |
| --- | --- |
${rows.join('\n')}
`;
}

const STEP_ENV_NOTE = `Step processes do not inherit the whole environment of the process that runs the DAG, as in Dagu 2.x.
They get \`PATH\`, \`HOME\`, \`USER\`, \`SHELL\`, \`TMPDIR\`, \`TERM\`, \`EDITOR\`, \`VISUAL\`, \`LANG\`, \`LC_ALL\`,
\`LC_CTYPE\`, \`TZ\`, \`LD_LIBRARY_PATH\`, \`XDG_CONFIG_HOME\`, \`XDG_DATA_HOME\`, \`XDG_CACHE_HOME\`, \`XDG_STATE_HOME\`,
\`DOCKER_HOST\`, \`DOCKER_TLS_VERIFY\`, \`DOCKER_CERT_PATH\`, \`DOCKER_API_VERSION\`, every variable whose name starts
with \`DAGU_\`, \`DAG_\`, \`LC_\` or \`KUBERNETES_\`, and those these two settings add. A DAG passes any other
variable on by naming it in its \`env\` (\`TOKEN: \${TOKEN}\`), where the host environment is read.

\`\`\`yaml
env_passthrough: [AWS_PROFILE, HTTPS_PROXY]
env_passthrough_prefixes: [ACME_]
\`\`\``;

function queuesNote(structuredKeys) {
  const keys = structuredKeys.map(code).join(', ');
  return `Settings with a structured value exist in \`config.yaml\` only, without a variable: ${keys}.
\`queues.config\` is a list of queues, each with a \`name\` (1 to 64 letters, digits, \`_\`, \`-\` or \`.\`) and a
\`max_concurrency\` (a whole number, at least 1; default 1). A DAG uses the queue named in its \`queue\` key, or
the queue named after the DAG. A queue that is not listed runs as many runs at once as the
\`max_active_runs\` of the DAG with the queue's name says (1 when no DAG has that name).

\`\`\`yaml
queues:
  enabled: true
  config:
    - name: batch
      max_concurrency: 4
\`\`\``;
}

function kindText(s) {
  switch (s.kind) {
    case 'duration':
      return s.allowZero ? 'duration, `0s` allowed' : 'duration, above `0s`';
    case 'port':
      return s.portZeroDisables ? 'port, `0` disables' : 'port (1 to 65535)';
    case 'bool':
      return 'boolean';
    case 'int':
      return s.min !== undefined ? `whole number, at least ${s.min}` : 'whole number';
    case 'enum':
      return `one of ${s.values.map(code).join(', ')}`;
    case 'list':
      return 'list of names (comma-separated in a variable)';
    default:
      return 'text';
  }
}

function defaultText(s, formatDuration, parseDuration) {
  if (s.default === null) return 'unset';
  if (s.kind === 'duration') {
    const parsed = parseDuration(String(s.default));
    const printed = parsed.ok ? formatDuration(parsed.ms) : String(s.default);
    return printed === s.default ? code(s.default) : `${code(s.default)} (printed ${code(printed)})`;
  }
  return code(String(s.default));
}

function code(text) {
  return `\`${String(text)}\``;
}

/** A table cell of plain text: `|` would end the cell and `<name>` would be read as an HTML tag. */
function escapeCell(text) {
  return text.replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Renders the page from the settings table as it is now. Needs TypeScript loading (tsx or vitest). */
export async function generateConfigDocs(root = ROOT) {
  const settings = await import(pathToFileURL(path.join(root, SETTINGS_FILE)).href);
  const duration = await import(pathToFileURL(path.join(root, 'server/core/duration.ts')).href);
  const dagu = await import(pathToFileURL(path.join(root, 'server/config/daguKeys.ts')).href);
  return renderConfigDocs({
    daguKeys: dagu.DAGU_KEYS,
    settings: settings.SETTINGS,
    structuredKeys: settings.STRUCTURED_KEYS,
    formatDuration: duration.formatDuration,
    parseDuration: duration.parseDuration,
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  writeFileSync(path.join(ROOT, CONFIG_DOC_FILE), await generateConfigDocs());
  console.log(`wrote ${CONFIG_DOC_FILE} from ${SETTINGS_FILE}`);
}
