// GENERATED from server/api/openapi.yaml by scripts/gen-api-types.mjs: do not edit. Run `npm run gen:api`
// after changing the OpenAPI file. components/apiTypes.ts gives these types the names the console uses.

export interface paths {
  '/api/v1/health': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The API answers and its configuration loaded. Never needs auth (for probes and load balancers). */
    get: operations['getHealth'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/overview': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Scheduler instances, failover settings and history, and run and worker counts. */
    get: operations['getOverview'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/dags': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Every DAG file, with its schedule, next slot, last run and any validation errors. */
    get: operations['listDags'];
    put?: never;
    /** Create a DAG file `<name>.yaml` from a template. */
    post: operations['createDag'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/dags/{name}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One DAG with its parsed definition and recent runs. */
    get: operations['getDag'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/dags/{name}/history': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A DAG's last runs with each step's state and times (the history grid and duration charts).
     * @description Reads only the newest `limit` runs of the DAG, through its run index. Step columns are the definition's steps in file order, then steps seen only in these runs (renamed or removed since).
     */
    get: operations['getDagHistory'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/dags/{name}/start': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Run a DAG now, on this host or (for a DAG that runs on workers) through the dispatcher. */
    post: operations['startDag'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/dags/{name}/suspend': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Suspend or resume a DAG's schedule (Dagu's body); the schedulers honour it at their next tick.
     * @description `{suspend: true}` writes the DAG's suspend flag: no slot of it runs, and its scheduled and catch-up runs still queued end `aborted` ("dag schedule suspended before dispatch"). `{suspend: false}` removes the flag; slots run again from the next one, and none of the suspended period is replayed. Runs started or queued by hand are not affected. A change appends a `dag.suspended` or `dag.resumed` event.
     */
    post: operations['suspendDag'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/dags/{name}/enqueue': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Put a run of a DAG in its queue; the active scheduler starts it when the queue has room. */
    post: operations['enqueueDag'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/dags/{name}/spec': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The DAG file's YAML text and its version (a hash of the text), for the console's editor. While `server.permissions.write_dags` is false, the SMTP password is served masked (`********`). */
    get: operations['getDagSpec'];
    put?: never;
    /** Save the DAG file's text (atomically: temp file and rename) if it is valid under `dagu validate`'s rules and the file still has `base_version`. */
    post: operations['saveDagSpec'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/dags/{name}/validate': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Check a text as this DAG's file with the loader of `dagu validate` (its file, or `<name>.yaml` for a new one); nothing is written. */
    post: operations['validateDagSpec'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/dags/{name}/rename': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Rename a DAG's file; refused (409) when a DAG of the new name exists or the DAG has queued or running runs. */
    post: operations['renameDag'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/dags/{name}/delete': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Delete a DAG's file (its runs' history stays); refused (409) while it has queued or running runs. */
    post: operations['deleteDag'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/queue': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The runs that wait (queued, held for a worker, or dispatched and not yet claimed), with why. */
    get: operations['listQueue'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/queue/cancel': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Cancel waiting runs; each one ends `aborted` and no worker starts it later. */
    post: operations['cancelQueued'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/runs': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Runs, newest first, one page at a time. */
    get: operations['listRuns'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/run-timings': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The state, start, end and duration of up to 100 runs by ID (a parent run's child runs). */
    get: operations['getRunTimings'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/runs/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The latest attempt's full status of a run; a run waiting for a worker while no coordinator is alive shows the conditions `NoAvailableCoordinator`. */
    get: operations['getRun'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/runs/{id}/stop': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Stop a run (dequeue it, cancel it on the workers, or signal its process on this host). */
    post: operations['stopRun'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/runs/{id}/human-tasks/{step}/complete': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Complete an open human task of a waiting run; once none is open the run is resumed. A repeat with the same input succeeds and changes nothing; one with different input is a conflict. */
    post: operations['completeHumanTask'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/runs/{id}/approvals/{step}/approve': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Approve a step waiting for its approval (required inputs must be given; the inputs become its output variables); once nothing of the run waits the run is resumed. */
    post: operations['approveStep'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/runs/{id}/approvals/{step}/reject': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Reject a step waiting for its approval; the step and the run end rejected. */
    post: operations['rejectStep'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/runs/{id}/approvals/{step}/push-back': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Push a step waiting for its approval back; it (or its approval's rewind_to step) and every step downstream run again in a resumed attempt, with the push-back variables. */
    post: operations['pushBackStep'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/runs/{id}/retry': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Start a new attempt of a finished run, the way a start of its DAG goes.
     * @description Without a body, every step that did not succeed runs again (`dagu retry`). With `step`, only that step runs again, and with `downstream` the steps that depend on it too; every other step keeps its status (`dagu retry --step`). For a step of a sub-run, its root run gets the new attempt, in which only the call steps on the way down run, each retrying its child of the attempt before (`dagu retry --sub-run-id`). A step is retried by a process on this host: 409 when the root's DAG runs on workers, when the root has not ended, or when the sub-run cannot be reached from its root.
     */
    post: operations['retryRun'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/runs/{id}/dequeue': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Take a queued run out of its queue, or cancel one waiting for a worker; it ends `aborted`. */
    post: operations['dequeueRun'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/runs/{id}/logs/{step}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One step's stdout or stderr log, or its end. */
    get: operations['getStepLog'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/runs/{id}/log-sources': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The run's step logs for the log console in the order the steps started, with their line counts. */
    get: operations['listRunLogSources'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/runs/{id}/logs/{step}/lines': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A page of one step's log by line number; the file is never sent whole. */
    get: operations['getStepLogLines'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/runs/{id}/logs/{step}/download': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One step's log file as it is on disk, as an attachment (streamed; refused cross-origin). */
    get: operations['downloadStepLog'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/runs/{id}/artifacts': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The run's artifacts (the files its steps left in DAG_RUN_ARTIFACTS_DIR), sorted by path. */
    get: operations['listRunArtifacts'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/runs/{id}/artifacts/download': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One artifact of the run as an attachment (refused cross-origin). */
    get: operations['downloadRunArtifact'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/runs/{id}/log-download': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Every log of the run in one attachment, in start order, each under a `==> step (stream) <==` line. */
    get: operations['downloadRunLogs'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/runs/{id}/log-search': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Lines of the run's logs that contain a text (case-insensitive), with lines of context.
     * @description Streams over each log file without loading it; stops at `limit` matches (then `truncated` is true).
     */
    get: operations['searchRunLogs'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/search': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The console's search: DAGs by name, tag, description, step name or command; runs by ID.
     * @description Every word of `q` must be found in a DAG (name beats tag beats description beats step beats command). A one-word `q` of run-ID characters also finds runs whose ID is `q` or starts with it.
     */
    get: operations['search'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/events/stream': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The event log as server-sent events, for live views (one reader per server for all clients).
     * @description Each message's `data` is a JSON `LiveMessage`; events of the log carry their ID as the SSE `id`, so a reconnecting browser resumes after `Last-Event-ID` (or `?after=`). Besides the log's events the stream sends `scheduler` when the scheduler instances' roles or liveness change (a takeover), `workers` when a worker comes, goes or changes health, `heartbeat` every 15 s, and `reset` when more events were missed than one page (refresh everything). Refused cross-origin.
     */
    get: operations['streamEvents'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Events of the event log, oldest first; with `follow`, waits until one matches. */
    get: operations['listEvents'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/workers': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The workers the coordinator knows, with labels, capacity, heartbeat age and the runs they execute. */
    get: operations['listWorkers'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/session': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** How this server is protected and whether this request is signed in. Never needs auth. */
    get: operations['getSession'];
    put?: never;
    /** Check a token (auth.token only) and set it as the HttpOnly `dagu_token` cookie. */
    post: operations['signIn'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/session/logout': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Clear the `dagu_token` cookie. */
    post: operations['signOut'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/metrics': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Prometheus metrics (text exposition format), computed from the shared data directory; needs the configured auth like the API. */
    get: operations['getMetrics'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/livez': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Liveness of the web server process alone (no storage access); answers `ok`. */
    get: operations['getLivez'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    /** @description The body of every error answer. */
    ErrorBody: {
      error: {
        /** @description Stable machine-readable code: bad_request, unauthorized, forbidden, not_found, conflict, no_worker, no_coordinator, payload_too_large, invalid_dag, corrupt_record, config_error, dispatch_failed, dequeue_unrecorded or internal. */
        code: string;
        /** @description What went wrong, naming the field or the thing involved. */
        message: string;
      };
    };
    /** @description An exact value to filter by; an empty one means no filter. */
    FilterText: string;
    /**
     * @description Life-cycle of one run attempt; all but `queued`, `running` and `waiting` are final. `waiting`: the attempt stopped at open human tasks or step approvals; answering them resumes the run, stopping it aborts it. `rejected`: a step approval was rejected.
     * @enum {string}
     */
    RunState:
      | 'queued'
      | 'running'
      | 'waiting'
      | 'succeeded'
      | 'partially_succeeded'
      | 'failed'
      | 'aborted'
      | 'rejected';
    /**
     * @description Life-cycle of one step inside a run; `waiting` is an open human task or a step waiting for its approval, `rejected` a step whose approval was rejected.
     * @enum {string}
     */
    StepState:
      | 'not_started'
      | 'running'
      | 'retrying'
      | 'waiting'
      | 'succeeded'
      | 'partially_succeeded'
      | 'failed'
      | 'skipped'
      | 'aborted'
      | 'rejected';
    /**
     * @description How the run came to be.
     * @enum {string}
     */
    TriggerType: 'scheduler' | 'manual' | 'catchup' | 'retry' | 'subdag' | 'queue';
    /** @description Key/value labels (a worker's labels, or a selector a worker must carry all of). */
    Labels: {
      [key: string]: string;
    };
    /**
     * Format: date-time
     * @description An RFC 3339 time, UTC.
     */
    Time: string;
    /** @description One reason a run waits, as last observed (e.g. `WorkerReady=False` because `NoMatchingWorker`). */
    RunCondition: {
      /** @description What is checked, e.g. `Runnable` or `WorkerReady`. */
      type: string;
      /**
       * @description Whether the condition holds.
       * @enum {string}
       */
      status: 'True' | 'False' | 'Unknown';
      /** @description A CamelCase cause, e.g. `NoMatchingWorker`, `NoAvailableWorker`, or `NoAvailableCoordinator` (shown for a run waiting for a worker while no coordinator is alive, whatever was recorded before). */
      reason: string;
      /** @description The same cause in a sentence. */
      message: string;
      /** @description When it was observed. */
      checked_at: components['schemas']['Time'];
    };
    /** @description A human task (action human.task): its step id, its prompt as resolved when it opened, its form (a flat object schema, or null for an acknowledgement) and, once completed, the canonical input. */
    HumanTaskStatus: {
      id: string;
      prompt: string;
      form: {
        [key: string]: unknown;
      } | null;
      /** @description The most bytes the canonical input and the outputs may take (the DAG's max_output_size). */
      max_size: number;
      input?: {
        [key: string]: unknown;
      };
      /** Format: date-time */
      completed_at?: string;
    };
    HumanTaskCompletion: {
      /** @description The input properties, typed as JSON (as `--inputs-json`); omitted means `{}`. */
      inputs?: {
        [key: string]: unknown;
      };
    };
    HumanTaskCompletionResult: {
      /** @enum {string} */
      outcome: 'completed_waiting' | 'completed_resumed' | 'already_completed' | 'already_completed_resumed';
      /** @description The line `dagu human-task complete` prints. */
      message: string;
      status: components['schemas']['RunStatus'];
    };
    /** @description A step approval (a step's approval:): its prompt as resolved when the step began to wait, the input names an approver may give (required ones too), the step a push-back reruns from, and how it was answered. */
    ApprovalStatus: {
      prompt: string;
      input: string[];
      required: string[];
      rewind_to: string | null;
      /** Format: date-time */
      approved_at?: string;
      inputs?: {
        [key: string]: string;
      };
      /** Format: date-time */
      rejected_at?: string;
      reason?: string;
    };
    /** @description The push-back a step (re)runs under: the iteration, the approver's inputs, every push-back so far, and the stdout log of its run before (relative to the logs directory). */
    PushBackStatus: {
      iteration: number;
      inputs?: {
        [key: string]: string;
      };
      history: {
        iteration: number;
        /** Format: date-time */
        at: string;
        inputs?: {
          [key: string]: string;
        };
      }[];
      previous_stdout?: string | null;
    };
    ApprovalInputs: {
      /** @description The approver's inputs as text, by name; omitted means none. */
      inputs?: {
        [key: string]: string;
      };
    };
    ApprovalRejection: {
      /** @description Why the step was rejected. */
      reason?: string;
    };
    ApprovalResult: {
      /** @enum {string} */
      outcome: 'approved_waiting' | 'approved_resumed' | 'rejected' | 'pushed_back';
      /** @description The line `dagu approval` prints. */
      message: string;
      status: components['schemas']['RunStatus'];
    };
    /** @description One step of a run attempt. */
    StepStatus: {
      /** @description The step's name, unique in its DAG. */
      name: string;
      status: components['schemas']['StepState'];
      /**
       * Format: date-time
       * @description When the step started; null before.
       */
      started_at: string | null;
      /**
       * Format: date-time
       * @description When it ended; null before.
       */
      finished_at: string | null;
      /** @description Exit code of its command; null while running or when it never ran. */
      exit_code: number | null;
      /** @description Why it failed, when it did. */
      error: string | null;
      /** @description Retries so far (0 on the first try). */
      retry_count: number;
      /** @description Its stdout log file, relative to the logs directory; null before it ran. */
      stdout: string | null;
      /** @description Its stderr log file, relative to the logs directory; null before it ran. */
      stderr: string | null;
      /** @description The captured output variable (name to value) of a step that declares `output`. */
      output: {
        [key: string]: string;
      } | null;
      /** @description Declared outputs (name to emitted text) the step wrote to `$DAGU_OUTPUT_FILE`; absent when none. */
      outputs?: {
        [key: string]: string;
      } | null;
      /** @description The steps this one waited for, as the DAG declared them; absent in records of older versions. */
      depends?: string[];
      /** @description Executions of a repeat_policy step after its first; absent when it never repeated. */
      repeat_count?: number;
      /** @description Each run of the step's command (its first try, every retry and repeat), oldest first, the newest 100 kept; absent when the command ran once (its times are the step's own). */
      executions?: {
        /** @enum {string} */
        kind: 'first' | 'retry' | 'repeat';
        /** Format: date-time */
        started_at: string;
        /** Format: date-time */
        finished_at: string | null;
        exit_code: number | null;
      }[];
      /** @description Why the step was skipped or aborted without running (a precondition, an upstream failure). */
      skip_reason?: string | null;
      build?: components['schemas']['StepBuildStatus'];
      human_task?: components['schemas']['HumanTaskStatus'];
      approval?: components['schemas']['ApprovalStatus'];
      push_back?: components['schemas']['PushBackStatus'];
      /** @description Child runs this call or parallel step started, in start order. */
      sub_runs?: {
        dag_name: string;
        run_id: string;
        status: null | components['schemas']['RunState'];
        /** @description The parallel item this child ran for. */
        item?: string;
      }[];
      /** @description A foreach step's items in item order, with how each item's body went. */
      foreach_items?: {
        index: number;
        key: string;
        /** @description The key when the step sets foreach.key, else the item (JSON unless it is text). */
        label: string;
        /** @enum {string} */
        status: 'not_started' | 'running' | 'succeeded' | 'failed';
        error?: string;
      }[];
    };
    /** @description How a step of a build DAG (`type: build`) was satisfied, apart from its status: a reused step is `succeeded` with the decision `reuse`. Absent for the steps of other DAGs and before the step was reached. */
    StepBuildStatus: {
      /**
       * @description `reuse`: the recipe, the inputs' contents, the manifest and the current output matched, and nothing ran; `execute`: it ran (a miss, a change, or `no_reuse`); `always`: not eligible for reuse, it ran as any step does; `deferred`: a dry run cannot decide before an upstream producer executes; `none`: no decision was reached.
       * @enum {string}
       */
      decision: 'none' | 'always' | 'execute' | 'reuse' | 'deferred';
      /**
       * @description The last phase of its build evaluation it reached.
       * @enum {string}
       */
      phase: 'precondition' | 'evaluate' | 'execute' | 'verify' | 'commit' | 'complete';
      /**
       * @description Why the decision was taken (a stable word); absent only before evaluation began.
       * @enum {string}
       */
      reason?:
        | 'ineligible'
        | 'store_unavailable'
        | 'evaluation_failed'
        | 'cancelled_before_decision'
        | 'recovery_failed'
        | 'upstream_would_execute'
        | 'input_missing'
        | 'control_dependency_ran'
        | 'reuse_disabled'
        | 'manifest_missing'
        | 'recipe_changed'
        | 'input_changed'
        | 'output_missing'
        | 'output_changed'
        | 'matched'
        | 'input_changed_during_execution'
        | 'precondition_error'
        | 'precondition_not_met';
      /** @description More about the reason, for a person (which input changed, why the step is ineligible). */
      detail?: string;
      /** @description sha256 of the recipe digest, the input snapshots and the control dependencies' fingerprints. */
      fingerprint?: string;
      /** @description The key of the step's manifest (the DAG, the step and the output's canonical path). */
      materialization_key?: string;
      /** @description The run whose execution committed the output that was reused. */
      producer_run?: {
        dag_name: string;
        run_id: string;
      };
      /** @description The attempt of `producer_run` that committed it. */
      producer_attempt?: number;
    };
    /** @description The status of one attempt of a run, as stored. */
    RunStatus: {
      /**
       * @description Record format version.
       * @constant
       */
      version: 1;
      /** @description The DAG the run belongs to. */
      dag_name: string;
      /** @description The run's ID (the same for every attempt). */
      run_id: string;
      /** @description 1 for the first attempt, 2 for the first retry, and so on. */
      attempt: number;
      status: components['schemas']['RunState'];
      trigger_type: components['schemas']['TriggerType'];
      /**
       * Format: date-time
       * @description The slot of a scheduled or catch-up run; null for other runs.
       */
      schedule_time: string | null;
      /** @description The queue the run belongs to (its DAG's queue). */
      queue: string;
      /** @description Parameters as given, `KEY=value` or positional, in order. */
      params: string[];
      /** @description How many of the run's attempts the scheduler started under its DAG-level retry_policy (Dagu's AutoRetryCount); carried to later attempts, a retry by hand keeps it. Absent: none. */
      auto_retry_count?: number;
      /** @description When the record was created. */
      created_at: components['schemas']['Time'];
      /**
       * Format: date-time
       * @description When it was queued; null for runs that never waited.
       */
      queued_at: string | null;
      /**
       * Format: date-time
       * @description When the attempt started executing.
       */
      started_at: string | null;
      /**
       * Format: date-time
       * @description When it reached a final state.
       */
      finished_at: string | null;
      /** @description The run process on `host`; null until one runs it. */
      pid: number | null;
      /** @description The host that executes (or executed) it. */
      host: string | null;
      /** @description The worker that has it, for runs handed to workers. */
      worker_id: string | null;
      /** @description Why the run failed or was aborted. */
      error: string | null;
      /** @description The DAG's steps in declaration order. */
      steps: components['schemas']['StepStatus'][];
      /** @description The lifecycle handler steps that exist for this run, by event. */
      handlers: {
        init?: components['schemas']['StepStatus'];
        success?: components['schemas']['StepStatus'];
        failure?: components['schemas']['StepStatus'];
        abort?: components['schemas']['StepStatus'];
        exit?: components['schemas']['StepStatus'];
        wait?: components['schemas']['StepStatus'];
      };
      /** @description Why a queued run still waits; empty once it left the queue. */
      conditions: components['schemas']['RunCondition'][];
      /** @description Labels a worker must have to run it; null for runs that stay on the scheduler's host. */
      worker_selector: components['schemas']['Labels'] | null;
      /** @description This attempt's log directory, relative to the logs directory. */
      log_dir: string;
      /** @description The scheduler instance that created this run of a slot; absent or null for other runs. */
      dispatched_by?: string | null;
      /** @description The run whose call or parallel step started this one; absent or null otherwise. */
      parent?: null | {
        dag_name: string;
        run_id: string;
        step: string;
      };
      /** @description The run's labels, lowercased (`key` or `key=value`): its DAG's when the run was made, and those `dagu start/enqueue --labels` added; absent when it has none. */
      labels?: string[];
      /**
       * @description Reuse was disabled for this run (`no_reuse` on a start or an enqueue, `--no-reuse`): a build DAG's steps execute even where a committed output matches; absent when not asked for.
       * @constant
       */
      no_reuse?: true;
    };
    RunTimings: {
      runs: components['schemas']['RunTiming'][];
    };
    RunTiming: {
      run_id: string;
      /** @description The latest attempt's state; null when the run's record is missing or unreadable. */
      status: components['schemas']['RunState'] | null;
      /** Format: date-time */
      started_at: string | null;
      /** Format: date-time */
      finished_at: string | null;
      duration_ms: number | null;
    };
    /** @description A DAG's last runs, newest first, with the step columns of its history grid. */
    DagHistory: {
      dag_name: string;
      /** @description Step names; the definition's first (file order), then those only seen in history. */
      steps: string[];
      runs: components['schemas']['HistoryRun'][];
    };
    /** @description One run of a DAG's history (its latest attempt). */
    HistoryRun: {
      run_id: string;
      attempt: number;
      status: components['schemas']['RunState'] | 'corrupt';
      trigger_type: components['schemas']['TriggerType'] | null;
      created_at: string;
      /** Format: date-time */
      started_at: string | null;
      /** Format: date-time */
      finished_at: string | null;
      /** @description From start to end; null while running or when it never started. */
      duration_ms: number | null;
      /** @description Each step's state by name; null when the run's record cannot be read. */
      steps: {
        [key: string]: components['schemas']['HistoryStep'];
      } | null;
    };
    HistoryStep: {
      status: components['schemas']['StepState'];
      /** Format: date-time */
      started_at: string | null;
      /** Format: date-time */
      finished_at: string | null;
      retry_count: number;
    };
    /** @description A run as lists show it (its latest attempt). */
    RunSummary: {
      /** @description The DAG the run belongs to. */
      dag_name: string;
      /** @description The run's ID. */
      run_id: string;
      /** @description The latest attempt's number. */
      attempt: number;
      /** @description The latest attempt's state, or `corrupt` when its record cannot be read. */
      status: components['schemas']['RunState'] | 'corrupt';
      /** @description How it started; null when the record is corrupt. */
      trigger_type: components['schemas']['TriggerType'] | null;
      /**
       * Format: date-time
       * @description The slot of a scheduled or catch-up run.
       */
      schedule_time: string | null;
      /** @description Its queue; null when unknown. */
      queue: string | null;
      /** @description When the run was created (the run ID's time when the record is corrupt). */
      created_at: string;
      /**
       * Format: date-time
       * @description When it was queued.
       */
      queued_at: string | null;
      /**
       * Format: date-time
       * @description When it started.
       */
      started_at: string | null;
      /**
       * Format: date-time
       * @description When it ended.
       */
      finished_at: string | null;
      /** @description Why it failed, or why its record cannot be read. */
      error: string | null;
      /** @description The run's labels (`key` or `key=value`); absent when it has none. */
      labels?: string[];
    };
    /** @description One page of the run list. */
    RunListPage: {
      /** @description Runs, newest first. */
      items: components['schemas']['RunSummary'][];
      /** @description Pass as `cursor` for the next page; null on the last page. */
      next_cursor: string | null;
    };
    /** @description A step's log, whole or its end. */
    StepLog: {
      /** @description The run. */
      run_id: string;
      /** @description The step. */
      step: string;
      /**
       * @description Which of its logs.
       * @enum {string}
       */
      stream: 'stdout' | 'stderr';
      /** @description False while the step has not started (no log file yet). */
      exists: boolean;
      /** @description Size of the whole file in bytes. */
      size: number;
      /** @description True when `content` is only the end of the file. */
      truncated: boolean;
      /** @description The text (UTF-8; a cut character at the start of a tail is replaced). */
      content: string;
    };
    /** @description A run's artifacts, sorted by path. */
    RunArtifacts: {
      run_id: string;
      artifacts: {
        /** @description Relative to the run's artifacts directory, slash-separated. */
        path: string;
        /** @description Bytes. */
        size: number;
      }[];
    };
    /** @description One step log that has a file. */
    LogSource: {
      step: string;
      /** @enum {string} */
      stream: 'stdout' | 'stderr';
      /** @description Lines in the file now (a last line without newline counts). */
      lines: number;
      /** @description Bytes in the file now. */
      size: number;
      step_status: components['schemas']['StepState'];
      /** Format: date-time */
      started_at: string | null;
    };
    /** @description A run's step logs in the order the steps started (stdout before stderr). */
    LogSources: {
      run_id: string;
      attempt: number;
      status: components['schemas']['RunState'];
      sources: components['schemas']['LogSource'][];
    };
    /** @description A page of one step log's lines. */
    LogLinePage: {
      step: string;
      /** @enum {string} */
      stream: 'stdout' | 'stderr';
      /** @description The first line's number (0-based). */
      from: number;
      lines: string[];
      total_lines: number;
      size: number;
    };
    LogSearchMatch: {
      step: string;
      /** @enum {string} */
      stream: 'stdout' | 'stderr';
      /** @description The line's number in its log (0-based). */
      line: number;
      text: string;
      before: string[];
      after: string[];
    };
    LogSearchResult: {
      query: string;
      matches: components['schemas']['LogSearchMatch'][];
      /** @description The search stopped at `limit`; there may be more. */
      truncated: boolean;
    };
    SearchDagHit: {
      name: string;
      score: number;
      /** @description Where the words were found, best first. */
      fields: ('name' | 'tag' | 'description' | 'step' | 'command')[];
      /** @description The matching step command (`step: command`) or description. */
      snippet: string | null;
      description: string;
      tags: string[];
    };
    SearchRunHit: {
      run_id: string;
      dag_name: string | null;
      status: components['schemas']['RunState'] | null;
      /** Format: date-time */
      started_at: string | null;
      exact: boolean;
    };
    SearchResult: {
      query: string;
      dags: components['schemas']['SearchDagHit'][];
      runs: components['schemas']['SearchRunHit'][];
    };
    /** @description The data of one message of /api/v1/events/stream. */
    LiveMessage: {
      /** @description The event's ID (events of the log only). */
      id?: string;
      /** @description An event type, or scheduler, workers, heartbeat, reset. */
      type: string;
      run_id?: string;
      dag_name?: string;
      status?: string;
    };
    /** @description Body of a start; an empty body starts the DAG with its default parameters. */
    StartRequest: {
      params?: components['schemas']['Params'];
      /** @description Disable reuse for this run: the steps of a build DAG (`type: build`) execute even where a committed output matches (staging and commit still apply). Accepted, and without effect, for other DAGs. */
      no_reuse?: boolean;
    };
    /** @description Body of a suspend or resume. */
    SuspendRequest: {
      /** @description true suspends the DAG's schedule, false resumes it. */
      suspend: boolean;
    };
    /** @description A DAG's schedule state after a suspend or resume. */
    SuspendState: {
      /** @description The DAG's name. */
      name: string;
      /** @description Whether its schedule is suspended now. */
      suspended: boolean;
      /**
       * Format: date-time
       * @description When it was suspended; null when not suspended or when its flag does not say (Dagu's empty flag file).
       */
      suspended_at: string | null;
      /** @description Who suspended it (`cli`, `api`, `api:<user>`); null when not suspended or not recorded. */
      suspended_by: string | null;
      /** @description False when the DAG already was in the state asked for (nothing was written). */
      changed: boolean;
    };
    /** @description Body of an enqueue. */
    EnqueueRequest: {
      params?: components['schemas']['Params'];
      /** @description Use this run ID instead of a new one (refused with 409 when taken). */
      run_id?: string;
      /** @description Disable reuse for this run: the steps of a build DAG (`type: build`) execute even where a committed output matches (staging and commit still apply). Accepted, and without effect, for other DAGs. */
      no_reuse?: boolean;
    };
    /** @description Parameters as after `--` on the command line, `KEY=value` or positional. */
    Params: string[];
    /** @description How a start went. */
    StartResult: {
      /** @description The new run's ID. */
      run_id: string;
      /** @description Its DAG. */
      dag_name: string;
      /**
       * @description `started`: a run process on this host; `dispatched`: a task waits for the first matching worker to poll; `held`: no healthy worker matches yet, the run waits `queued` (see its conditions).
       * @enum {string}
       */
      outcome: 'started' | 'dispatched' | 'held';
      /** @description The local run process; null for a run handed to the workers. */
      pid: number | null;
      /** @description The run's record; null when the run process had not written it within a short wait. */
      status: components['schemas']['RunStatus'] | null;
      /** @description The file the local run process writes its own output to; null for runs on workers. */
      process_log: string | null;
    };
    /** @description How a stop went. */
    StopResult: {
      /**
       * @description `dequeued`/`aborted`: the run ended now; `signalled`: its process on this host got SIGTERM; `requested`: the worker running it will stop it.
       * @enum {string}
       */
      outcome: 'dequeued' | 'aborted' | 'signalled' | 'requested';
      /** @description The run after the stop, or as it was when the stop was requested. */
      status: components['schemas']['RunStatus'];
    };
    /** @description What to run again; an empty body is the whole run. */
    RetryRequest: {
      /** @description Only this step of the run (by name) runs again. */
      step?: string;
      /** @description With `step`, the steps that depend on it (directly or not) run again too. */
      downstream?: boolean;
    };
    /** @description A new attempt of a finished run. */
    RetryResult: {
      /** @description The run that gets the new attempt (retries keep its ID); for a step of a sub-run, its root. */
      run_id: string;
      /** @description Its DAG. */
      dag_name: string;
      /** @description The attempt number the retry writes. */
      attempt: number;
      /**
       * @description As for a start.
       * @enum {string}
       */
      outcome: 'started' | 'dispatched' | 'held';
      /** @description For a step retry, the step. */
      step?: string;
      /** @description For a step of a sub-run, the sub-run (retried in place, as a new attempt of it). */
      sub_run_id?: string;
    };
    /** @description Every DAG file. */
    DagList: {
      /** @description Sorted by name; files with errors are listed too. */
      dags: components['schemas']['DagSummary'][];
    };
    /** @description One DAG file as the DAG list shows it. */
    DagSummary: {
      /** @description The DAG's name. */
      name: string;
      /** @description Its file, relative to the DAGs directory. */
      file: string;
      /** @description The DAG's description; empty when none. */
      description: string;
      /** @description The DAG's `group`; the console lists the DAGs of a group together. Empty when none. */
      group: string;
      /** @description Its tags. */
      tags: string[];
      /** @description Its schedule expressions as written (cron, maybe with `CRON_TZ=`). */
      schedule: string[];
      /**
       * Format: date-time
       * @description The next slot over all its schedules; null without a schedule or while suspended.
       */
      next_run: string | null;
      /** @description Whether its schedule is suspended; no slot of it runs until it is resumed. */
      suspended: boolean;
      /**
       * Format: date-time
       * @description When it was suspended, if its flag says (a flag Dagu wrote does not); null when not suspended.
       */
      suspended_at: string | null;
      /** @description The queue its runs go to; null when the file has errors. */
      queue: string | null;
      /** @description Its newest run; null when it never ran. */
      last_run: components['schemas']['RunSummary'] | null;
      /** @description Validation errors (file, line, field); a DAG with errors cannot run. */
      errors: string[];
      /** @description Things that work but are probably not meant. */
      warnings: string[];
    };
    /** @description One DAG in full. */
    DagDetail: {
      /** @description The DAG's name. */
      name: string;
      /** @description Its file, relative to the DAGs directory. */
      file: string;
      /** @description The DAG's description; empty when none. */
      description: string;
      /** @description The DAG's `group`; the console lists the DAGs of a group together. Empty when none. */
      group: string;
      /** @description Its tags. */
      tags: string[];
      /** @description Its schedule expressions as written (cron, maybe with `CRON_TZ=`). */
      schedule: string[];
      /**
       * Format: date-time
       * @description The next slot over all its schedules; null without a schedule or while suspended.
       */
      next_run: string | null;
      /** @description Whether its schedule is suspended; no slot of it runs until it is resumed. */
      suspended: boolean;
      /**
       * Format: date-time
       * @description When it was suspended, if its flag says (a flag Dagu wrote does not); null when not suspended.
       */
      suspended_at: string | null;
      /** @description The queue its runs go to; null when the file has errors. */
      queue: string | null;
      /** @description Its newest run; null when it never ran. */
      last_run: components['schemas']['RunSummary'] | null;
      /** @description Validation errors (file, line, field); a DAG with errors cannot run. */
      errors: string[];
      /** @description Things that work but are probably not meant. */
      warnings: string[];
      /** @description The parsed definition with defaults applied; null when the file has errors. */
      dag: components['schemas']['DagDefinition'] | null;
      /** @description Its latest runs, newest first (at most 10). */
      recent_runs: components['schemas']['RunSummary'][];
    };
    /** @description A DAG as parsed from its file, with defaults applied. */
    DagDefinition: {
      /** @description The DAG's name. */
      name: string;
      /** @description Its description; empty when none. */
      description: string;
      /** @description Its tags. */
      tags: string[];
      /** @description Its schedules. */
      schedule: components['schemas']['ScheduleSpec'][];
      /** @description The steps in declaration order. */
      steps: components['schemas']['StepSpec'][];
      /** @description Default parameters. */
      params: components['schemas']['ParamSpec'][];
      /** @description Environment variables for every step. */
      env: components['schemas']['StringMap'];
      /** @description The queue its runs go to (the DAG's name unless set). */
      queue: string;
      /** @description How many runs of it may run at once. */
      max_active_runs: number;
      /**
       * @description What happens to a slot while an earlier run is still going.
       * @enum {string}
       */
      overlap_policy: 'skip' | 'all' | 'latest';
      /** @description How far back missed slots are run after downtime; 0 when catch-up is off. */
      catchup_window_ms: number;
      /** @description How a failed run is retried as a whole; null when it is not. */
      retry_policy: components['schemas']['RetryPolicy'] | null;
      /** @description Longest a run may take; null for no limit. */
      timeout_sec: number | null;
      /** @description Labels a worker must have to run it; null when it runs on the scheduler's host. */
      worker_selector: components['schemas']['Labels'] | null;
      /** @description Steps run when a run succeeds, fails, is aborted, or in any case at the end; `wait` when it ends waiting at human tasks. */
      handler_on: {
        init?: components['schemas']['NullableStepSpec'];
        success: components['schemas']['NullableStepSpec'];
        failure: components['schemas']['NullableStepSpec'];
        abort: components['schemas']['NullableStepSpec'];
        exit: components['schemas']['NullableStepSpec'];
        wait?: components['schemas']['NullableStepSpec'];
      };
      /** @description How a stop reaches the steps. */
      signal_handling: {
        /** @description Whether a stop signal is passed on to the steps' processes. */
        enable_propagation: boolean;
      };
      /** @description The file it was loaded from; null when it came from elsewhere. */
      file: string | null;
      /** @description Named values fixed at load, read as `${consts.name}`. */
      consts?: components['schemas']['StringMap'];
      /** @description `worker_selector: local`: the DAG always runs on the host that starts it. */
      force_local?: boolean;
      /** @description What the console's start dialog lets an operator change (absent - everything). */
      run_config?: {
        /** @description The parameters are shown and cannot be edited; a start uses the defaults. */
        disable_param_edit: boolean;
        /** @description No custom run ID (the console never offers one). */
        disable_run_id_edit: boolean;
      };
      /** @description Its group in the console; empty when none. */
      group?: string;
      /** @description Its labels, lowercased (`key` or `key=value`). */
      labels?: string[];
      /**
       * @description How its steps are ordered; a chain's order is already in each step's `depends`. `build`: a graph whose steps may declare the files they read (`inputs`) and make (an output with a `path`), and are reused when those match the last successful execution.
       * @enum {string}
       */
      type?: 'graph' | 'chain' | 'build';
      /** @description The shell of its steps; null for the default. */
      shell?: string | null;
      /** @description Arguments of that shell. */
      shell_args?: string[];
      /** @description The working directory of its steps; null for a work directory of each run. */
      working_dir?: string | null;
      /** @description Dotenv files loaded at run start, in order. */
      dotenv?: string[];
      /** @description Secrets resolved at run start and masked in what the run shows; absent when none. */
      secrets?: {
        /** @description The variable that gets the value. */
        name: string;
        /**
         * @description Where the value is read when the run starts.
         * @enum {string}
         */
        provider: 'env' | 'file';
        /** @description The variable (env) or file path (file) read; never the value itself. */
        key: string;
      }[];
      /** @description Conditions checked before the run's steps. */
      preconditions?: components['schemas']['ConditionSpec'][];
      /** @description Seconds between starting one step and the next. */
      delay_sec?: number;
      /** @description Seconds a stopped step gets before it is killed. */
      max_clean_up_time_sec?: number;
      /** @description Steps running at once at most; 0 for no limit. */
      max_active_steps?: number;
      /** @description The largest captured output of a step, in bytes. */
      max_output_size?: number;
      /** @description Days of run history kept. */
      hist_retention_days?: number | null;
      /** @description Runs of history kept, when set. */
      hist_retention_runs?: number | null;
      /** @description The directory of its run logs; null for the logs directory. */
      log_dir?: string | null;
      /** @description Its runs' artifacts directory (DAG_RUN_ARTIFACTS_DIR); absent when its runs get none. */
      artifacts?: {
        enabled: boolean;
        /** @description The base folder as written; null for the run's own data directory. */
        dir: string | null;
      };
      /**
       * @description Whether a step's stdout and stderr are logged to one file or two.
       * @enum {string}
       */
      log_output?: 'separate' | 'merged';
      /** @description Skip a slot when the last run succeeded since the previous slot. */
      skip_if_successful?: boolean;
      /** @description When its running runs are stopped. */
      stop_schedule?: components['schemas']['ScheduleSpec'][];
      /** @description When it is restarted. */
      restart_schedule?: components['schemas']['ScheduleSpec'][];
      /** @description Seconds between stopping and starting again on a restart. */
      restart_wait_sec?: number;
      /** @description The mail server for its notifications and mail steps. */
      smtp?: null | {
        host: string;
        port: number;
        username: string;
        password: string;
      };
      /** @description Which outcomes send a notification. */
      mail_on?: {
        failure: boolean;
        success: boolean;
        wait?: boolean;
      };
      /** @description Sender, recipients and subject prefix of the failure notification. */
      error_mail?: null | components['schemas']['MailSpec'];
      /** @description Sender, recipients and subject prefix of the success notification. */
      info_mail?: null | components['schemas']['MailSpec'];
      /** @description Sender, recipients and subject prefix of the notification of a run waiting at human tasks. */
      wait_mail?: null | components['schemas']['MailSpec'];
      /** @description The other documents of its file, sub-DAGs by name. */
      local_dags?: {
        [key: string]: components['schemas']['DagDefinition'];
      };
      /** @description Deprecated spellings and other warnings found when it was loaded. */
      warnings?: string[];
    };
    /** @description Who a notification comes from and goes to. */
    MailSpec: {
      from: string;
      to: string[];
      prefix: string;
      attach_logs: boolean;
    };
    /** @description One precondition. */
    ConditionSpec: {
      /** @description A value to compare, or a command to run when `expected` is null. */
      condition: string | null;
      /** @description A value whose commands in backticks or `$(...)` are run first. */
      eval: string | null;
      /** @description The line the value must have (or `re:` and a regular expression). */
      expected: string | null;
      /** @description The condition holds when the check fails. */
      negate: boolean;
    };
    /** @description Names to string values. */
    StringMap: {
      [key: string]: string;
    };
    /** @description One schedule of a DAG. */
    ScheduleSpec: {
      /** @description The expression as written, with any `CRON_TZ=` prefix. */
      expression: string;
      /** @description The cron fields alone (5, or 6 with seconds). */
      cron: string;
      /** @description The IANA time zone of `CRON_TZ=`; null for UTC. */
      timezone: string | null;
      /** @description True when the expression starts with a seconds field. */
      has_seconds: boolean;
    };
    /** @description One default parameter. */
    ParamSpec: {
      /** @description Its name; null for a positional parameter. */
      name: string | null;
      /** @description Its default value. */
      value: string;
      /** @description The checks and dynamic default of a parameter declared with `name:` and more keys. */
      rich?: {
        has_default: boolean;
        eval: string | null;
        description: string;
        type: null | ('string' | 'integer' | 'number' | 'boolean');
        required: boolean;
        enum: null | string[];
        minimum: number | null;
        maximum: number | null;
        min_length: number | null;
        max_length: number | null;
        pattern: string | null;
      };
    };
    /** @description How often and how soon something that failed is tried again. */
    RetryPolicy: {
      /** @description Retries at most. */
      limit: number;
      /** @description Seconds before the first retry. */
      interval_sec: number;
      /** @description Factor the interval grows by after each retry (1 keeps it constant). */
      backoff: number;
      /** @description The interval never grows beyond this; null for no cap. */
      max_interval_sec: number | null;
      deferred?: components['schemas']['DeferredCounts'];
    };
    /** @description Counts of a step's retry or repeat policy written as text with a reference (`"${RETRIES}"`), by key; they are resolved when the step starts, and the number beside each is a placeholder until then. */
    DeferredCounts: {
      limit?: string;
      interval_sec?: string;
      max_interval_sec?: string;
    };
    /** @description One step of a DAG definition. */
    StepSpec: {
      /** @description The step's name. */
      name: string;
      /** @description Commands run one after another (stopping at the first that fails); null for a script or a call. */
      command: string[] | null;
      /** @description A script run by the shell, instead of `command`. */
      script: string | null;
      /** @description The shell that runs it; null for the default. */
      shell: string | null;
      /** @description Its working directory; null for the default. */
      dir: string | null;
      /** @description Extra environment variables. */
      env: components['schemas']['StringMap'];
      /** @description The steps it waits for. */
      depends: string[];
      /** @description Its approval gate (a step's approval:): after its command succeeds it waits for an approval. `rewind_to` is the step a push-back reruns from (null: the step itself). */
      approval?: {
        prompt: string;
        input: string[];
        required: string[];
        rewind_to: string | null;
      };
      /** @description Longest it may take; null for no limit. */
      timeout_sec: number | null;
      /** @description How it is retried when it fails; null when it is not. */
      retry_policy: components['schemas']['RetryPolicy'] | null;
      /** @description When the run goes on after this step. */
      continue_on: {
        /** @description Go on with the next steps even when this one fails. */
        failure: boolean;
        /** @description Go on when this one was skipped. */
        skipped?: boolean;
        /** @description Exit codes that let the next steps go on. */
        exit_code?: number[];
        /** @description Stdout patterns that let the next steps go on. */
        output?: string[];
        /** @description Count this step as succeeded when one of the above let the run go on. */
        mark_success?: boolean;
      };
      /** @description The variable its trimmed stdout is stored in for later steps. */
      output: string | null;
      /** @description Another DAG run as a sub-run by this step. */
      call: string | null;
      /** @description Parameters passed to the called DAG. */
      params?: components['schemas']['ParamSpec'][];
      /** @description Labels a worker must have to run this step. */
      worker_selector: components['schemas']['Labels'] | null;
      /** @description Its id, for references such as `${id.stdout}`. */
      id?: string | null;
      /** @description Its description. */
      description?: string;
      /** @description What it runs besides a shell command (`kind`, and the action's settings). */
      action?: {
        /** @enum {string} */
        kind:
          | 'command'
          | 'exec'
          | 'dag'
          | 'http'
          | 'jq'
          | 'mail'
          | 'log'
          | 'noop'
          | 'file'
          | 'wait'
          | 'router'
          | 'outputs'
          | 'data'
          | 'foreach'
          | 'template'
          | 'git'
          | 'state'
          | 'archive'
          | 'artifact'
          | 'human';
      } & {
        [key: string]: unknown;
      };
      /** @description Arguments of its own shell. */
      shell_args?: string[];
      /** @description Whether the step set its own shell. */
      shell_explicit?: boolean;
      /** @description Its `command` is the interpreter its script is run with. */
      script_interpreter?: boolean;
      /** @description Conditions checked when it becomes ready; unmet, it is skipped. */
      preconditions?: components['schemas']['ConditionSpec'][];
      /** @description How it is repeated; null when it is not. */
      repeat_policy?: null | {
        mode: null | ('while' | 'until');
        condition: string | null;
        expected: string | null;
        exit_code: number[];
        interval_sec: number;
        limit: number | null;
        backoff: number;
        max_interval_sec: number | null;
        /** @description A Dagu 1.x condition with backticks, run as an eval. */
        condition_eval?: boolean;
        deferred?: components['schemas']['DeferredCounts'];
      };
      /** @description Outputs the step declares, written to `$DAGU_OUTPUT_FILE`; in a build DAG, an output with a `path` is the file the step makes (at most one per step). */
      outputs?: {
        name: string;
        /** @enum {string} */
        type: 'string' | 'json';
        /** @description A build DAG's path output, as written (its `type` is then `string`). */
        path?: string;
      }[];
      /** @description A build DAG step's declared input files, read by `${inputs.<name>}`; absent when none. */
      inputs?: {
        name: string;
        /** @description As written; resolved when the run starts. */
        path: string;
      }[];
      /** @description Exit codes that are retried; empty for any failure. */
      retry_exit_codes?: number[];
      /** @description The signal it gets when its run is stopped; null for SIGTERM. */
      signal_on_stop?: string | null;
      /** @description A file that also receives its stdout. */
      stdout_file?: string | null;
      /** @description A path in the run's artifacts directory that also receives its stdout. */
      stdout_artifact?: string;
      /** @description A path in the run's artifacts directory that also receives its stderr. */
      stderr_artifact?: string;
      /** @description A file that also receives its stderr. */
      stderr_file?: string | null;
      /**
       * @description Whether its stdout and stderr are logged to one file or two.
       * @enum {string}
       */
      log_output?: 'separate' | 'merged';
      /** @description Send the failure notification when this step fails. */
      mail_on_error?: boolean;
      /** @description The items its sub-DAG runs for, one child run each; null when it runs once. */
      parallel?: null | {
        variable: string | null;
        items: (string | components['schemas']['StringMap'])[];
        max_concurrent: number;
      };
    };
    /** @description A handler step, or null when the DAG has none. */
    NullableStepSpec: components['schemas']['StepSpec'] | null;
    /** @description One run that waits, in a local queue or for a worker. */
    WaitingRun: {
      /** @description The run. */
      run_id: string;
      /** @description Its DAG. */
      dag_name: string;
      /**
       * @description `queued`: an item of a local queue; `held`: handed to the workers but no worker matches (it has a hold); `dispatched`: a healthy matching worker exists but has not claimed it yet.
       * @enum {string}
       */
      kind: 'queued' | 'held' | 'dispatched';
      /** @description The local queue's name for `queued`, else null. */
      queue: string | null;
      /** @description 1 for the next to start in its queue (`queued` only), else null. */
      position: number | null;
      /** @description The run record's state (normally `queued`); null when the record is missing or unreadable. */
      status: components['schemas']['RunState'] | null;
      /** @description How it started; null without a readable record. */
      trigger_type: components['schemas']['TriggerType'] | null;
      /**
       * Format: date-time
       * @description The slot of a scheduled or catch-up run.
       */
      schedule_time: string | null;
      /** @description Its parameters. */
      params: string[];
      /** @description Null for runs that do not go to workers; `{}` means any worker. */
      worker_selector: components['schemas']['Labels'] | null;
      /** @description The selector as error texts write it (`{zone: b}`, `{}` for any worker); null without one. */
      selector_text: string | null;
      /** @description Why it waits, as last recorded on the run. */
      conditions: components['schemas']['RunCondition'][];
      /** @description The reason of the first condition whose status is False; null when none. */
      reason: string | null;
      /** @description When it started waiting (queued time, or when its task was stored). */
      waiting_since: components['schemas']['Time'];
      /** @description How long it has waited, by the server's clock. */
      waited_ms: number;
      /**
       * Format: date-time
       * @description When a held run's wait runs out (it then fails); null for other kinds.
       */
      hold_until: string | null;
      /** @description Milliseconds left until `hold_until` (negative once past); null for other kinds. */
      hold_remaining_ms: number | null;
      /** @description Why the run record is missing or unreadable; null when it is fine. */
      problem: string | null;
    };
    /** @description One local queue's counts. */
    QueueSummary: {
      /** @description The queue. */
      name: string;
      /** @description From `queues.config`; null when its DAG's `max_active_runs` limits it. */
      max_concurrency: number | null;
      /** @description Runs of this queue now running. */
      running: number;
      /** @description Runs in this queue. */
      queued: number;
    };
    /** @description What waits, and the values the filter can take. */
    QueueListing: {
      /** @description False when queues are turned off (`queues.enabled: false`). */
      enabled: boolean;
      /** @description Every known queue with its counts, regardless of the filter. */
      queues: components['schemas']['QueueSummary'][];
      /** @description The waiting runs that pass the filter; queued runs in queue order, then the others oldest first. */
      items: components['schemas']['WaitingRun'][];
      /** @description How many passed the filter before `limit` cut the list. */
      total: number;
      /** @description Distinct values over all waiting runs (unfiltered), for the filter controls. */
      facets: {
        /** @description Queue names. */
        queues: string[];
        /** @description DAG names. */
        dags: string[];
        /** @description Selectors as `selector_text` writes them. */
        selectors: string[];
        /** @description Reasons. */
        reasons: string[];
      };
    };
    /** @description The runs to cancel. */
    CancelRequest: {
      /** @description IDs of waiting runs; an invalid or unknown one gets its own error in the result. */
      run_ids: string[];
    };
    /** @description The result of a cancel, per run. */
    CancelResult: {
      /** @description One entry per distinct requested run, in request order. */
      results: {
        /** @description The run. */
        run_id: string;
        /** @description True when the run was cancelled (or a worker was asked to stop it). */
        ok: boolean;
        /** @description The run's state afterwards; null when it could not be read. */
        status: components['schemas']['RunState'] | null;
        /** @description Why it could not be cancelled; null when ok. */
        error: string | null;
      }[];
    };
    /** @description A run a worker reported executing. */
    WorkerRunView: {
      /** @description The run. */
      run_id: string;
      /** @description The attempt the worker executes. */
      attempt: number;
      /** @description Its DAG; null when the run's record is missing or unreadable here. */
      dag_name: string | null;
      /** @description The run record's state; null when unreadable. */
      status: components['schemas']['RunState'] | null;
    };
    /** @description One worker as its last heartbeat left it. */
    WorkerSummary: {
      /** @description The worker's ID. */
      worker_id: string;
      /** @description Its labels, which selectors are matched against. */
      labels: components['schemas']['Labels'];
      /** @description How many runs it executes at once at most. */
      max_active_runs: number;
      /** @description Its host. */
      host: string;
      /**
       * @description `healthy`: heard from within half the stale threshold; `late`: within the threshold (still gets work); `lost`: beyond it (its runs fail, it gets nothing).
       * @enum {string}
       */
      state: 'healthy' | 'late' | 'lost';
      /**
       * @description The dispatcher's view; `healthy` for both healthy and late.
       * @enum {string}
       */
      health: 'healthy' | 'unhealthy';
      /** @description When it first registered. */
      registered_at: components['schemas']['Time'];
      /** @description Its last heartbeat. */
      last_heartbeat_at: components['schemas']['Time'];
      /** @description Milliseconds since that heartbeat, by this server's clock. */
      heartbeat_age_ms: number;
      /** @description The runs it reported executing. */
      running: components['schemas']['WorkerRunView'][];
    };
    /** @description Every registered worker. */
    WorkerListing: {
      /** @description Healthy ones first, then by ID. */
      workers: components['schemas']['WorkerSummary'][];
      /** @description `coordinator.worker_stale_threshold`, which the states are judged by. */
      stale_threshold_ms: number;
    };
    /** @description One scheduler instance sharing the data directory. */
    SchedulerInstanceView: {
      /** @description The instance's ID. */
      id: string;
      /** @description Its host. */
      host: string;
      /** @description Its process ID. */
      pid: number;
      /**
       * @description What it does now; `lost` when its record was not refreshed for longer than the takeover bound (the instance is gone), `stopped` after a clean stop.
       * @enum {string}
       */
      role: 'starting' | 'standby' | 'active' | 'lost' | 'stopped';
      /** @description When it took this role. */
      since: components['schemas']['Time'];
      /** @description Its health endpoint's port; 0 when disabled. */
      port: number;
      /** @description The instance it last saw holding the lock. */
      lock_holder: string | null;
      /**
       * Format: date-time
       * @description The last lock renewal it observed.
       */
      last_renewal_seen: string | null;
      /** @description Now minus `last_renewal_seen` (server clock); null when none. */
      last_renewal_age_ms: number | null;
      /** @description When it last refreshed its record. */
      updated_at: components['schemas']['Time'];
      /** @description Now minus `updated_at` (server clock). */
      updated_age_ms: number;
    };
    /** @description One change of the lock holder. */
    FailoverView: {
      /** @description The event that recorded it. */
      event_id: string;
      /** @description When the new holder acquired the lock. */
      time: components['schemas']['Time'];
      /** @description The new holder. */
      to_instance: string;
      /** @description Its host, when known. */
      to_host: string | null;
      /** @description The previous holder; null for the first acquisition. */
      from_instance: string | null;
      /** @description Its host, when known. */
      from_host: string | null;
      /**
       * @description `released`: clean handover; `stale`: taken over from a holder that stopped renewing; `lock_lost`: the holder recorded losing the lock first; `initial`: the first acquisition.
       * @enum {string}
       */
      cause: 'released' | 'stale' | 'lock_lost' | 'initial';
      /** @description The previous holder's last renewal to this acquisition (wall clocks of two hosts). */
      gap_ms: number | null;
      /** @description The same gap as the new holder timed it on its own clock. */
      observed_gap_ms: number | null;
      /** @description The lock's fencing epoch after the acquisition, when known. */
      epoch: number | null;
    };
    /** @description The lock timings in force, as Go durations and in milliseconds. */
    FailoverSettings: {
      /** @description T, after which an unrenewed lock may be taken over. */
      lock_stale_threshold: string;
      lock_stale_threshold_ms: number;
      /** @description R, how often a standby tries the lock. */
      lock_retry_interval: string;
      lock_retry_interval_ms: number;
      /** @description I, how often the holder renews (min(7s, T/4)). */
      renewal_interval: string;
      renewal_interval_ms: number;
      /** @description T + 2R, the longest a failover should take. */
      takeover_bound: string;
      takeover_bound_ms: number;
      /** @description How far back a new holder replays slots the old one may have missed. */
      failover_recovery_window: string;
      failover_recovery_window_ms: number;
    };
    /** @description How the server is protected. */
    SecurityView: {
      /**
       * @description The configured auth.
       * @enum {string}
       */
      auth: 'none' | 'basic' | 'token';
      /** @description True when it listens beyond loopback without auth (the console shows a warning). */
      exposed_without_auth: boolean;
      /** @description The address it listens on, `host:port`. */
      listen: string;
    };
    /** @description Everything the console's overview shows. */
    Overview: {
      /** @description When the server built this answer. */
      generated_at: components['schemas']['Time'];
      /** @description Every scheduler instance with a record. */
      instances: components['schemas']['SchedulerInstanceView'][];
      /** @description The live active instance's ID; null when there is none. */
      active_instance: string | null;
      settings: components['schemas']['FailoverSettings'];
      /** @description Newest first, at most 50. */
      failovers: components['schemas']['FailoverView'][];
      /** @description How many runs and workers are in each state. */
      counts: {
        /** @description Runs running. */
        running: number;
        /** @description Items of the local queues (runs handed to workers are not counted here). */
        queued: number;
        /** @description Runs held for a matching worker. */
        held: number;
        /** @description DAGs whose schedule is suspended. */
        suspended_dags: number;
        /** @description Workers by state. */
        workers: {
          healthy: number;
          late: number;
          lost: number;
        };
      };
      security: components['schemas']['SecurityView'];
    };
    /** @description One entry of the event log. */
    EventRecord: {
      /** @description Sortable ID (millisecond time and a random part). */
      id: string;
      /** @description What happened, e.g. `dag.run.queued` or `run:enqueued`. */
      type: string;
      /** @description When it was appended. */
      time: components['schemas']['Time'];
      /** @description Fields of the event (run_id, dag, ...), depending on its type. */
      data: {
        [key: string]: unknown;
      };
    };
    /** @description A slice of the event log. */
    EventListing: {
      /** @description Oldest first. */
      events: components['schemas']['EventRecord'][];
      /** @description Pass as `after` next time; the request's `after` when there was no event, null when neither. */
      next_after: string | null;
    };
    /** @description The API is up. */
    Health: {
      /**
       * @description Always `ok`.
       * @constant
       */
      status: 'ok';
      /** @description The dagu version. */
      version?: string;
      /** @description The server's clock. */
      time?: components['schemas']['Time'];
    } & {
      [key: string]: unknown;
    };
    /** @description How the server is protected and whether this request is signed in. */
    SessionView: {
      /**
       * @description The configured auth.
       * @enum {string}
       */
      auth: 'none' | 'basic' | 'token';
      /** @description True when the request carries valid credentials (always true without auth). */
      authenticated: boolean;
      /** @description True when the server listens beyond loopback without auth. */
      exposed_without_auth: boolean;
      /** @description The address it listens on, `host:port`. */
      listen: string;
      /** @description Whether the console may create, edit, rename and delete DAG files (`server.permissions.write_dags`); without it the console shows DAGs read-only and those calls answer 403. */
      write_dags: boolean;
    };
    /** @description The token to sign in with. */
    SignInRequest: {
      /** @description The value of `auth.token`. */
      token: string;
    };
    /** @description A DAG file's text as the editor loads it. */
    DagSpec: {
      name: string;
      /** @description Path relative to the DAGs directory. */
      file: string;
      yaml: string;
      /** @description `sha256:<hex>` of the text; a save sends it back as `base_version`. */
      version: string;
      /** @description Whether this server lets the console write DAG files (`server.permissions.write_dags`). */
      writable: boolean;
    };
    ValidateDagSpecRequest: {
      yaml: string;
    };
    SaveDagSpecRequest: {
      yaml: string;
      /** @description The `version` the text was loaded at. */
      base_version: string;
    };
    /** @description One problem of a DAG text, placed by 1-based line and column. */
    SpecDiagnostic: {
      line: number | null;
      column: number | null;
      /** @description The key path, `steps[1].depends`; empty for YAML syntax. */
      field: string;
      message: string;
      /** @description As `dagu validate` prints it: `etl.yaml:3:5: steps[0].run: ...`. */
      text: string;
    };
    DagSpecCheck: {
      valid: boolean;
      errors: components['schemas']['SpecDiagnostic'][];
      /** @description Deprecated spellings and the like (the text is valid), placed at the field they name where it is found (else line and column are null); `text` reads `etl.yaml:4:5: warning: ...`. */
      warnings: components['schemas']['SpecDiagnostic'][];
    };
    /** @description A save refused because the text is not a valid DAG. */
    DagSpecInvalid: {
      error: components['schemas']['ErrorBody']['error'];
      errors: components['schemas']['SpecDiagnostic'][];
      warnings: components['schemas']['SpecDiagnostic'][];
    };
    /** @description A save refused because the file changed on disk; `current` is what it holds now. */
    DagSpecConflict: {
      error: components['schemas']['ErrorBody']['error'];
      current: {
        yaml: string;
        version: string;
      };
    };
    DagSaveResult: {
      name: string;
      file: string;
      version: string;
      warnings: components['schemas']['SpecDiagnostic'][];
    };
    CreateDagRequest: {
      /** @description The new DAG name: letters, digits, `_`, `-`, `.` (not leading, no `..`), at most 64. */
      name: string;
      /**
       * @description The starting text; default `hello`.
       * @enum {string}
       */
      template?: 'empty' | 'hello' | 'chained' | 'scheduled';
    };
    DagWriteResult: {
      name: string;
      file: string;
      version?: string;
    };
    RenameDagRequest: {
      new_name: string;
      /** @description When given, the rename is refused (409) if the file changed since this version. */
      base_version?: string;
    };
    DeleteDagRequest: {
      /** @description When given, the delete is refused (409) if the file changed since this version. */
      base_version?: string;
    };
    DagDeleteResult: {
      name: string;
      /** @constant */
      deleted: true;
    };
  };
  responses: {
    /** @description A parameter or body field is invalid (`bad_request`); the message names it. */
    BadRequest: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['ErrorBody'];
      };
    };
    /** @description Auth is configured and the request carries no valid credentials (`unauthorized`). */
    Unauthorized: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['ErrorBody'];
      };
    };
    /** @description A mutation sent by a page of another origin (`forbidden`), or a DAG file write while `server.permissions.write_dags` is false. */
    Forbidden: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['ErrorBody'];
      };
    };
    /** @description The DAG, run, step or route does not exist (`not_found`). */
    NotFound: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['ErrorBody'];
      };
    };
    /** @description The request is valid but the thing is in the wrong state (`conflict`), e.g. a run that is not queued or already finished; or no worker can take a run and waiting is off (`no_worker`); or the run is for the workers and no coordinator has been seen alive (`no_coordinator`, "no coordinators available"): nothing is recorded. */
    Conflict: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['ErrorBody'];
      };
    };
    /** @description The request body is larger than 64 KiB (`payload_too_large`). */
    PayloadTooLarge: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['ErrorBody'];
      };
    };
    /** @description A stored record could not be read (`corrupt_record`), the configuration is invalid (`config_error`), a dispatch could not be stored (`dispatch_failed`), a dequeued run's end could not be written (`dequeue_unrecorded`), or something unexpected (`internal`, no details). */
    InternalError: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['ErrorBody'];
      };
    };
  };
  parameters: {
    /** @description The DAG's name (its file name without `.yaml`). */
    DagName: string;
    /** @description The step's name (a handler step's name works too). */
    StepName: string;
    /** @description Which log (default stdout). */
    LogStream: 'stdout' | 'stderr';
    /** @description The run's ID. */
    RunId: string;
  };
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  getHealth: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The server is up. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Health'];
        };
      };
      500: components['responses']['InternalError'];
    };
  };
  getOverview: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The console's overview. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Overview'];
        };
      };
      401: components['responses']['Unauthorized'];
      500: components['responses']['InternalError'];
    };
  };
  listDags: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The DAGs, by name. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DagList'];
        };
      };
      401: components['responses']['Unauthorized'];
      500: components['responses']['InternalError'];
    };
  };
  createDag: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateDagRequest'];
      };
    };
    responses: {
      /** @description The DAG file was created. */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DagWriteResult'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      409: components['responses']['Conflict'];
      413: components['responses']['PayloadTooLarge'];
      500: components['responses']['InternalError'];
    };
  };
  getDag: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The DAG's name (its file name without `.yaml`). */
        name: components['parameters']['DagName'];
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The DAG. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DagDetail'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      404: components['responses']['NotFound'];
      500: components['responses']['InternalError'];
    };
  };
  getDagHistory: {
    parameters: {
      query?: {
        /** @description How many runs, newest first (1 to 100, default 30). */
        limit?: number;
      };
      header?: never;
      path: {
        /** @description The DAG's name (its file name without `.yaml`). */
        name: components['parameters']['DagName'];
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The history. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DagHistory'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      404: components['responses']['NotFound'];
      500: components['responses']['InternalError'];
    };
  };
  startDag: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The DAG's name (its file name without `.yaml`). */
        name: components['parameters']['DagName'];
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': components['schemas']['StartRequest'];
      };
    };
    responses: {
      /** @description The run was started, handed to a worker, or is held until a worker matches. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['StartResult'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      404: components['responses']['NotFound'];
      409: components['responses']['Conflict'];
      413: components['responses']['PayloadTooLarge'];
      500: components['responses']['InternalError'];
    };
  };
  suspendDag: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The DAG's name (its file name without `.yaml`). */
        name: components['parameters']['DagName'];
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['SuspendRequest'];
      };
    };
    responses: {
      /** @description The DAG's schedule state now (`changed` false when it already was in that state). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SuspendState'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      404: components['responses']['NotFound'];
      413: components['responses']['PayloadTooLarge'];
      500: components['responses']['InternalError'];
    };
  };
  enqueueDag: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The DAG's name (its file name without `.yaml`). */
        name: components['parameters']['DagName'];
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': components['schemas']['EnqueueRequest'];
      };
    };
    responses: {
      /** @description The new run's record (status `queued`). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RunStatus'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      404: components['responses']['NotFound'];
      409: components['responses']['Conflict'];
      413: components['responses']['PayloadTooLarge'];
      500: components['responses']['InternalError'];
    };
  };
  getDagSpec: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The DAG's name (its file name without `.yaml`). */
        name: components['parameters']['DagName'];
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The text. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DagSpec'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      404: components['responses']['NotFound'];
      500: components['responses']['InternalError'];
    };
  };
  saveDagSpec: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The DAG's name (its file name without `.yaml`). */
        name: components['parameters']['DagName'];
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['SaveDagSpecRequest'];
      };
    };
    responses: {
      /** @description Saved. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DagSaveResult'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      404: components['responses']['NotFound'];
      /** @description The file changed on disk since `base_version` was read; nothing was written. */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DagSpecConflict'];
        };
      };
      413: components['responses']['PayloadTooLarge'];
      /** @description The text is not a valid DAG (`invalid_dag`); nothing was written. */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DagSpecInvalid'];
        };
      };
      500: components['responses']['InternalError'];
    };
  };
  validateDagSpec: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The DAG's name (its file name without `.yaml`). */
        name: components['parameters']['DagName'];
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['ValidateDagSpecRequest'];
      };
    };
    responses: {
      /** @description The errors (with line and column) and warnings. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DagSpecCheck'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      413: components['responses']['PayloadTooLarge'];
      500: components['responses']['InternalError'];
    };
  };
  renameDag: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The DAG's name (its file name without `.yaml`). */
        name: components['parameters']['DagName'];
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['RenameDagRequest'];
      };
    };
    responses: {
      /** @description Renamed. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DagWriteResult'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      404: components['responses']['NotFound'];
      409: components['responses']['Conflict'];
      413: components['responses']['PayloadTooLarge'];
      500: components['responses']['InternalError'];
    };
  };
  deleteDag: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The DAG's name (its file name without `.yaml`). */
        name: components['parameters']['DagName'];
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['DeleteDagRequest'];
      };
    };
    responses: {
      /** @description Deleted. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DagDeleteResult'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      404: components['responses']['NotFound'];
      409: components['responses']['Conflict'];
      413: components['responses']['PayloadTooLarge'];
      500: components['responses']['InternalError'];
    };
  };
  listQueue: {
    parameters: {
      query?: {
        /** @description Only runs of this local queue (held and dispatched runs have none). */
        queue?: components['schemas']['FilterText'];
        /** @description Only runs of this DAG. */
        dag?: components['schemas']['FilterText'];
        /** @description Only runs whose `selector_text` is exactly this (`{zone: b}`, `{}`); see `facets.selectors`. */
        selector?: components['schemas']['FilterText'];
        /** @description Only runs whose `reason` is this (e.g. `NoMatchingWorker`). */
        reason?: components['schemas']['FilterText'];
        /** @description At most this many items (default 200); `total` still counts all that passed the filter. */
        limit?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The queues and the waiting runs that pass the filter. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['QueueListing'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      500: components['responses']['InternalError'];
    };
  };
  cancelQueued: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CancelRequest'];
      };
    };
    responses: {
      /** @description One result per requested run, in request order; a run that could not be cancelled has `ok` false. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CancelResult'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      413: components['responses']['PayloadTooLarge'];
      500: components['responses']['InternalError'];
    };
  };
  listRuns: {
    parameters: {
      query?: {
        /** @description Only runs of this DAG. */
        dag?: string;
        /** @description Only runs in this state. */
        status?: components['schemas']['RunState'];
        /** @description Only runs that came to be this way (the latest attempt's `trigger_type`). */
        trigger?: components['schemas']['TriggerType'];
        /** @description Only runs whose labels pass every filter, separated by commas (as `dagu history --labels`): `key` (has the key), `key=value`, `!key` (lacks the key), or a glob with `*` and `?` (`team=*`, `env=prod-?`); case is ignored. A page may then hold fewer runs than `limit` while `next_cursor` continues the search: one request examines at most 5000 runs. */
        labels?: string;
        /** @description Only runs created at or after this time (RFC 3339 with a zone). */
        from?: string;
        /** @description Only runs created at or before this time (RFC 3339 with a zone). */
        to?: string;
        /** @description Page size (default 50). */
        limit?: number;
        /** @description The `next_cursor` of the previous page. */
        cursor?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One page of runs. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RunListPage'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      500: components['responses']['InternalError'];
    };
  };
  getRunTimings: {
    parameters: {
      query: {
        /** @description 1 to 100 run IDs separated by commas. */
        ids: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description One entry per distinct ID, in the order given; `status` null for a run that cannot be read. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RunTimings'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      500: components['responses']['InternalError'];
    };
  };
  getRun: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The run's ID. */
        id: components['parameters']['RunId'];
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The run's status. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RunStatus'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      404: components['responses']['NotFound'];
      500: components['responses']['InternalError'];
    };
  };
  stopRun: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The run's ID. */
        id: components['parameters']['RunId'];
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The run stopped now (dequeued or aborted), or its local process was signalled. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RunStatus'];
        };
      };
      /** @description The worker running it will stop it on its next heartbeat; the run ends `aborted` shortly. */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RunStatus'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      404: components['responses']['NotFound'];
      409: components['responses']['Conflict'];
      500: components['responses']['InternalError'];
    };
  };
  completeHumanTask: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The run's ID. */
        id: components['parameters']['RunId'];
        /** @description The human task's step id. */
        step: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': components['schemas']['HumanTaskCompletion'];
      };
    };
    responses: {
      /** @description The task is completed (now or before). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['HumanTaskCompletionResult'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      404: components['responses']['NotFound'];
      409: components['responses']['Conflict'];
      500: components['responses']['InternalError'];
    };
  };
  approveStep: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The run's ID. */
        id: components['parameters']['RunId'];
        /** @description The name of the step waiting for its approval. */
        step: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': components['schemas']['ApprovalInputs'];
      };
    };
    responses: {
      /** @description The step is approved. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ApprovalResult'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      404: components['responses']['NotFound'];
      409: components['responses']['Conflict'];
      500: components['responses']['InternalError'];
    };
  };
  rejectStep: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The run's ID. */
        id: components['parameters']['RunId'];
        /** @description The name of the step waiting for its approval. */
        step: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': components['schemas']['ApprovalRejection'];
      };
    };
    responses: {
      /** @description The step and the run are rejected. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ApprovalResult'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      404: components['responses']['NotFound'];
      409: components['responses']['Conflict'];
      500: components['responses']['InternalError'];
    };
  };
  pushBackStep: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The run's ID. */
        id: components['parameters']['RunId'];
        /** @description The name of the step waiting for its approval. */
        step: string;
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': components['schemas']['ApprovalInputs'];
      };
    };
    responses: {
      /** @description The step is pushed back and the run queued for resume. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ApprovalResult'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      404: components['responses']['NotFound'];
      409: components['responses']['Conflict'];
      500: components['responses']['InternalError'];
    };
  };
  retryRun: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The run's ID. */
        id: components['parameters']['RunId'];
      };
      cookie?: never;
    };
    requestBody?: {
      content: {
        'application/json': components['schemas']['RetryRequest'];
      };
    };
    responses: {
      /** @description The new attempt was started, handed to a worker, or is held until a worker matches. */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RetryResult'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      404: components['responses']['NotFound'];
      409: components['responses']['Conflict'];
      500: components['responses']['InternalError'];
    };
  };
  dequeueRun: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The run's ID. */
        id: components['parameters']['RunId'];
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The run's record after it was aborted. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RunStatus'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      404: components['responses']['NotFound'];
      409: components['responses']['Conflict'];
      500: components['responses']['InternalError'];
    };
  };
  getStepLog: {
    parameters: {
      query?: {
        /** @description Which log (default stdout). */
        stream?: 'stdout' | 'stderr';
        /** @description Only the last this many bytes (at most 1 MiB is ever returned). */
        tail?: number;
      };
      header?: never;
      path: {
        /** @description The run's ID. */
        id: components['parameters']['RunId'];
        /** @description The step's name (a handler step's name works too). */
        step: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The log or its tail. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['StepLog'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      404: components['responses']['NotFound'];
      500: components['responses']['InternalError'];
    };
  };
  listRunLogSources: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The run's ID. */
        id: components['parameters']['RunId'];
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Each step's stdout and stderr that has a file (a merged log is listed once, as stdout). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['LogSources'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      404: components['responses']['NotFound'];
      500: components['responses']['InternalError'];
    };
  };
  getStepLogLines: {
    parameters: {
      query?: {
        /** @description Which log (default stdout). */
        stream?: components['parameters']['LogStream'];
        /** @description First line, 0-based (default 0). */
        from?: number;
        /** @description Most lines to return (default 500, at most 2000). */
        limit?: number;
      };
      header?: never;
      path: {
        /** @description The run's ID. */
        id: components['parameters']['RunId'];
        /** @description The step's name (a handler step's name works too). */
        step: components['parameters']['StepName'];
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The lines (each cut at 4000 characters) and the file's size and line count now. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['LogLinePage'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      404: components['responses']['NotFound'];
      500: components['responses']['InternalError'];
    };
  };
  downloadStepLog: {
    parameters: {
      query?: {
        /** @description Which log (default stdout). */
        stream?: components['parameters']['LogStream'];
      };
      header?: never;
      path: {
        /** @description The run's ID. */
        id: components['parameters']['RunId'];
        /** @description The step's name (a handler step's name works too). */
        step: components['parameters']['StepName'];
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The file's bytes up to its size when asked (empty when the step wrote none yet). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/plain': string;
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      404: components['responses']['NotFound'];
      500: components['responses']['InternalError'];
    };
  };
  listRunArtifacts: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The run's ID. */
        id: components['parameters']['RunId'];
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Path and size of each artifact; empty when the run has none. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RunArtifacts'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      404: components['responses']['NotFound'];
      500: components['responses']['InternalError'];
    };
  };
  downloadRunArtifact: {
    parameters: {
      query: {
        /** @description The artifact's path relative to the run's artifacts directory; `..` and absolute paths are refused. */
        path: string;
      };
      header?: never;
      path: {
        /** @description The run's ID. */
        id: components['parameters']['RunId'];
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The file's bytes. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/octet-stream': string;
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      404: components['responses']['NotFound'];
      500: components['responses']['InternalError'];
    };
  };
  downloadRunLogs: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The run's ID. */
        id: components['parameters']['RunId'];
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The logs one after another (streamed). */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/plain': string;
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      404: components['responses']['NotFound'];
      500: components['responses']['InternalError'];
    };
  };
  searchRunLogs: {
    parameters: {
      query: {
        /** @description The text to find (1 to 200 characters). */
        q: string;
        /** @description Only this step's logs. */
        step?: string;
        /** @description Only this stream. */
        stream?: 'stdout' | 'stderr';
        /** @description Most matches (default 200, at most 1000). */
        limit?: number;
        /** @description Lines before and after each match (default 1, at most 5). */
        context?: number;
      };
      header?: never;
      path: {
        /** @description The run's ID. */
        id: components['parameters']['RunId'];
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The matches in log order. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['LogSearchResult'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      404: components['responses']['NotFound'];
      500: components['responses']['InternalError'];
    };
  };
  search: {
    parameters: {
      query: {
        /** @description The words to find (1 to 200 characters). */
        q: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The DAGs (best first, at most 50) and runs (at most 20) found. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SearchResult'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      500: components['responses']['InternalError'];
    };
  };
  streamEvents: {
    parameters: {
      query?: {
        /** @description Same as Last-Event-ID, for clients that cannot set headers. */
        after?: string;
      };
      header?: {
        /** @description The ID of the last event received; the events after it are sent first. */
        'Last-Event-ID'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description An endless text/event-stream: `retry:`, then `id:`/`data:` frames. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/event-stream': string;
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      500: components['responses']['InternalError'];
    };
  };
  listEvents: {
    parameters: {
      query?: {
        /** @description Only events of these types (repeat the parameter, at most 20), e.g. `dag.run.queued`. */
        type?: string[];
        /** @description Only events after the one with this id (the previous answer's `next_after`). */
        after?: string;
        /** @description At most this many events. */
        limit?: number;
        /** @description Long poll; answer as soon as a matching event exists, or with none once `wait` is over. */
        follow?: '0' | '1' | 'true' | 'false';
        /** @description Longest wait of a follow in milliseconds (default and at most 30000); only with follow. */
        wait?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The matching events. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['EventListing'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      500: components['responses']['InternalError'];
    };
  };
  listWorkers: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Every registered worker, healthy ones first. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WorkerListing'];
        };
      };
      401: components['responses']['Unauthorized'];
      500: components['responses']['InternalError'];
    };
  };
  getSession: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The session. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SessionView'];
        };
      };
      500: components['responses']['InternalError'];
    };
  };
  signIn: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['SignInRequest'];
      };
    };
    responses: {
      /** @description Signed in; the answer sets the cookie. */
      200: {
        headers: {
          /** @description `dagu_token=...; HttpOnly; SameSite=Strict; Path=/` */
          'Set-Cookie'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SessionView'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      409: components['responses']['Conflict'];
      413: components['responses']['PayloadTooLarge'];
      500: components['responses']['InternalError'];
    };
  };
  signOut: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Signed out; the answer expires the cookie. */
      200: {
        headers: {
          /** @description The `dagu_token` cookie, expired. */
          'Set-Cookie'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SessionView'];
        };
      };
      403: components['responses']['Forbidden'];
      500: components['responses']['InternalError'];
    };
  };
  getMetrics: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Gauges such as `dagu_scheduler_instances{status}`, queue depth per queue, runs by status, workers by status and held dispatches. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/plain': string;
        };
      };
      401: components['responses']['Unauthorized'];
      /** @description The metrics could not be collected. */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/plain': string;
        };
      };
    };
  };
  getLivez: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The process serves requests. */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/plain': 'ok\n';
        };
      };
    };
  };
}
