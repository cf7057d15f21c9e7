// Entry point of `dagu`: parses the command line and hands each command to its own lazily loaded module,
// so that `dagu start` never loads Next.js or React.

import { Option, type Command } from 'commander';
import { restoreStashedEnv } from '../runner/runProcessEnv';
import { RUN_HOST_COMMAND } from '../runner/runHostCommand';
import { RUN_LANE_COMMAND } from '../runner/runLaneCommand';
import { VERSION } from './version';
import { exitQuietlyOnClosedPipe } from './closedPipe';
import { fail } from './exit';
import { lazy, program, runCommandLine } from './program';
import { defineValidate } from './validateCommandLine';

exitQuietlyOnClosedPipe();

program.addHelpText(
  'after',
  '\nExit codes: 0 success, 1 the run failed (or was aborted), 2 usage or configuration error.\n' +
    'status, stop, restart, retry and resume of a DAG or run that does not exist, and restart of a DAG\n' +
    'with no running run, exit 1 as in Dagu (which exits 1 on every error, usage errors too).\n' +
    "\nRuns are named by run ID (dagu status 20261130-011530-1a2b3c4d) or, in Dagu's form, by DAG and\n" +
    '--run-id (dagu status --run-id 20261130-011530-1a2b3c4d etl); a DAG alone means its latest run\n' +
    '(status), its running runs (stop, restart).',
);

const PARAMS_ARGUMENT =
  "parameters after '--': each word a value or NAME=value, or one JSON object/array " +
  '(e.g. dagu start etl -- 2026-01-31 MODE=full)';
const PARAMS_OPTION =
  'parameters as one text instead of after --: "NAME=value NAME2=\\"two words\\" value", or JSON';

const NAME_OPTION =
  "run the DAG under this name instead of its own (Dagu's option): the run is recorded, listed and " +
  'queued under it, and retry, restart and resume find the DAG file again';

const LABELS_OPTION =
  "labels for the run besides its DAG's, separated by commas: key or key=value (Dagu's option): kept on " +
  "the run's record, where dagu history --labels finds them";
const NO_REUSE_OPTION =
  "a build DAG's steps execute even where a committed output matches (Dagu's option); staging and commit still apply";
const TAGS_OPTION = 'deprecated alias of --labels (Dagu)';

const RUN_OR_DAG =
  'a run ID, or a DAG name or file (Dagu form). A word is a DAG when it is a .yaml/.yml path or --run-id is ' +
  'given; else a generated run ID (20261130-011530-1a2b3c4d, sched-...) is a run, then a DAG of that name, ' +
  'then a run with that ID';

/**
 * The commands, in the order help lists them. Only the command being run is defined (defining all of them
 * costs every `dagu start` a few milliseconds); help, a bare `dagu` and an unknown word get all of them.
 */
const COMMANDS: Record<string, (program: Command) => unknown> = {
  start: (program) =>
    program
      .command('start')
      .description('Run a DAG now, in the foreground, in this process')
      .argument('<dag>', 'DAG name (file stem in the DAGs directory) or path to a DAG file')
      .argument('[params...]', PARAMS_ARGUMENT)
      .option('-p, --params <text>', PARAMS_OPTION)
      .option('-N, --name <name>', NAME_OPTION)
      .option('-r, --run-id <id>', 'run ID to use (an existing queued run is taken over)')
      .option(
        '--from-run-id <id>',
        "a new run with the params of this earlier run of the DAG (Dagu's option; the DAG file as it is now runs)",
      )
      .addOption(
        new Option('--trigger-type <type>', 'why the run starts')
          .choices(['manual', 'scheduler', 'catchup', 'retry', 'subdag', 'queue'])
          .default('manual'),
      )
      .option('--schedule-time <time>', 'slot time of a scheduled run (RFC 3339)')
      .option(
        '--default-working-dir <dir>',
        "the working directory of a DAG that sets no working_dir (Dagu's option), instead of the run's work directory",
      )
      .option('--labels <list>', LABELS_OPTION)
      .option('--tags <list>', TAGS_OPTION)
      .option('--no-reuse', NO_REUSE_OPTION)
      .addOption(
        // Set by a call step for a local DAG, run from a temp copy: the file whose directory its paths are in.
        new Option('--local-dag-source <file>', 'the file a local DAG was written in').hideHelp(),
      )
      .option('-q, --quiet', 'print nothing but errors')
      .option('--detach', 'for a DAG that runs on workers: return once the run is handed over')
      .action(lazy(() => import('./commands/start'), 'startCommand')),

  enqueue: (program) =>
    program
      .command('enqueue')
      .description('Queue a run of a DAG; the active scheduler starts it when its queue has room')
      .argument('<dag>', 'DAG name or file')
      .argument('[params...]', PARAMS_ARGUMENT)
      .option('-p, --params <text>', PARAMS_OPTION)
      .option('-N, --name <name>', NAME_OPTION)
      .option('-r, --run-id <id>', 'run ID to use')
      .option('-u, --queue <name>', "this queue instead of the DAG's (Dagu)")
      .option(
        '--default-working-dir <dir>',
        "the working directory of a DAG that sets no working_dir (Dagu's option), kept for when the run starts",
      )
      .option('--labels <list>', LABELS_OPTION)
      .option('--tags <list>', TAGS_OPTION)
      .option('--no-reuse', NO_REUSE_OPTION)
      .action(lazy(() => import('./commands/queue'), 'enqueueCommand')),

  dequeue: (program) =>
    program
      .command('dequeue')
      .description('Remove a queued run from its queue (it ends aborted)')
      .argument(
        '<run-id|queue>',
        "a queued run's ID, or in Dagu's form a queue: with --dag-run that run of it, else its oldest run",
      )
      .option('-d, --dag-run <dag:run-id>', "Dagu's form: the run to remove from the queue given")
      .addHelpText(
        'after',
        '\nExamples:\n  dagu dequeue 20261130-011530-1a2b3c4d\n  dagu dequeue etl --dag-run etl:20261130-011530-1a2b3c4d\n  dagu dequeue etl',
      )
      .action(lazy(() => import('./commands/queue'), 'dequeueCommand')),

  stop: (program) =>
    program
      .command('stop')
      .description(
        'Stop a running run (SIGTERM to its steps) or remove a queued one; given a DAG, stop its running runs',
      )
      .argument('<run-id|dag>', RUN_OR_DAG)
      .option('-r, --run-id <id>', 'with a DAG: stop this run of it (Dagu form: dagu stop --run-id ID etl)')
      .addHelpText(
        'after',
        '\nExamples:\n  dagu stop 20261130-011530-1a2b3c4d\n  dagu stop etl\n  dagu stop --run-id 20261130-011530-1a2b3c4d etl',
      )
      .action(lazy(() => import('./commands/stop'), 'stopCommand')),

  'human-task': (program) => {
    const human = program
      .command('human-task')
      .description("Complete a human task (action: human.task) of a run that waits for it (Dagu's command)");
    human
      .command('complete')
      .description(
        'Give a waiting human task its input: the step succeeds, and once no task of the run is open the run resumes',
      )
      .argument('<dag>', 'the DAG name of the run (its root DAG)')
      .requiredOption('-r, --run-id <id>', 'the run that waits')
      .requiredOption('--step <id>', "the human task's step id")
      .option(
        '--input <key=value>',
        'one input property as text, coerced to its form type (repeat for more)',
        (value: string, previous: string[] = []) => [...previous, value],
      )
      .option('--inputs-json <object>', 'all input properties as one JSON object (typed as written)')
      .addHelpText(
        'after',
        '\nExamples:\n  dagu human-task complete --run-id 20261130-011530-1a2b3c4d --step approve release\n' +
          '  dagu human-task complete -r 20261130-011530-1a2b3c4d --step review --input environment=production release\n' +
          '  dagu human-task complete -r 20261130-011530-1a2b3c4d --step review --inputs-json \'{"replicas": 3}\' release',
      )
      .action(lazy(() => import('./commands/humanTask'), 'completeHumanTaskCommand'));
    return human;
  },

  approval: (program) => {
    const approval = program
      .command('approval')
      .description("Answer a step approval (a step's approval:) of a run that waits for it");
    const inputs = (value: string, previous: string[] = []) => [...previous, value];
    const common = (name: string, description: string) =>
      approval
        .command(name)
        .description(description)
        .argument('<dag>', 'the DAG name of the run')
        .requiredOption('-r, --run-id <id>', 'the run that waits')
        .requiredOption('--step <name>', 'the name of the step waiting for approval');
    common(
      'approve',
      'Approve the step: it succeeds with the inputs as its output variables; the run resumes once nothing waits',
    )
      .option('--input <key=value>', 'one input for the approval (repeat for more)', inputs)
      .addHelpText(
        'after',
        '\nExamples:\n  dagu approval approve --run-id 20261130-011530-1a2b3c4d --step review release\n' +
          '  dagu approval approve -r 20261130-011530-1a2b3c4d --step review --input TICKET=OPS-12 release',
      )
      .action(lazy(() => import('./commands/approval'), 'approveCommand'));
    common('reject', 'Reject the step: the step and the run end rejected')
      .option('--reason <text>', 'why it was rejected')
      .addHelpText(
        'after',
        "\nExample:\n  dagu approval reject -r 20261130-011530-1a2b3c4d --step review --reason 'not this week' release",
      )
      .action(lazy(() => import('./commands/approval'), 'rejectCommand'));
    common('push-back', 'Push the step back: it (or its rewind_to step) and what follows run again')
      .option(
        '--input <key=value>',
        'one input for the rerun, kept when approval.input names it (repeat for more)',
        inputs,
      )
      .addHelpText(
        'after',
        "\nExample:\n  dagu approval push-back -r 20261130-011530-1a2b3c4d --step review --input FEEDBACK='add tests' release",
      )
      .action(lazy(() => import('./commands/approval'), 'pushBackCommand'));
    return approval;
  },

  status: (program) =>
    program
      .command('status')
      .description("Show the status of a run, or of a DAG's latest run")
      .argument('<run-id|dag>', RUN_OR_DAG)
      .option('-r, --run-id <id>', 'with a DAG: show this run of it (Dagu form: dagu status --run-id ID etl)')
      .option(
        '-s, --sub-run-id <id>',
        'with --run-id: show the run a call step started under that run, at any depth (Dagu 2.x)',
      )
      .option('--json', 'print the status record as JSON')
      .addHelpText(
        'after',
        '\nExamples:\n  dagu status 20261130-011530-1a2b3c4d\n  dagu status etl\n  dagu status --run-id 20261130-011530-1a2b3c4d etl' +
          '\n  dagu status --run-id 20261130-011530-1a2b3c4d --sub-run-id SUB_RUN_ID etl',
      )
      .action(lazy(() => import('./commands/status'), 'statusCommand')),

  retry: (program) =>
    program
      .command('retry')
      .description(
        'Run a finished run again as a new attempt with the same parameters, in the foreground: what failed, ' +
          'was aborted or rejected runs again with what depends on it; successes and skips are kept (Dagu)',
      )
      .argument('<run-id|dag>', RUN_OR_DAG)
      .option('-r, --run-id <id>', 'with a DAG: the run of it to retry (required then, as in Dagu)')
      .option(
        '--step <name>',
        'run only this step again; every other step keeps the status it had, its dependents too (Dagu)',
      )
      .option('--downstream', 'with --step: run again the steps downstream of it as well (Dagu)')
      .option(
        '--sub-run-id <id>',
        "with --step: retry the step in this sub-run of the run (a call step's child, at any depth), in " +
          'place; the call steps on the way to it are retried with it, every other step keeps its status (Dagu)',
      )
      .option(
        '--default-working-dir <dir>',
        "the working directory of a DAG that sets no working_dir (Dagu's option), instead of the run's work directory",
      )
      .addHelpText(
        'after',
        '\nExamples:\n  dagu retry 20261130-011530-1a2b3c4d\n  dagu retry --run-id 20261130-011530-1a2b3c4d etl' +
          '\n  dagu retry --run-id 20261130-011530-1a2b3c4d --step load etl' +
          '\n  dagu retry --run-id 20261130-011530-1a2b3c4d --step load --downstream etl' +
          '\n  dagu retry --run-id 20261130-011530-1a2b3c4d --sub-run-id SUB_RUN_ID --step build etl',
      )
      .option('-q, --quiet', 'print nothing but errors')
      .option('--detach', 'for a DAG that runs on workers: return once the run is handed over')
      // Set by the scheduler for a retry under the DAG's retry_policy (the attempt counts one auto retry).
      .addOption(new Option('--auto-retry', 'a retry under the DAG-level retry_policy').hideHelp())
      // Set by a parent's call step retrying its child along a --sub-run-id path.
      .addOption(new Option('--retry-path <json>', 'the rest of a --sub-run-id retry path').hideHelp())

      .action(lazy(() => import('./commands/retry'), 'retryCommand')),

  resume: (program) =>
    program
      .command('resume')
      .description(
        'Run a finished run again as a new attempt that re-runs only the steps that did not succeed',
      )
      .argument('<run-id|dag>', RUN_OR_DAG)
      .option('-r, --run-id <id>', 'with a DAG: the run of it to resume (required then)')
      .option('-q, --quiet', 'print nothing but errors')
      .option('--detach', 'for a DAG that runs on workers: return once the run is handed over')
      .action(lazy(() => import('./commands/resume'), 'resumeCommand')),

  restart: (program) =>
    program
      .command('restart')
      .description('Stop a run if it is running, then start its DAG again with the same parameters')
      .argument('<run-id|dag>', `${RUN_OR_DAG}; a DAG alone means its running run (exit 1 if none)`)
      .option(
        '-r, --run-id <id>',
        'with a DAG: restart this run of it (Dagu form: dagu restart --run-id ID etl)',
      )
      .option('-q, --quiet', 'print nothing but errors')
      .option('--detach', 'for a DAG that runs on workers: return once the run is handed over')
      .action(lazy(() => import('./commands/retry'), 'restartCommand')),

  exec: (program) =>
    program
      .command('exec')
      .description("Run one command now as a run of its own, without a DAG file (Dagu's exec)")
      .argument('<command...>', "the command and its arguments, after '--' (dagu exec -- echo hello)")
      .option('-E, --env <KEY=VALUE>', 'an environment variable of the run; repeatable', collect, [])
      .option('--dotenv <file>', 'a dotenv file to load; repeatable', collect, [])
      .option('-N, --name <name>', "the run's DAG name (default: exec-<command>)")
      .option('-r, --run-id <id>', 'run ID to use')
      .option('--shell <shell>', 'the shell that runs the command (default: the default shell)')
      .option('--workdir <dir>', 'where the command runs (default: the current directory)')
      .option('-q, --quiet', 'print nothing but errors')
      .option('--base <file>', "not supported here: the home's base.yaml applies")
      .option('--worker-label <key=value>', 'not supported here: the command runs on this host', collect, [])
      .addHelpText(
        'after',
        "\nExamples:\n  dagu exec -- echo 'hello world'\n  dagu exec --env FOO=bar -- sh -c 'echo $FOO'",
      )
      .action(lazy(() => import('./commands/exec'), 'execCommand')),

  dry: (program) =>
    program
      .command('dry')
      .description(
        'Show what dagu start would run, in order, with the params resolved; runs nothing, records nothing',
      )
      .argument('<dag>', 'DAG name (file stem in the DAGs directory) or path to a DAG file')
      .argument('[params...]', PARAMS_ARGUMENT)
      .option('-p, --params <text>', PARAMS_OPTION)
      .option('-N, --name <name>', NAME_OPTION)
      .option(
        '--no-reuse',
        "a build DAG's steps are shown as they would execute even where a committed output matches",
      )
      .action(lazy(() => import('./commands/dry'), 'dryCommand')),

  history: (program) =>
    program
      .command('history')
      .description("Past runs, newest first (all DAGs', or one DAG's), from the last 30 days by default")
      .argument('[dag]', 'DAG name or file')
      .option('--from <date>', 'runs created from this UTC time (2026-01-31 or 2026-01-31T15:04:05Z)')
      .option('--to <date>', 'runs created up to this UTC time')
      .option('--last <span>', 'runs of the last 24h, 7d, 1w, ... (not with --from/--to)')
      .option('--status <list>', 'only these statuses, separated by commas (failed,aborted)')
      .option('--run-id <text>', 'only run IDs that contain this text')
      .option(
        '--labels <list>',
        'only runs with all these labels, separated by commas: key, key=value, !key (without it), or a glob ' +
          '(env=prod*); case does not matter (Dagu)',
      )
      .option('--tags <list>', TAGS_OPTION)
      .option('-l, --limit <n>', 'at most this many runs (default 100, at most 1000)')
      .option('-f, --format <format>', 'table, json (the keys of Dagu) or csv', 'table')
      .option('--json', 'the same as --format json')
      .action(lazy(() => import('./commands/history'), 'historyCommand')),

  ls: (program) =>
    program
      .command('ls')
      .description('List the DAGs: schedule, next run, last run, tags')
      .argument('[pattern]', 'only DAGs whose name or file contains this text')
      .option('-n, --next', 'accepted for Dagu; the next run is always shown')
      .option('-l, --last', 'accepted for Dagu; the last run is always shown')
      .option('-H, --history', 'add the statuses of the five latest runs')
      .option('-t, --sort-last', 'sort by last run, newest first')
      .option('-r, --reverse', 'reverse the order')
      .option('--json', 'print the list as JSON')
      .action(lazy(() => import('./commands/ls'), 'lsCommand')),

  suspend: (program) =>
    program
      .command('suspend')
      .description("Suspend a DAG's schedule: no slot of it runs (nor is replayed later) until it is resumed")
      .argument('<dag>', 'DAG name')
      .addHelpText(
        'after',
        '\nThe active scheduler skips the DAG from its next slot; its scheduled and catch-up runs still queued\n' +
          'end aborted. Runs started or queued by hand still run. The flag is a file in paths.suspend_flags_dir\n' +
          "(default: the data directory's suspend/), so every scheduler, a standby that takes over too, honours it.\n" +
          '\nExamples:\n  dagu suspend etl\n  dagu resume-schedule etl',
      )
      .action(lazy(() => import('./commands/suspend'), 'suspendCommand')),

  'resume-schedule': (program) =>
    program
      .command('resume-schedule')
      .description(
        "Resume a suspended DAG's schedule from its next slot; the suspended slots are not replayed",
      )
      .argument('<dag>', 'DAG name')
      .addHelpText('after', '\nExamples:\n  dagu resume-schedule etl')
      .action(lazy(() => import('./commands/suspend'), 'resumeScheduleCommand')),

  ps: (program) =>
    program
      .command('ps')
      .description('List the runs running now (queued ones: dagu history --status queued)')
      .option('-d, --dag <name>', 'only runs of this DAG')
      .option('-r, --run-id <text>', 'only run IDs that contain this text')
      .option('-q, --quiet', 'print nothing when no run is running')
      .option('--json', 'print the runs as JSON')
      .action(lazy(() => import('./commands/ps'), 'psCommand')),

  cleanup: (program) =>
    program
      .command('cleanup')
      .description("Remove a DAG's old runs with their logs; queued and running runs are always kept")
      .argument('<dag>', 'DAG name or file')
      .option('--retention-days <n>', 'keep the runs of the last n days (default 0: remove all)', '0')
      .option('--dry-run', 'list what would be removed, remove nothing')
      .option('-y, --yes', 'do not ask for confirmation (without it the answer is read from stdin)')
      .option('-q, --quiet', 'do not ask either')
      .addHelpText(
        'after',
        '\nExamples:\n  dagu cleanup --dry-run etl\n  dagu cleanup --retention-days 30 -y etl',
      )
      .action(lazy(() => import('./commands/cleanup'), 'cleanupCommand')),

  schema: (program) =>
    program
      .command('schema')
      .description('Describe the keys of a DAG file or config.yaml, and what this product does with each')
      .argument('<dag|config>', 'which file')
      .argument('[path]', 'a key, dotted (steps.retry_policy.limit); without it, the top-level keys')
      .addHelpText(
        'after',
        '\nExamples:\n  dagu schema dag\n  dagu schema dag steps\n  dagu schema dag steps.retry_policy\n  dagu schema config scheduler',
      )
      .action(lazy(() => import('./commands/schema'), 'schemaCommand')),

  validate: defineValidate,

  migrate: (program) =>
    program
      .command('migrate')
      .description(
        "Rewrite Dagu 1.x DAG files in 2.x spelling, keeping their meaning (prints a diff); or import Dagu's run history",
      )
      .argument(
        '[paths...]',
        "DAG files, or directories searched for .yaml/.yml files; with --history, Dagu's dag-runs directory " +
          '(default: <data dir>/dag-runs)',
      )
      .option('--write', 'write the migrated files (atomically); without it only the diff is printed')
      .option(
        '--history',
        'import the finished runs Dagu recorded (its files are only read); with --write, else only listed',
      )
      .addHelpText(
        'after',
        '\nExamples:\n  dagu migrate dags/\n  dagu migrate --write dags/\n  dagu migrate --history\n  dagu migrate --history --write',
      )
      .action(lazy(() => import('./commands/migrate'), 'migrateCommand')),

  storage: (program) => {
    const storage = program
      .command('storage')
      .description(
        'Copy the data directory into PostgreSQL, compare the two, and manage the database schema',
      );
    storage
      .command('migrate')
      .description(
        'Copy the data directory (runs, queues, events, flags, workers, tasks) into the PostgreSQL database of storage.postgres.*',
      )
      .addOption(
        new Option('--to <backend>', 'the storage to copy into').choices(['postgres']).makeOptionMandatory(),
      )
      .option(
        '--verify',
        'copy nothing: compare the data directory with the database, print every difference',
      )
      .option(
        '--force',
        'copy even while a scheduler holds the lock of the data directory, or into a database a scheduler has used',
      )
      .addHelpText(
        'after',
        '\nOnly records the database lacks are inserted: a second copy of the same directory inserts nothing,\n' +
          'and a record that differs is reported, never overwritten. The data directory is only read; an\n' +
          'unreadable file is reported and skipped. Stop the schedulers first (the copy refuses while one holds\n' +
          'the lock). Exit codes: 0 done, nothing differs; 1 records differ (with --verify: any difference);\n' +
          '2 bad configuration, no database, or refused.\n' +
          '\nExamples:\n  DAGU_POSTGRES_URL=postgres://dagu@db:5432/dagu dagu storage migrate --to postgres\n' +
          '  dagu storage migrate --to postgres --verify',
      )
      .action(lazy(() => import('./commands/storage'), 'storageMigrateCommand'));
    storage
      .command('schema')
      .description("Show the database's schema version and this build's; --apply applies pending migrations")
      .option(
        '--apply',
        'apply the pending migrations (what starting does when storage.postgres.auto_migrate is on)',
      )
      .addHelpText(
        'after',
        "\nExit codes: 0 the schema is at this build's version (or a newer one it can use); 1 migrations are\n" +
          'pending, or the database is one this build cannot use; 2 bad configuration or no connection.',
      )
      .action(lazy(() => import('./commands/storageSchema'), 'storageSchemaCommand'));
    return storage;
  },

  dags: (program) => {
    const dags = program
      .command('dags')
      .description('Keep a folder of DAG files (a Git checkout, say) and the DAG definitions in step')
      .addHelpText(
        'after',
        '\nThe DAG definitions are the DAGs directory (storage.backend file) or the database (postgres).\n' +
          'Exit codes: 0 done, 1 some write failed, 2 a refused folder, a usage or configuration error.\n' +
          '--delete with nothing on one side (no DAG file in DIR for push, no definition for pull) would\n' +
          'wipe the other side, and is refused unless --allow-empty is given too.\n' +
          '\nExamples:\n  dagu dags push ./dags --dry-run\n  dagu dags push --delete ./dags\n  dagu dags pull ./dags',
      );
    dags
      .command('push')
      .description(
        'Write every DAG file of DIR (*.yaml, *.yml) into the DAG definitions; all are checked with ' +
          "dagu validate's rules first, and one invalid file means nothing is written",
      )
      .argument('<dir>', 'the folder of DAG files')
      .option('--delete', 'also delete the DAGs that DIR does not have')
      .option(
        '--allow-empty',
        'with --delete, accept a DIR with no DAG file, which deletes every DAG definition (refused otherwise)',
      )
      .option('--dry-run', 'check and print what would change; write nothing')
      .action(lazy(() => import('./commands/dags'), 'pushCommand'));
    dags
      .command('pull')
      .description('Write the DAG definitions into DIR, each file atomically and only when its text differs')
      .argument('<dir>', 'the folder of DAG files (created if missing)')
      .option('--delete', 'also remove the DAG files of DIR that are not in the DAG definitions')
      .option(
        '--allow-empty',
        'with --delete, accept that there are no DAG definitions, which removes every DAG file of DIR (refused otherwise)',
      )
      .option('--dry-run', 'print what would change; write nothing')
      .action(lazy(() => import('./commands/dags'), 'pullCommand'));
    return dags;
  },

  scheduler: (program) =>
    program
      .command('scheduler')
      .description('Run the scheduler (with its health endpoint)')
      .option('--scheduler-port <port>', 'health endpoint port (0 disables it)')
      .action(lazy(() => import('./commands/services'), 'schedulerCommand')),

  server: (program) =>
    program
      .command('server')
      .description('Run the web console, REST API and /metrics')
      .option('--host <host>', 'bind address')
      .option('--port <port>', 'port')
      .action(lazy(() => import('./commands/services'), 'serverCommand')),

  'start-all': (program) =>
    program
      .command('start-all')
      .description('Run the web server and the scheduler in one process')
      .option('--host <host>', 'bind address')
      .option('--port <port>', 'port')
      .option('--scheduler-port <port>', 'health endpoint port (0 disables it)')
      .option('--coordinator', 'also run the coordinator in this process')
      .action(lazy(() => import('./commands/services'), 'startAllCommand')),

  coordinator: (program) =>
    program
      .command('coordinator')
      .description(
        'Run the coordinator: hands runs to labelled workers and holds runs until a matching one arrives',
      )
      .option('--coordinator-host <host>', 'bind address (coordinator.host)')
      .option('--coordinator-port <port>', 'port of the worker API and /health (coordinator.port)')
      .action(lazy(() => import('./commands/coordinator'), 'coordinatorCommand')),

  worker: (program) =>
    program
      .command('worker')
      .description('Run a worker: registers with the coordinator and executes the runs it hands out')
      .option('--labels <labels>', 'labels as key=value,key2=value2 (selectors match them exactly)')
      .option('--max-active-runs <n>', 'how many runs to execute at once')
      .option('--coordinator <url>', 'coordinator URL (coordinator.url)')
      .option('--token <token>', 'bearer token the coordinator requires (coordinator.token)')
      .option('--id <id>', 'worker ID (default: <hostname>-<pid>)')
      .action(lazy(() => import('./commands/worker'), 'workerCommand')),

  version: (program) =>
    program
      .command('version')
      .description('Print the version')
      .action(() => {
        process.stdout.write(`${VERSION}\n`);
      }),
};

/** The command word: the first argument that is not a global option (`--home <dir>` takes a value). */
function commandWord(args: string[]): string {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--home' || args[i] === '--dagu-home') i++;
    else if (!args[i].startsWith('-')) return args[i];
  }
  return '';
}

/** Commander's accumulator for a repeatable option. */
function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function defineCommands(args: string[]): void {
  const only = Object.hasOwn(COMMANDS, commandWord(args)) ? COMMANDS[commandWord(args)] : null;
  if (only) only(program);
  else for (const define of Object.values(COMMANDS)) define(program);
}

/** The hidden commands of the run processes the scheduler starts, which commander does not parse. */
const HIDDEN: Record<string, () => Promise<void>> = {
  [RUN_HOST_COMMAND]: async () => {
    const { runHost } = await import('./runHost');
    await runHost(process.argv[3]);
  },
  [RUN_LANE_COMMAND]: async () => {
    const { runLane } = await import('./runLane');
    await runLane(process.argv[3], process.argv[4], process.argv[5]);
  },
};

async function main() {
  const hidden = Object.hasOwn(HIDDEN, process.argv[2] ?? '') ? HIDDEN[process.argv[2]] : null;
  if (hidden === null) return runCommandLine(() => defineCommands(process.argv.slice(2)));
  restoreStashedEnv(process.env);
  await hidden().catch(fail);
}

void main();
