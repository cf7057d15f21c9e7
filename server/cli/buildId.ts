// Which build of the CLI this is: scripts/build-cli.mjs sets it for each bundle it builds. Null when the
// sources run without a build (tests, tsx), where nothing that depends on it (the DAG cache) is used.

declare const __DAGU_BUILD_ID__: string | undefined;

export const BUILD_ID: string | null = typeof __DAGU_BUILD_ID__ === 'string' ? __DAGU_BUILD_ID__ : null;
