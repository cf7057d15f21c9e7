// The PostgreSQL schema, as numbered migrations the product applies itself (`applyMigrations`). A migration
// is never edited once released: its checksum is recorded, and a changed one is refused at start. A
// `breaking` migration is one older code cannot run against; `checkSchema` refuses such a newer database.
// Every name is created inside the configured schema (storage.postgres.schema), which the SQL writes as
// `{schema}`.

export interface Migration {
  version: number;
  name: string;
  breaking: boolean;
  sql: string;
}

/** Every migration, by version (kept sorted here whatever order they are written in below). */
export const MIGRATIONS: readonly Migration[] = sortedByVersion([
  {
    version: 1,
    name: 'scheduler lease and failover history',
    breaking: true,
    // Two rows for the lease (DESIGN §5 on a database): the lease row changes only when the lock changes
    // hands, the heartbeat row at every renewal. A fenced write holds FOR SHARE on the lease row; a takeover
    // starts with FOR UPDATE on it, so it waits for every fenced write in flight, and renewals (which update
    // the other row) never queue behind the holder's own fenced writes.
    sql: `
create table {schema}.scheduler_lease (
  name        text primary key,
  holder      text not null,
  instance_id text not null,
  host        text not null,
  pid         integer not null,
  epoch       bigint not null,
  released    boolean not null,
  acquired_at text not null
);
create table {schema}.scheduler_heartbeat (
  name       text primary key references {schema}.scheduler_lease (name),
  counter    bigint not null,
  renewed_at text not null
);
create table {schema}.failover_events (
  id          bigserial primary key,
  at          timestamptz(3) not null default clock_timestamp(),
  epoch       bigint not null,
  from_holder text,
  to_holder   text not null,
  reason      text not null
);
`,
  },
  {
    version: 2,
    name: 'queues and the event log',
    breaking: true,
    // IDs compare byte by byte (collation "C", whatever the database's default), as the file stores'
    // names do. The event log's IDs are made inside the append, under the row lock of event_clock: appends commit in
    // ID order, so a reader that tails by "ID greater than the last one seen" never skips an event that
    // committed late (with IDs made by the clients, a smaller ID could commit after a larger one was read).
    sql: `
create table {schema}.queue_items (
  item_id     text collate "C" primary key,
  queue       text collate "C" not null,
  run_id      text not null,
  dag_name    text not null,
  enqueued_at text not null
);
create index queue_items_by_queue on {schema}.queue_items (queue, item_id);
create index queue_items_by_run on {schema}.queue_items (run_id);
create table {schema}.event_clock (
  id      integer primary key check (id = 1),
  last_ms bigint not null,
  counter integer not null
);
insert into {schema}.event_clock values (1, 0, 0);
create table {schema}.events (
  id   text collate "C" primary key,
  type text not null,
  time text not null,
  data json not null
);
create index events_by_type on {schema}.events (type, id);
`,
  },
  {
    version: 3,
    name: 'workers, coordinators, cancel requests and suspend flags',
    breaking: true,
    // Worker heartbeats rewrite their row every few seconds: a lower fillfactor keeps those updates HOT.
    sql: `
create table {schema}.workers (
  worker_id text primary key,
  doc       json not null
) with (fillfactor = 70);
create table {schema}.coordinators (
  coordinator_id text primary key,
  doc            json not null
) with (fillfactor = 70);
create table {schema}.cancel_requests (
  run_id          text primary key,
  requested_at_ms bigint not null
);
create table {schema}.suspend_flags (
  dag          text primary key,
  suspended_at text,
  by_whom      text
);
`,
  },
  {
    version: 4,
    name: 'dispatch tasks and claims',
    breaking: true,
    // One row per task, pending or claimed. A claim is one UPDATE of the oldest matching pending row taken
    // FOR UPDATE SKIP LOCKED, so of many coordinators and pollers exactly one gets each task and none waits
    // behind another's claim. The task's fixed part is kept as a document; what changes is in columns.
    sql: `
create table {schema}.dispatch_tasks (
  task_id        text collate "C" primary key,
  run_id         text not null,
  state          text not null check (state in ('pending', 'claimed')),
  selector       jsonb not null,
  enqueued_at_ms bigint not null,
  hold_until_ms  bigint,
  claim_worker   text,
  claim_token    text,
  claimed_at_ms  bigint,
  doc            json not null
);
create index dispatch_pending on {schema}.dispatch_tasks (enqueued_at_ms, task_id) where state = 'pending';
create index dispatch_by_run on {schema}.dispatch_tasks (run_id);
`,
  },
  {
    version: 5,
    name: 'runs, attempts and active runs',
    breaking: true,
    // A run row per run (its primary key is the at-most-once rule: a slot's run ID is inserted once) with
    // the latest attempt's list fields in columns, so the run list is an index range scan that never reads a
    // status document; one row per attempt with its full status, claim, heartbeat and unwritten-status note.
    sql: `
create table {schema}.runs (
  run_id         text collate "C" primary key,
  dag_name       text collate "C" not null,
  list_key       text collate "C" not null,
  created_ms     bigint not null,
  latest_attempt integer not null,
  status         text not null,
  trigger_type   text,
  summary        json not null
);
create index runs_list on {schema}.runs (list_key desc);
create index runs_list_by_dag on {schema}.runs (dag_name, list_key desc);
create index runs_list_by_status on {schema}.runs (status, list_key desc);
create table {schema}.run_attempts (
  run_id       text collate "C" not null references {schema}.runs (run_id) on delete cascade,
  attempt      integer not null,
  status       json not null,
  claimed_by   text,
  heartbeat_ms bigint,
  unwritten    json,
  primary key (run_id, attempt)
);
create table {schema}.active_runs (
  run_id   text collate "C" primary key,
  dag_name text not null,
  queue    text not null
);
`,
  },
  {
    version: 8,
    name: 'installation identity, scheduler instances and tick state',
    breaking: true,
    // The installation ID names this database's slots in their run IDs (the file backend uses the data
    // directory's path, which differs between hosts that share only a database). Instance records and the
    // tick state are what data/scheduler/ holds on files.
    sql: `
create table {schema}.installation (
  id              integer primary key check (id = 1),
  installation_id text not null
);
insert into {schema}.installation
  values (1, md5(random()::text || clock_timestamp()::text || pg_backend_pid()::text));
create table {schema}.scheduler_instances (
  instance_id text primary key,
  doc         json not null
) with (fillfactor = 70);
create table {schema}.scheduler_state (
  id    integer primary key check (id = 1),
  state json not null
);
`,
  },
  {
    version: 7,
    name: 'DAG definitions',
    breaking: true,
    // One row per DAG; the version is the SHA-256 of the text, as the file backend computes it. The checks
    // keep every writer honest: the version is the text's, and names are DAG names (core/names.ts), since
    // every host writes `<file_name>` into its mirror directory. dag_revision counts writes: every write
    // bumps it in its own transaction, so a host's mirror polls one row and lists the DAGs only when it
    // moved.
    sql: `
create table {schema}.dags (
  name       text collate "C" primary key
             check (name ~ '^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}$' and strpos(name, '..') = 0),
  yaml       text not null,
  version    text not null
             check (version = 'sha256:' || encode(sha256(convert_to(yaml, 'UTF8')), 'hex')),
  file_name  text not null check (file_name in (name || '.yaml', name || '.yml')),
  updated_at timestamptz(3) not null default clock_timestamp(),
  updated_by text not null
);
create table {schema}.dag_revision (
  id       integer primary key check (id = 1),
  revision bigint not null
);
insert into {schema}.dag_revision values (1, 0);
`,
  },
  {
    version: 9,
    name: 'state entries',
    breaking: false,
    // Dagu's state store (the state.* actions): one row per entry, keyed by scope, namespace and key, which
    // compare byte by byte (collation "C") as the file store's names do, so lists come in the same order. The
    // value is the compact JSON text as written (not jsonb, which would reorder an object's keys); a write
    // changes the version in the same statement that compares it.
    sql: `
create table {schema}.state_entries (
  scope      text collate "C" not null check (scope in ('dag', 'root_dag', 'global', 'custom')),
  namespace  text collate "C" not null,
  key        text collate "C" not null,
  value      text not null check (octet_length(value) <= 1048576),
  version    bigint not null check (version >= 1),
  hash       text not null,
  created_at text not null,
  updated_at text not null,
  updated_by jsonb,
  primary key (scope, namespace, key)
);
`,
  },
  {
    version: 10,
    name: 'run artifacts',
    breaking: false,
    // A run's artifacts (the files its steps left in DAG_RUN_ARTIFACTS_DIR), copied here by the run process
    // after each step and before its final status, since a host's disk is no durable place on this backend.
    // One row per file; the size is capped per file (the store checks it first, with a clearer message).
    // They go with their run by the cascade of the run store's delete, as its logs do.
    sql: `
create table {schema}.run_artifacts (
  run_id text collate "C" not null references {schema}.runs (run_id) on delete cascade,
  path   text collate "C" not null,
  size   bigint not null,
  data   bytea not null check (octet_length(data) <= 16777216),
  primary key (run_id, path)
);
`,
  },
  {
    version: 6,
    name: 'run logs in chunks',
    breaking: false,
    // A run's logs (each step's stdout and stderr, the run's own log) as the run process ships them: one row
    // per log file with its size and newline count, so the console's listing and line counts never read
    // log bytes, and the bytes in chunks of up to a few hundred KiB keyed by the byte offset they start at.
    // The offset is the chunk's sequence number that also answers a byte range with an index range scan and
    // makes a retried append harmless; a chunk's line offset (newlines before it) finds any line with one
    // chunk's read. Chunks are bytea, compressed by TOAST. Not partitioned by day, unlike the research note's
    // sketch: history retention is per DAG (a number of runs, or days), so a run's logs go with its run, by
    // the foreign keys' cascade in the run store's delete, never by age alone.
    sql: `
create table {schema}.run_log_files (
  run_id       text collate "C" not null,
  attempt      integer not null,
  name         text collate "C" not null,
  size         bigint not null,
  newlines     bigint not null,
  ends_newline boolean not null,
  primary key (run_id, attempt, name),
  foreign key (run_id, attempt) references {schema}.run_attempts (run_id, attempt) on delete cascade
) with (fillfactor = 70);
create table {schema}.run_log_chunks (
  run_id      text collate "C" not null,
  attempt     integer not null,
  name        text collate "C" not null,
  byte_offset bigint not null,
  line_offset bigint not null,
  length      integer not null check (length > 0),
  data        bytea not null,
  primary key (run_id, attempt, name, byte_offset),
  foreign key (run_id, attempt, name) references {schema}.run_log_files (run_id, attempt, name)
    on delete cascade
);
`,
  },
]);

function sortedByVersion(list: Migration[]): Migration[] {
  return [...list].sort((a, b) => a.version - b.version);
}
