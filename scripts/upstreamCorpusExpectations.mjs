// What upstream Dagu's conformance tests (conformance/spec*/*_test.go of dagucloud/dagu) assert about their
// testdata files, restated as data for scripts/upstreamCorpus.mjs: which files `dagu validate` must reject,
// and, for a representative set, what `dagu start` must do (exit code, files written and their content).
// These are facts read from those tests; the DAG files themselves stay in the upstream checkout.

/**
 * Files whose upstream test expects `dagu validate` to fail, per conformance folder.
 * @type {Record<string, string[]>}
 */
export const INVALID = {
  spec002_schema: [
    'invalid_yaml.yaml',
    'no_non_empty_document.yaml',
    'entrypoint_name_forbidden.yaml',
    'steps_mapping_forbidden.yaml',
    'missing_steps.yaml',
    'empty_steps.yaml',
    'unknown_root_field.yaml',
    'duplicate_root_keys.yaml',
    'empty_document.yaml',
    'later_document_without_name.yaml',
    'duplicate_document_names.yaml',
  ],
  spec004_consts: [
    'consts_mapping_form.yaml',
    'consts_scalar_entry.yaml',
    'consts_multi_key_entry.yaml',
    'consts_invalid_key.yaml',
    'consts_object_value.yaml',
    'consts_non_finite_number.yaml',
  ],
  spec005_params: ['invalid_param_declaration_name.yaml'],
  spec006_env: [
    'invalid_env_declaration_name.yaml',
    'invalid_env_declaration_shape.yaml',
    'invalid_env_list_entry.yaml',
    'invalid_secret_managed_name.yaml',
    'invalid_secret_execution_attempt_name.yaml',
    'invalid_secret_dagu_output_file_name.yaml',
    'invalid_secret_dagu_prefix_name.yaml',
    'invalid_secret_pushback_name.yaml',
  ],
  spec009_step_reference: [
    'invalid_duplicate_id.yaml',
    'invalid_trimmed_duplicate_id.yaml',
    'invalid_duplicate_name.yaml',
    'invalid_id_syntax.yaml',
    'invalid_reserved_id.yaml',
    'invalid_id_too_long.yaml',
    'invalid_name_too_long.yaml',
    'invalid_name_utf8_byte_length.yaml',
    'invalid_id_name_conflict.yaml',
    'invalid_dependency_case_mismatch.yaml',
    'invalid_dependency_untrimmed.yaml',
    'invalid_depends_shape.yaml',
    'invalid_chain_depends_empty.yaml',
    'invalid_unknown_dependency.yaml',
  ],
  spec012_step_outputs: [
    'invalid_outputs_null.yaml',
    'invalid_outputs_empty.yaml',
    'invalid_outputs_missing_id.yaml',
    'invalid_outputs_missing_name.yaml',
    'invalid_outputs_invalid_name.yaml',
    'invalid_outputs_duplicate.yaml',
    'invalid_outputs_unknown_field.yaml',
    'invalid_outputs_invalid_type.yaml',
  ],
  spec018_parallel_foreach: [
    'parallel_unknown_object_field.yaml',
    'parallel_max_concurrent_float.yaml',
    'parallel_max_concurrent_too_high.yaml',
    'parallel_nested_mapping_item.yaml',
    'parallel_nested_array_item.yaml',
  ],
  spec022_mcp_change_tool: ['invalid_malformed_yaml.yaml'],
  spec023_preconditions: [
    'invalid_preconditions_object.yaml',
    'invalid_array_item_scalar.yaml',
    'invalid_string_empty.yaml',
    'invalid_missing_condition.yaml',
    'invalid_condition_and_eval.yaml',
    'invalid_condition_empty.yaml',
    'invalid_condition_non_string.yaml',
    'invalid_eval_empty.yaml',
    'invalid_eval_non_string.yaml',
    'invalid_eval_without_expected.yaml',
    'invalid_expected_non_string.yaml',
    'invalid_expected_empty.yaml',
    'invalid_negate_non_bool.yaml',
    'invalid_unknown_field.yaml',
    'invalid_legacy_command.yaml',
    'invalid_regex.yaml',
    'invalid_regex_empty.yaml',
    // Its test only starts it (exit 1), but upstream's loader refuses the pattern (internal/spec/builder.go).
    'negate_invalid_regex_fails.yaml',
  ],
  spec030_git_worktree_action: [
    'invalid_action.yaml',
    'invalid_add_branch_empty.yaml',
    'invalid_add_branch_non_string.yaml',
    'invalid_add_path_empty.yaml',
    'invalid_add_path_non_string.yaml',
    'invalid_add_create_branch_non_boolean.yaml',
    'invalid_add_base_empty.yaml',
    'invalid_add_base_non_string.yaml',
    'invalid_add_base_without_create_branch.yaml',
    'invalid_add_unknown_field.yaml',
    'invalid_add_force.yaml',
    'invalid_remove_selector_missing.yaml',
    'invalid_remove_branch_empty.yaml',
    'invalid_remove_branch_non_string.yaml',
    'invalid_remove_path_empty.yaml',
    'invalid_remove_path_non_string.yaml',
    'invalid_remove_force_non_boolean.yaml',
    'invalid_remove_delete_branch_non_boolean.yaml',
    'invalid_remove_delete_without_branch.yaml',
    'invalid_remove_force_delete_branch_non_boolean.yaml',
    'invalid_remove_force_delete_without_delete_branch.yaml',
    'invalid_remove_unknown_field.yaml',
  ],
  spec031_human_task: [
    'invalid_missing_id.yaml',
    'invalid_prompt.yaml',
    'invalid_with_field.yaml',
    'invalid_form_null.yaml',
    'invalid_form_root.yaml',
    'invalid_form_property.yaml',
    'invalid_form_required.yaml',
    'invalid_form_additional_properties.yaml',
    'invalid_execution_field.yaml',
    'invalid_lifecycle_field.yaml',
    'invalid_output_field.yaml',
    'invalid_foreach_human_task.yaml',
    'invalid_handler_human_task.yaml',
  ],
  spec032_agent: [
    'invalid_missing_llm.yaml',
    'invalid_no_tasks.yaml',
    'invalid_duplicate_task.yaml',
    'invalid_depends.yaml',
    'invalid_reserved_step_name.yaml',
    'invalid_tasks_without_agent.yaml',
    'invalid_unknown_type.yaml',
  ],
  spec035_file_dependencies: ['value-reference.yaml'],
};

/**
 * Files upstream's validate accepts whose `dagu start` fails: a dependency cycle (found only at start) and a
 * bad regular expression in a step precondition (found when the step is reached).
 * @type {Record<string, string[]>}
 */
export const START_FAILS = {
  spec009_step_reference: ['invalid_cycle.yaml'],
};

/**
 * What a case's test makes before its start: folders, files, executable scripts (the harness's
 * WriteExecutable), git repositories on `main` with one commit of base.txt (as spec030's initRepository
 * makes them), and earlier `dagu start` runs in the same project (each must exit 0), with the files to
 * delete after each (as spec030's resetActionFiles does between an add and a remove).
 * @typedef {object} RunSetup
 * @property {string[]} [dirs]
 * @property {Record<string, string>} [files]
 * @property {Record<string, string>} [executables]
 * @property {string[]} [repos]
 * @property {{ file: string, params?: string, remove?: string[] }[]} [starts]
 */

/**
 * One `dagu start` case of a conformance folder: the file, upstream's `--params` string and other flags,
 * extra environment, what the test creates first, and the expected outcome.
 * @typedef {object} RunCase
 * @property {string} spec conformance folder
 * @property {string} file
 * @property {string} [params]
 * @property {string[]} [flags]
 * @property {Record<string, string>} [env] `{project}` in a value stands for the case's project folder
 * @property {boolean} [refusedAtLoad] upstream's loader refuses the file, so the exit code its test states is
 *   the one upstream gives every refused file (1); ours gives those 2, which is what the run is held to
 * @property {string[]} [tools] commands the case's steps run besides a shell's (`go`): without one on PATH the
 *   case is reported as not run, never as a match or a difference
 * @property {RunSetup} [setup]
 * @property {import('./upstreamCorpusLib.mjs').RunExpectation} expect
 */

const P = 'environment=prod';

// Field values spec030's readAddResult and readRemoveResult require: present with any value, not empty
// (require.NotEmpty), parsing as a boolean (strconv.ParseBool) and parsing as true (require.True).
const ANY = /^/;
const SET = /./;
const BOOL = /^(?:[01tTfF]|true|TRUE|True|false|FALSE|False)$/;
const TRUE = /^(?:[1tT]|true|TRUE|True)$/;
/** The files spec030's resetActionFiles deletes between an add and a remove. */
const ACTION_FILES = ['action-outputs.txt', 'action-stderr.txt'];

/** @param {string} spec @param {string} file @param {string} out @param {string} content @param {Partial<RunCase>} [more] @returns {RunCase} */
function writes(spec, file, out, content, more = {}) {
  return { spec, file, ...more, expect: { exit: 0, files: { [out]: content }, ...more.expect } };
}

/**
 * spec005's stream artifact cases: started with `--run-id <runId>` and environment=prod, then with
 * `--run-id <runId>_missing` and no params. Each time exactly one file of the artifacts folder, in a run
 * folder named `dag-run_*_<run id>`, holds the stream, under `reports/prod/`, or without the param under the
 * literal `reports/${params.environment}/`.
 * @param {string} file @param {string} dag @param {string} runId @param {'stdout' | 'stderr'} stream
 * @returns {RunCase[]}
 */
function streamArtifact(file, dag, runId, stream) {
  const at = (id, folder) => `artifacts/${dag}/dag-run_*_${id}/reports/${folder}/${stream}.txt`;
  const missing = `${runId}_missing`;
  return [
    {
      spec: 'spec005_params',
      file,
      params: P,
      flags: ['--run-id', runId],
      expect: { exit: 0, globs: { [at(runId, 'prod')]: 'prod\n' } },
    },
    {
      spec: 'spec005_params',
      file,
      flags: ['--run-id', missing],
      expect: { exit: 0, globs: { [at(missing, '${params.environment}')]: 'prod\n' } },
    },
  ];
}

/** @type {RunCase[]} */
export const RUNS = [
  // spec004: consts
  writes(
    'spec004_consts',
    'runtime_const_resolution.yaml',
    'resolved.txt',
    'https://example.test/api/true/3/1.25\n',
  ),
  writes(
    'spec004_consts',
    'single_quoted_env_references.yaml',
    'single-quoted-env.txt',
    '$SOURCE\n${SOURCE}\n',
  ),
  writes(
    'spec004_consts',
    'unbraced_consts_text_is_preserved.yaml',
    'unbraced-consts.txt',
    '$consts.service\n',
  ),
  writes(
    'spec004_consts',
    'braced_non_reference_text_is_preserved.yaml',
    'braced-non-reference.txt',
    '${consts.service.name}\n',
  ),
  writes('spec004_consts', 'unknown_const_reference.yaml', 'unknown-const.txt', '${consts.missing}\n'),
  // spec005: params (with the named params the test passes, and without them)
  writes(
    'spec005_params',
    'runtime_resolution.yaml',
    'resolved.txt',
    'environment=prod\ntag=v1\nenabled=true\nreplicas=3\nratio=1.25\n',
    {
      params: 'environment=prod tag=v1 enabled=true replicas=3 ratio=1.25',
    },
  ),
  {
    spec: 'spec005_params',
    file: 'root_params_payload.yaml',
    params: 'environment=prod tag=v1',
    expect: { exit: 0, contains: { 'params-payload.txt': ['"environment":"prod"', '"tag":"v1"'] } },
  },
  writes(
    'spec005_params',
    'root_params_payload_unavailable.yaml',
    'params-payload-unavailable.txt',
    '${params}\n',
  ),
  writes(
    'spec005_params',
    'params_reference_in_consts_runtime.yaml',
    'params-in-consts.txt',
    '${params.environment}\n',
    { params: P },
  ),
  writes(
    'spec005_params',
    'params_default_literal.yaml',
    'params-default-literal.txt',
    '${params.environment}\n',
  ),
  writes('spec005_params', 'non_dagu_braced_text_is_preserved.yaml', 'preserved.txt', '${params...}\n'),
  writes(
    'spec005_params',
    'unbraced_params_text_is_preserved.yaml',
    'unbraced-params.txt',
    '$params.environment\n',
  ),
  writes(
    'spec005_params',
    'missing_runtime_literal_run.yaml',
    'missing-runtime-literal.txt',
    '${params.environment}\n',
  ),
  writes('spec005_params', 'params_eval_runtime.yaml', 'params-eval.txt', 'prod-api\n', { params: P }),
  writes('spec005_params', 'params_eval_runtime.yaml', 'params-eval.txt', '${params.environment}-api\n'),
  writes('spec005_params', 'root_env.yaml', 'root-env.txt', 'prod\n', { params: P }),
  writes('spec005_params', 'root_env.yaml', 'root-env.txt', '${params.environment}\n'),
  writes('spec005_params', 'env_list_forms.yaml', 'env-list-forms.txt', 'prod\nprod\nprod\nprod\n', {
    params: P,
  }),
  writes('spec005_params', 'dotenv.yaml', 'dotenv.txt', 'prod\n', {
    params: P,
    setup: {
      files: { '.env.prod': 'DOTENV_VALUE=prod\n', '.env.${params.environment}': 'DOTENV_VALUE=literal\n' },
    },
  }),
  writes('spec005_params', 'root_shell_array_args.yaml', 'root-shell-array-args.txt', 'prod\n', {
    params: 'shell_arg=-c',
  }),
  writes('spec005_params', 'root_shell_string.yaml', 'root-shell-string.txt', 'prod\n', {
    params: 'shell_arg=-c',
  }),
  writes('spec005_params', 'root_working_dir.yaml', 'root-work-prod/root-working-dir.txt', 'prod\n', {
    params: P,
    setup: { dirs: ['root-work-prod', 'root-work-${params.environment}'] },
  }),
  writes('spec005_params', 'root_precondition.yaml', 'root-precondition.txt', 'prod\n', {
    params: P,
    expect: { absent: ['root-precondition-literal.txt'] },
  }),
  writes('spec005_params', 'step_run_array.yaml', 'step-run-array.txt', 'prod\n', { params: P }),
  writes('spec005_params', 'step_env.yaml', 'step-env.txt', 'prod\n', { params: P }),
  writes('spec005_params', 'step_working_dir.yaml', 'step-work-prod/step-working-dir.txt', 'prod\n', {
    params: P,
    setup: { dirs: ['step-work-prod', 'step-work-${params.environment}'] },
  }),
  writes('spec005_params', 'step_precondition.yaml', 'step-precondition.txt', 'prod\n', {
    params: P,
    expect: { absent: ['step-precondition-literal.txt'] },
  }),
  writes('spec005_params', 'step_repeat_policy_condition.yaml', 'repeat-condition.txt', 'prod\n', {
    params: P,
  }),
  {
    spec: 'spec005_params',
    file: 'parallel_variable.yaml',
    params: 'items=prod',
    expect: { exit: 0, contains: { 'parallel-variable.txt': ['"succeeded": 1', '"CHILD_VALUE": "prod"'] } },
  },
  writes('spec005_params', 'step_stdout_path.yaml', 'stdout-prod.txt', 'prod\n', { params: P }),
  writes('spec005_params', 'step_stderr_path.yaml', 'stderr-prod.txt', 'prod\n', { params: P }),
  ...streamArtifact(
    'step_stdout_artifact.yaml',
    'spec005-step-stdout-artifact',
    'spec005_stdout_artifact',
    'stdout',
  ),
  ...streamArtifact(
    'step_stderr_artifact.yaml',
    'spec005-step-stderr-artifact',
    'spec005_stderr_artifact',
    'stderr',
  ),
  writes('spec005_params', 'step_output_value.yaml', 'output-value.txt', 'prod\n', { params: P }),
  writes('spec005_params', 'handler_run_array.yaml', 'handler-run-array.txt', 'prod\n', { params: P }),
  writes('spec005_params', 'handler_env.yaml', 'handler-env.txt', 'prod\n', { params: P }),
  writes(
    'spec005_params',
    'handler_working_dir.yaml',
    'handler-work-prod/handler-working-dir.txt',
    'prod\n',
    {
      params: P,
      setup: { dirs: ['handler-work-prod', 'handler-work-${params.environment}'] },
    },
  ),
  writes('spec005_params', 'handler_stdout_path.yaml', 'handler-stdout-prod.txt', 'prod\n', { params: P }),
  ...streamArtifact(
    'handler_stdout_artifact.yaml',
    'spec005-handler-stdout-artifact',
    'spec005_handler_stdout_artifact',
    'stdout',
  ),
  ...streamArtifact(
    'handler_stderr_artifact.yaml',
    'spec005-handler-stderr-artifact',
    'spec005_handler_stderr_artifact',
    'stderr',
  ),
  // spec006: env
  writes('spec006_env', 'env_forms_order.yaml', 'env-forms.txt', 'SERVICE=api\nHOST=api.internal\n'),
  writes(
    'spec006_env',
    'env_top_to_bottom.yaml',
    'env-order.txt',
    'SERVICE=api\nHOST=api.internal\nSELF=${env.SELF}\nLATER=$AFTER\n',
  ),
  writes(
    'spec006_env',
    'missing_env_references.yaml',
    'missing-env.txt',
    '${env.MISSING}\n$MISSING\n${MISSING}\n',
  ),
  writes('spec006_env', 'root_env_sources.yaml', 'root-sources.txt', 'COLOR=blue\nTARGET=prod\n', {
    params: 'target=prod',
  }),
  writes(
    'spec006_env',
    'step_env_sources.yaml',
    'step-env-sources.txt',
    'CONST=blue\nPARAM=prod\nROOT=api\nEARLIER=seed\nPREVIOUS=step-value\n',
    {
      params: 'target=prod',
    },
  ),
  writes(
    'spec006_env',
    'single_quoted_env_references.yaml',
    'single-quoted.txt',
    "'$SERVICE'\n'${SERVICE}'\n'api'\n",
  ),
  writes(
    'spec006_env',
    'shell_style_env_expressions.yaml',
    'shell-style.txt',
    'api\nfallback\nxx\nalternate\nxx\npi\n3\nteam/api.tar.gz\napi.tar.gz\nregistry/team/api.tar\nregistry\napi\nregistry/team/api.tar.gz\napi.tar.gz\nregistry/team/api.tar\napi\napi\n${MISSING:-default}\n${MISSING:4:10}\n${MISSING:=default}\n',
  ),
  writes(
    'spec006_env',
    'shell_style_assignment_preserves_field.yaml',
    'shell-style-assignment.txt',
    'api\napi\napi\n${SERVICE:-fallback}\n${EMPTY:=fallback}\n${EMPTY:-fallback}\nxx\n',
  ),
  writes('spec006_env', 'braced_non_env_text.yaml', 'braced-text.txt', '${not.env}\n${env}\n'),
  writes('spec006_env', 'shell_run_boundary.yaml', 'shell-boundary.txt', 'shell api\n'),
  // The two direct-execution cases run `go run ./write_arg.go` through the exec action, as upstream's do.
  writes('spec006_env', 'direct_execution_env_expansion.yaml', 'direct-exec.txt', 'api ${MISSING}\n', {
    tools: ['go'],
  }),
  {
    spec: 'spec006_env',
    file: 'duplicate_predecessor_outputs.yaml',
    expect: {
      exit: 0,
      files: {
        'duplicate-output-first-second.txt': 'second\n',
        'duplicate-output-second-first.txt': 'first\n',
        'duplicate-output-transitive.txt': 'ancestor\n',
        'duplicate-output-visit-once.txt': 'later\n',
      },
    },
  },
  writes(
    'spec006_env',
    'direct_execution_process_env_fallback.yaml',
    'direct-process-env.txt',
    'from-process\n',
    {
      env: { DIRECT_PROCESS_ONLY: 'from-process' },
      tools: ['go'],
    },
  ),
  {
    spec: 'spec006_env',
    file: 'protected_env_shadowing.yaml',
    expect: {
      exit: 0,
      files: {
        'protected-shadowing.txt':
          'root-env-read-workflow-shadow\nDAG_RUN_ID=step-shadow\nSTEP_COPY=step-shadow\n',
        'protected-final.txt': 'ROOT_COPY=root-shadow\nfinal-protected\nresolved-matches-process\n',
      },
    },
  },
  {
    spec: 'spec006_env',
    file: 'current_step_managed_env.yaml',
    expect: {
      exit: 0,
      files: {
        'current-step-managed-env.txt':
          'STEP_NAME_COPY=managed\nSTEP_NAME_PROCESS=authored-step-name\nSTEP_STDOUT_COPY=${env.DAG_RUN_STEP_STDOUT_FILE}\nOUTPUT_FILE_COPY=${env.DAGU_OUTPUT_FILE}\nmanaged-stdout-file\nmanaged-output-file\n',
        'current-step-managed-output.txt': 'published\n',
      },
    },
  },
  writes(
    'spec006_env',
    'action_with_no_process_env_fallback.yaml',
    'action-with-env.txt',
    '$ACTION_PROCESS_ONLY\n${ACTION_PROCESS_ONLY}\n',
    { env: { ACTION_PROCESS_ONLY: 'from-process' } },
  ),
  // spec007: step output references
  writes('spec007_value_resolution_steps', 'valid_reference.yaml', 'resolved-valid.txt', 'v1.2.3\n'),
  writes(
    'spec007_value_resolution_steps',
    'missing_dependency.yaml',
    'missing-dependency.txt',
    '${steps.build.outputs.image}\n',
  ),
  writes(
    'spec007_value_resolution_steps',
    'unknown_output_name.yaml',
    'unknown-output-name.txt',
    '${steps.build.outputs.tag}\n',
  ),
  writes(
    'spec007_value_resolution_steps',
    'namespace_root_env.yaml',
    'namespace-root-env.txt',
    '${steps.build.outputs.image}\n',
  ),
  writes(
    'spec007_value_resolution_steps',
    'namespace_handler.yaml',
    'handler-output.txt',
    '${steps.build.outputs.image}\n',
  ),
  writes(
    'spec007_value_resolution_steps',
    'legacy_outputs_not_step_outputs.yaml',
    'legacy-not-step-output.txt',
    '${steps.build.outputs.image}\n',
  ),
  writes(
    'spec007_value_resolution_steps',
    'quiet_unsupported_escaped.yaml',
    'quiet.txt',
    '${steps.build.outputs.image}\n${steps.build.outputs.meta.tag}\n${steps.build-step.outputs.image}\n${build.output.image}\n${step.xxx.foo}\n',
  ),
  // spec009: step ids, names and depends
  writes('spec009_step_reference', 'valid_id_dependency.yaml', 'id-dependency.txt', 'build\ndeploy\n'),
  writes('spec009_step_reference', 'valid_name_dependency.yaml', 'name-dependency.txt', 'build\ndeploy\n'),
  writes(
    'spec009_step_reference',
    'valid_trimmed_identity.yaml',
    'trimmed-identity.txt',
    'producer\nname\nid\n',
  ),
  writes(
    'spec009_step_reference',
    'valid_output_reference_by_id.yaml',
    'id-output-reference.txt',
    'from-id\n',
  ),
  writes(
    'spec009_step_reference',
    'notice_output_reference_by_name.yaml',
    'name-output-reference.txt',
    '${steps.build.outputs.artifact}\n',
  ),
  writes(
    'spec009_step_reference',
    'notice_handler_output_reference.yaml',
    'handler-output-reference.txt',
    '${steps.build.outputs.artifact}\n',
  ),
  {
    spec: 'spec009_step_reference',
    file: 'invalid_cycle.yaml',
    expect: { exit: 'nonzero', absent: ['cycle-first.txt', 'cycle-second.txt'] },
  },
  // spec011: params eval and command substitution
  writes('spec011_dynamic_evaluation', 'params_eval_backtick.yaml', 'backtick.txt', '20260131\n'),
  writes('spec011_dynamic_evaluation', 'params_eval_dollar.yaml', 'dollar.txt', '20260131\n'),
  writes(
    'spec011_dynamic_evaluation',
    'params_eval_reference_order.yaml',
    'reference-order.txt',
    'prod-api\n',
  ),
  writes('spec011_dynamic_evaluation', 'params_eval_env_order.yaml', 'env-order.txt', 'scope-prod\n', {
    env: { SPEC011_DYNAMIC_VALUE: 'scope' },
  }),
  writes(
    'spec011_dynamic_evaluation',
    'params_eval_failure_fallback.yaml',
    'fallback.txt',
    'fallback-date\n',
  ),
  writes(
    'spec011_dynamic_evaluation',
    'outside_params_eval_dollar_literal.yaml',
    'outside-dollar.txt',
    '$(printf should-not-run)\n',
  ),
  writes(
    'spec011_dynamic_evaluation',
    'outside_params_eval_backtick_literal.yaml',
    'outside-backtick.txt',
    '`printf should-not-run`\n',
  ),
  {
    spec: 'spec011_dynamic_evaluation',
    file: 'params_eval_failure_no_default.yaml',
    expect: { exit: 1, absent: ['should-not-run.txt'] },
  },
  // spec012: declared step outputs
  writes('spec012_step_outputs', 'valid_string_output.yaml', 'resolved-string.txt', 'v1.2.3\n'),
  writes(
    'spec012_step_outputs',
    'valid_string_output_with_heredoc_marker.yaml',
    'resolved-string-marker.txt',
    'prefix<<suffix\n',
  ),
  writes(
    'spec012_step_outputs',
    'valid_json_output.yaml',
    'resolved-json.txt',
    '{"image":"api","tag":"v1.2.3"}\n',
  ),
  {
    spec: 'spec012_step_outputs',
    file: 'stdout_is_not_output.yaml',
    expect: { exit: 1, absent: ['should-not-run.txt'] },
  },
  {
    spec: 'spec012_step_outputs',
    file: 'undeclared_output_write.yaml',
    expect: { exit: 1, absent: ['unexpected-success.txt'] },
  },
  // spec014: run as a command
  writes('spec014_step_run_command', 'single_command_success.yaml', 'single-command.out', 'hello\n'),
  writes('spec014_step_run_command', 'shell_operators.yaml', 'operators.txt', 'beta\n'),
  writes('spec014_step_run_command', 'background_wait.yaml', 'background-wait.txt', 'done\n'),
  writes('spec014_step_run_command', 'array_streams.yaml', 'array-stdout.txt', 'out1\nout2\n'),
  writes('spec014_step_run_command', 'array_fresh_state.yaml', 'array-fresh.txt', 'fresh\n'),
  writes('spec014_step_run_command', 'array_outputs_success.yaml', 'array-outputs.txt', 'one:two\n'),
  writes('spec014_step_run_command', 'working_directory.yaml', 'workspace/cwd.txt', 'workspace\n'),
  writes('spec014_step_run_command', 'relative_path_explicit.yaml', 'relative-path.txt', 'relative-ok\n'),
  {
    // The shim stands for a shell the runner does not know: it records its arguments and runs `sh -c`.
    spec: 'spec014_step_run_command',
    file: 'other_shell_fallback.yaml',
    setup: {
      executables: {
        'other-shell-shim': String.raw`#!/bin/sh
printf '%s\n' "$@" > other-shell-args.txt
if [ "$1" = "-c" ]; then
  shift
  exec sh -c "$1"
fi
exit 64
`,
      },
    },
    expect: {
      exit: 0,
      files: {
        'other-shell-args.txt': "-c\nprintf 'other-ok\\n' > other-shell.txt\n",
        'other-shell.txt': 'other-ok\n',
      },
    },
  },
  {
    spec: 'spec014_step_run_command',
    file: 'default_errexit.yaml',
    expect: { exit: 1, files: { 'default-errexit.txt': 'before\n' } },
  },
  {
    spec: 'spec014_step_run_command',
    file: 'array_stop_on_failure.yaml',
    expect: { exit: 1, files: { 'array-stop.txt': 'first\n' }, absent: ['array-third.txt'] },
  },
  {
    spec: 'spec014_step_run_command',
    file: 'array_outputs_failure.yaml',
    expect: { exit: 1, notContains: { 'array-output-failure.txt': ['value'] } },
  },
  {
    spec: 'spec014_step_run_command',
    file: 'resolved_line_break.yaml',
    expect: { exit: 1, absent: ['line-break-ran.txt'] },
  },
  {
    spec: 'spec014_step_run_command',
    file: 'invalid_unix_carrier.yaml',
    expect: { exit: 1, absent: ['invalid-carrier.txt'] },
  },
  {
    spec: 'spec014_step_run_command',
    file: 'bare_lookup_not_added.yaml',
    expect: { exit: 1, absent: ['bare-lookup-ran.txt'] },
  },
  // spec015: run as a script
  writes('spec015_step_run_script', 'multiline_state.yaml', 'multiline-state.txt', 'prod\n'),
  writes('spec015_step_run_script', 'operators_preserved.yaml', 'operators-preserved.txt', 'beta\n'),
  writes(
    'spec015_step_run_script',
    'leading_blank_shebang_ignored.yaml',
    'leading-blank-shebang.txt',
    'not-a-shebang\n',
  ),
  writes(
    'spec015_step_run_script',
    'shebang_root_shell_bypass.yaml',
    'root-shell-bypass.txt',
    'shebang-won\n',
  ),
  writes(
    'spec015_step_run_script',
    'step_shell_suppresses_shebang.yaml',
    'step-shell-suppresses-shebang.txt',
    'step-shell-won\n',
  ),
  writes('spec015_step_run_script', 'background_wait.yaml', 'background-wait.txt', 'done\n'),
  writes('spec015_step_run_script', 'valid_outputs.yaml', 'outputs-valid.txt', 'from-script\n'),
  {
    spec: 'spec015_step_run_script',
    file: 'default_fail_fast.yaml',
    expect: { exit: 1, files: { 'default-fail-fast.txt': 'before\n' } },
  },
  {
    spec: 'spec015_step_run_script',
    file: 'unix_reject_c_carrier.yaml',
    expect: { exit: 1, absent: ['carrier-ran.txt'] },
  },
  {
    spec: 'spec015_step_run_script',
    file: 'invalid_outputs.yaml',
    expect: { exit: 1, absent: ['invalid-output-downstream.txt'] },
  },
  // spec017: built-in run context
  {
    spec: 'spec017_built_in_run_context',
    file: 'runtime_context.yaml',
    flags: [
      '--run-id',
      'spec017-run',
      '--trigger-type',
      'scheduler',
      '--schedule-time',
      '2026-03-13T10:00:00+09:00',
    ],
    expect: {
      exit: 0,
      contains: {
        'run-context.txt': [
          'dag=builtin_runtime_context',
          'run=spec017-run',
          'root_name=${context.run.root_name}',
          'root_id=${context.run.root_id}',
          'root_env=spec017-run',
          'trigger=scheduler',
          'scheduled=2026-03-13T01:00:00Z',
          'attempt=',
          'step_id=capture',
          'step_name=capture',
          'env_run=spec017-run',
          'env_step=capture',
          'paths_ready=yes',
        ],
      },
      notContains: {
        'run-context.txt': [
          '${context.attempt.id}',
          '${context.attempt.started_at}',
          '${context.paths.step_stdout_file}',
          '${context.paths.step_stderr_file}',
          '${context.paths.step_output_file}',
        ],
      },
    },
  },
  {
    spec: 'spec017_built_in_run_context',
    file: 'handler_context.yaml',
    flags: ['--run-id', 'spec017-handler'],
    expect: {
      exit: 0,
      contains: {
        'handler-context.txt': [
          'status=succeeded',
          'env_status=succeeded',
          'run=spec017-handler',
          'env_stdout=UNSET',
          'env_stderr=UNSET',
        ],
      },
      notContains: { 'handler-context.txt': ['${context.run.status}'] },
    },
  },
  {
    spec: 'spec017_built_in_run_context',
    file: 'legacy_aliases.yaml',
    flags: ['--run-id', 'spec017-legacy'],
    expect: {
      exit: 0,
      contains: {
        'legacy-context-aliases.txt': [
          'dag=builtin_legacy_context_aliases',
          'run=spec017-legacy',
          'started=',
          'attempt=',
          'step=capture',
        ],
      },
      notContains: {
        'legacy-context-aliases.txt': [
          '${dag.name}',
          '${run.id}',
          '${run.started_at}',
          '${attempt.id}',
          '${step.name}',
        ],
      },
    },
  },
  writes(
    'spec017_built_in_run_context',
    'unsupported_context_text.yaml',
    'unsupported-context.txt',
    '${context.paths.context}\n${context.trigger.payload}\n${context.run.foo}\n${context.run.id.extra}\n${unrelated.context}\n',
  ),
  // spec018: parallel
  {
    spec: 'spec018_parallel_foreach',
    file: 'parallel_string_items.yaml',
    expect: {
      exit: 0,
      contains: {
        'parallel-string-results.txt': [
          '"total": 2',
          '"succeeded": 2',
          '"CHILD_VALUE": "alpha"',
          '"CHILD_VALUE": "beta"',
        ],
      },
    },
  },
  {
    spec: 'spec018_parallel_foreach',
    file: 'parallel_dag_run_object_items.yaml',
    expect: {
      exit: 0,
      contains: {
        'parallel-object-results.txt': [
          '"total": 2',
          '"succeeded": 2',
          '"CHILD_VALUE": "acct-1/us"',
          '"CHILD_VALUE": "acct-2/eu"',
        ],
      },
    },
  },
  // spec018: foreach (the inline loop)
  {
    spec: 'spec018_parallel_foreach',
    file: 'foreach_success_collect.yaml',
    expect: {
      exit: 0,
      contains: {
        'foreach-success-results.txt': [
          '"total":2',
          '"succeeded":2',
          '"failed":0',
          '"key":"one"',
          '"key":"two"',
          '"markdown":"https://example.com/one"',
          '"markdown":"https://example.com/two"',
        ],
      },
    },
  },
  {
    spec: 'spec018_parallel_foreach',
    file: 'foreach_string_items.yaml',
    expect: {
      exit: 0,
      contains: { 'foreach-string-results.txt': ['"total":2', '"markdown":"alpha"', '"markdown":"beta"'] },
    },
  },
  {
    spec: 'spec018_parallel_foreach',
    file: 'foreach_zero_items.yaml',
    expect: {
      exit: 0,
      contains: {
        'foreach-zero-results.txt': ['"total":0', '"succeeded":0', '"items":[]', '"outputs":[]'],
      },
    },
  },
  {
    spec: 'spec018_parallel_foreach',
    file: 'foreach_duplicate_keys.yaml',
    expect: { exit: 1, absent: ['foreach-duplicate-body-ran.txt'] },
  },
  {
    spec: 'spec018_parallel_foreach',
    file: 'foreach_non_json_string_items.yaml',
    expect: { exit: 1, absent: ['foreach-non-json-ran.txt'] },
  },
  // spec019: sub-DAG working directory
  {
    spec: 'spec019_sub_dag_working_directory',
    file: 'parent_workdir_not_inherited.yaml',
    expect: { exit: 0 },
  },
  {
    spec: 'spec019_sub_dag_working_directory',
    file: 'parallel_children_default_workdir.yaml',
    expect: {
      exit: 0,
      contains: {
        'parallel-workdir-results.txt': [
          '"total": 2',
          '"succeeded": 2',
          '"CHILD_INFO"',
          'item=alpha',
          'item=beta',
        ],
      },
      absent: ['collision.txt'],
    },
  },
  {
    spec: 'spec019_sub_dag_working_directory',
    file: 'base_config_child_working_dir.yaml',
    setup: { files: { 'base.yaml': 'working_dir: base-child-work\n' } },
    env: { DAGU_BASE_CONFIG: '{project}/base.yaml' },
    expect: {
      exit: 0,
      contains: {
        'base-config-child-results.txt': [
          '"CHILD_INFO"',
          'cwd=base-child-work',
          'comparison=different',
          'context=same',
        ],
      },
    },
  },
  {
    spec: 'spec019_sub_dag_working_directory',
    file: 'explicit_child_working_dir.yaml',
    expect: {
      exit: 0,
      contains: {
        'explicit-child-results.txt': [
          '"CHILD_INFO"',
          'cwd=shared-child-work',
          'comparison=different',
          'context=same',
        ],
      },
    },
  },
  // spec023: preconditions
  writes('spec023_preconditions', 'root_value_match_backtick.yaml', 'root-backtick.txt', 'root\n'),
  writes('spec023_preconditions', 'step_value_match_backtick.yaml', 'step-backtick.txt', 'step\n'),
  writes('spec023_preconditions', 'step_value_match_dollar.yaml', 'step-dollar.txt', 'dollar\n'),
  writes(
    'spec023_preconditions',
    'value_match_params_eval.yaml',
    'params-eval-precondition.txt',
    'params-eval\n',
  ),
  writes('spec023_preconditions', 'value_match_eval.yaml', 'workspace/eval-precondition.txt', 'eval\n', {
    setup: { dirs: ['workspace'], files: { 'workspace/ready.flag': '' } },
  }),
  writes('spec023_preconditions', 'value_match_resolves_refs_first.yaml', 'refs-first.txt', 'refs\n'),
  writes('spec023_preconditions', 'value_match_step_context.yaml', 'workspace/context-ran.txt', 'context\n', {
    setup: { dirs: ['workspace'] },
  }),
  {
    spec: 'spec023_preconditions',
    file: 'root_value_match_not_met_aborts.yaml',
    expect: {
      files: { 'abort-ran.txt': 'abort\n' },
      absent: ['init-ran.txt', 'failure-ran.txt', 'main-ran.txt'],
    },
  },
  {
    spec: 'spec023_preconditions',
    file: 'root_value_match_substitution_literal_aborts.yaml',
    expect: {
      exit: 0,
      files: { 'abort-ran.txt': 'abort\n' },
      absent: ['init-ran.txt', 'failure-ran.txt', 'main-ran.txt', 'root-substitution-ran.txt'],
    },
  },
  {
    spec: 'spec023_preconditions',
    file: 'root_command_check_not_met_aborts.yaml',
    expect: {
      files: { 'abort-ran.txt': 'abort\n' },
      absent: ['init-ran.txt', 'failure-ran.txt', 'main-ran.txt'],
    },
  },
  writes(
    'spec023_preconditions',
    'root_value_match_context.yaml',
    'rootctx/root-context-ran.txt',
    'root-context\n',
    {
      setup: { dirs: ['rootctx'], files: { 'rootctx/ready.flag': '' } },
    },
  ),
  writes('spec023_preconditions', 'command_check_shell_substitution.yaml', 'command-check.txt', 'command\n'),
  {
    spec: 'spec023_preconditions',
    file: 'step_skip_blocks_dependent.yaml',
    expect: { exit: 0, absent: ['optional-ran.txt', 'dependent-ran.txt'] },
  },
  {
    spec: 'spec023_preconditions',
    file: 'step_skip_does_not_retry_or_repeat.yaml',
    expect: { exit: 0, absent: ['policy-action.txt'] },
  },
  writes('spec023_preconditions', 'negate_value_mismatch_runs.yaml', 'negate-value-mismatch.txt', 'ran\n'),
  {
    spec: 'spec023_preconditions',
    file: 'negate_value_match_skips.yaml',
    expect: { exit: 0, absent: ['negate-value-match.txt'] },
  },
  writes('spec023_preconditions', 'negate_command_failure_runs.yaml', 'negate-command-failure.txt', 'ran\n'),
  {
    spec: 'spec023_preconditions',
    file: 'negate_command_success_skips.yaml',
    expect: { exit: 0, absent: ['negate-command-success.txt'] },
  },
  {
    // Upstream's loader refuses the pattern (internal/spec/builder.go compiles every `re:` of `expected`), so
    // its `dagu start` exits 1 as for any file it refuses; ours exits 2 for those (docs/coming-from-dagu.md).
    spec: 'spec023_preconditions',
    file: 'negate_invalid_regex_fails.yaml',
    refusedAtLoad: true,
    expect: { exit: 1, absent: ['negate-invalid-regex.txt'] },
  },
  {
    spec: 'spec023_preconditions',
    file: 'multiple_conditions_source_order.yaml',
    expect: { exit: 0, files: { 'condition-order.txt': '12' }, absent: ['multiple-conditions-ran.txt'] },
  },
  {
    spec: 'spec023_preconditions',
    file: 'command_check_streams_ignored.yaml',
    expect: {
      exit: 0,
      files: { 'command-check-stdout.txt': 'action-out\n', 'command-check-stderr.txt': 'action-err\n' },
    },
  },
  {
    spec: 'spec023_preconditions',
    file: 'command_check_missing_command_skips.yaml',
    expect: { exit: 0, absent: ['missing-command-ran.txt'] },
  },
  {
    spec: 'spec023_preconditions',
    file: 'expected_literal_not_resolved.yaml',
    expect: { exit: 0, absent: ['expected-literal-ran.txt'] },
  },
  {
    spec: 'spec023_preconditions',
    file: 'expected_command_substitution_literal.yaml',
    expect: { exit: 0, absent: ['expected-substitution-ran.txt'] },
  },
  writes('spec023_preconditions', 'value_match_env_var_resolves.yaml', 'env-var-resolves-ran.txt', 'ran\n'),
  writes(
    'spec023_preconditions',
    'value_match_substitution_literal_runs.yaml',
    'substitution-literal.txt',
    'ran\n',
    {
      expect: { absent: ['value-match-substitution-ran.txt'] },
    },
  ),
  writes('spec023_preconditions', 'value_match_line_match.yaml', 'line-match-ran.txt', 'ran\n'),
  {
    spec: 'spec023_preconditions',
    file: 'regex_case_sensitive.yaml',
    expect: { exit: 0, absent: ['regex-case-ran.txt'] },
  },
  writes('spec023_preconditions', 'regex_unanchored.yaml', 'regex-unanchored-ran.txt', 'ran\n'),
  writes('spec023_preconditions', 'step_managed_env_value_match.yaml', 'managed-env.txt', 'managed-env\n'),
  {
    spec: 'spec023_preconditions',
    file: 'value_match_not_met_skips.yaml',
    expect: { exit: 0, absent: ['not-met-ran.txt'] },
  },
  {
    spec: 'spec023_preconditions',
    file: 'value_match_substitution_literal_skips.yaml',
    expect: { exit: 0, absent: ['failure-ran.txt', 'step-substitution-ran.txt'] },
  },
  // spec030: git worktree actions (repos: a repository made as the test's initRepository makes it)
  {
    spec: 'spec030_git_worktree_action',
    file: 'runtime_add.yaml',
    params: 'working_dir=./repo branch=feature-x path=../wt/../wt/feature-x',
    setup: { repos: ['repo'] },
    expect: {
      exit: 0,
      files: { 'action-stderr.txt': '' },
      contains: {
        'action-outputs.txt': [
          '/wt/feature-x\nbranch=feature-x\n',
          'worktree_created=true\nbranch_created=true\n',
        ],
      },
    },
  },
  {
    spec: 'spec030_git_worktree_action',
    file: 'runtime_add_default.yaml',
    params: 'working_dir=./repo branch=feature/auth',
    setup: { repos: ['repo'] },
    expect: {
      exit: 0,
      contains: { 'action-outputs.txt': ['/repo.worktrees/feature/auth\nbranch=feature/auth\n'] },
    },
  },
  {
    spec: 'spec030_git_worktree_action',
    file: 'runtime_add_generated.yaml',
    params: 'working_dir=./repo',
    setup: { repos: ['repo'] },
    expect: { exit: 0, contains: { 'action-outputs.txt': ['.worktrees/dagu/', 'branch=dagu/'] } },
  },
  {
    spec: 'spec030_git_worktree_action',
    file: 'runtime_add_existing.yaml',
    params: 'working_dir=./repo branch=missing path=../wt/missing',
    setup: { repos: ['repo'] },
    expect: { exit: 'nonzero', absent: ['action-outputs.txt', 'wt/missing'] },
  },
  {
    spec: 'spec030_git_worktree_action',
    file: 'runtime_add.yaml',
    params: 'working_dir=./not-repo branch=topic path=../wt/topic',
    setup: { dirs: ['not-repo'] },
    expect: { exit: 'nonzero', absent: ['action-outputs.txt'] },
  },
  {
    spec: 'spec030_git_worktree_action',
    file: 'runtime_remove_branch.yaml',
    params: 'working_dir=./repo branch=missing',
    setup: { repos: ['repo'] },
    expect: {
      exit: 0,
      files: {
        'action-outputs.txt': 'path=\nbranch=missing\nworktree_removed=false\nbranch_deleted=false\n',
      },
    },
  },
  {
    spec: 'spec030_git_worktree_action',
    file: 'runtime_remove_branch.yaml',
    params: 'working_dir=./missing branch=topic',
    expect: { exit: 'nonzero', absent: ['action-outputs.txt'] },
  },
  // Paths resolve from the step's working directory, and a subdirectory of a repository finds the repository;
  // each remove starts after its add in the same project, as the test does.
  {
    spec: 'spec030_git_worktree_action',
    file: 'runtime_add_step_working_dir.yaml',
    setup: { repos: ['repo'], dirs: ['workspace'] },
    expect: {
      exit: 0,
      fields: {
        'action-outputs.txt': {
          path: '{project}/workspace/wt/step-directory',
          branch: SET,
          commit: SET,
          worktree_created: BOOL,
          branch_created: BOOL,
        },
      },
      linked: [{ repo: 'repo', path: 'workspace/wt/step-directory', branch: 'step-directory' }],
    },
  },
  {
    spec: 'spec030_git_worktree_action',
    file: 'runtime_remove_step_working_dir.yaml',
    setup: {
      repos: ['repo'],
      dirs: ['workspace'],
      starts: [{ file: 'runtime_add_step_working_dir.yaml', remove: ACTION_FILES }],
    },
    expect: {
      exit: 0,
      fields: {
        'action-outputs.txt': {
          path: '{project}/workspace/wt/step-directory',
          branch: ANY,
          worktree_removed: TRUE,
          branch_deleted: BOOL,
        },
      },
      absent: ['workspace/wt/step-directory'],
    },
  },
  {
    spec: 'spec030_git_worktree_action',
    file: 'runtime_add_subdirectory.yaml',
    setup: { repos: ['repo'], dirs: ['repo/services/api'] },
    expect: {
      exit: 0,
      fields: {
        'action-outputs.txt': {
          path: '{project}/wt/from-subdirectory',
          branch: SET,
          commit: SET,
          worktree_created: TRUE,
          branch_created: BOOL,
        },
      },
      linked: [{ repo: 'repo', path: 'wt/from-subdirectory', branch: 'from-subdirectory' }],
    },
  },
  {
    spec: 'spec030_git_worktree_action',
    file: 'runtime_remove_subdirectory.yaml',
    setup: {
      repos: ['repo'],
      dirs: ['repo/services/api'],
      starts: [{ file: 'runtime_add_subdirectory.yaml', remove: ACTION_FILES }],
    },
    expect: {
      exit: 0,
      fields: {
        'action-outputs.txt': {
          path: '{project}/wt/from-subdirectory',
          branch: 'from-subdirectory',
          worktree_removed: TRUE,
          branch_deleted: BOOL,
        },
      },
      absent: ['wt/from-subdirectory'],
    },
  },
  // spec035: file dependencies
  { spec: 'spec035_file_dependencies', file: 'local.yaml', expect: { exit: 0 } },
];
