import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import path from 'node:path';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';

/** Tests, contract suites, simulations and test helpers: they compose their subject from any layer. */
const TEST_FILES = [
  '**/*.test.ts',
  '**/*.test.tsx',
  '**/*.contract.ts',
  '**/testing/**',
  '**/sim/**',
  '**/testSupport.ts',
  'server/api/testServices.ts',
  'server/api/testFakeDagu.ts',
  'server/docs/**',
];

/**
 * Each layer and what it may import (besides itself and node_modules). From the bottom: core (pure rules
 * and the ports), config (the settings and the Config type), store (the file stores and their fakes), the
 * services, the API, the console (app/, components/), and the CLI, which composes each process and may
 * import everything.
 * `log` is the pino adapter behind the core's Logger port: only the composition roots build one.
 */
const SERVICES = ['runner', 'scheduler', 'coordinator', 'worker', 'metrics'];
const LAYERS = {
  'server/core': [],
  'server/config': ['server/core'],
  'server/log': ['server/core'],
  'server/store': ['server/core', 'server/config'],
  // The engine of a run: the scheduler starts run processes with it, the worker runs it.
  'server/runner': ['server/core', 'server/config', 'server/store'],
  'server/scheduler': ['server/core', 'server/config', 'server/store', 'server/runner'],
  'server/coordinator': ['server/core', 'server/config', 'server/store'],
  // The worker runs the runner's engine and speaks the coordinator's wire format (coordinator/protocol.ts).
  'server/worker': [
    'server/core',
    'server/config',
    'server/store',
    'server/runner',
    'server/coordinator/protocol.ts',
  ],
  'server/metrics': ['server/core', 'server/config', 'server/store'],
  // One function per operation and the web server, over the services and stores.
  'server/api': ['server/core', 'server/config', 'server/store', ...SERVICES.map((s) => `server/${s}`)],
  // The console: pages (app/) import only components, which read the API's types and core's pure helpers.
  app: ['components'],
  components: ['server/core', 'server/api'],
};
const ALL = [
  'server/core',
  'server/config',
  'server/log',
  'server/store',
  ...SERVICES.map((s) => `server/${s}`),
  'server/api',
  'server/cli',
  'server/docs',
  // Test helpers, for tests only (server/testing/testOnly.test.ts checks the same for every testing folder).
  'server/testing',
  'app',
  'components',
];

function layerZones() {
  return Object.entries(LAYERS).flatMap(([target, allowed]) => {
    const message = `${target} may import only ${allowed.join(', ') || 'itself'} (docs/ARCHITECTURE.md#layers).`;
    const files = allowed.filter((a) => a.endsWith('.ts'));
    const closed = ALL.filter((l) => l !== target && !allowed.includes(l));
    // A layer open to one file of another (the worker's coordinator/protocol.ts): all of it but the file.
    return closed.map((from) => {
      const except = files.filter((f) => f.startsWith(`${from}/`)).map((f) => `./${path.relative(from, f)}`);
      return except.length > 0 ? { target, from, except, message } : { target, from, message };
    });
  });
}

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      '.next/',
      'dist/',
      'dist.build-*/',
      'test-results/',
      'playwright-report/',
      'next-env.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { 'import-x': importX },
    // Resolves our TypeScript imports (and tsconfig's `@/` paths) for import-x: without it no-cycle and the
    // layer zones see no file behind `../store/types` and pass everything.
    settings: {
      'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs', '.cjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/resolver-next': [
        createNodeResolver({
          extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json', '.node'],
          tsconfig: { configFile: path.join(import.meta.dirname, 'tsconfig.json') },
        }),
      ],
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'import-x/no-cycle': 'error',
    },
  },
  {
    // The pure core takes time, files and processes through ports: no node:* imports there.
    files: ['server/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['node:*', 'fs', 'path', 'child_process', 'os', 'module'] }] },
      ],
    },
  },
  {
    // The layers (docs/ARCHITECTURE.md#layers): a folder may import the layers below it, never one above or
    // beside it. Zones are folders, so `../store`, `../../store` and `@/server/store` are the same import.
    // Tests and their helpers compose their subject from any layer and are left out (see TEST_FILES).
    files: ['server/**/*.ts', 'app/**/*.ts', 'app/**/*.tsx', 'components/**/*.ts', 'components/**/*.tsx'],
    ignores: TEST_FILES,
    rules: {
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: layerZones() }],
    },
  },
  {
    // CommonJS entry files of the CLI's bundle parts.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly' },
    },
  },
);
