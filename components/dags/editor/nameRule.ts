// How the console words the DAG name rule (server/core/names.ts isValidDagName, which the loader applies).

export const NAME_RULE = 'letters, digits, "_", "-" and "." (not first, no ".."), at most 64';
