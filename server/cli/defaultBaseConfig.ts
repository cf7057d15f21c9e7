// The base.yaml written into a new DAGU_HOME with the example DAGs. Dagu writes one on first use, so a DAG
// run under a fresh Dagu install gets these values unless it sets its own; a fresh install here gets the
// same values, and with them the same behaviour (10 steps at once, missed slots of the last 6 hours replayed).

export const DEFAULT_BASE_CONFIG = `# Base config: every DAG of this home inherits the keys set here, unless it sets them itself.
# The env list is the exception: the base's entries come first and the DAG's are added after them.
# Each handler of handler_on is inherited on its own; sub-DAG runs do not inherit handlers.
# These are the values a fresh Dagu install writes. Delete a line to fall back to the built-in default
# (docs/dag-reference.md gives each one); delete the file and nothing is inherited.

# Steps without depends start at once and run side by side.
type: graph

# A slot that comes while the DAG's previous run is still going is skipped.
overlap_policy: skip

# Each step's stdout and stderr go to separate log files.
log_output: separate

# Runs, with their logs, are removed after 30 days (or keep the newest N with hist_retention_runs).
hist_retention_days: 30

# A stopped step gets this many seconds to end before it is killed.
max_clean_up_time_sec: 5

# At most this many steps of one run at once (0: no limit).
max_active_steps: 10

# A step's captured output (its output: variable) is cut at 1 MiB.
max_output_size: 1048576

# Slots missed while no scheduler was active are replayed when one becomes active, back this far.
catchup_window: "6h"

# Other keys a base often sets (see docs/dag-reference.md):
# env:
#   - ENVIRONMENT: production
# handler_on:
#   failure:
#     command: echo "run $DAG_RUN_ID of $DAG_NAME failed"
`;
