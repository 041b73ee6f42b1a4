import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // Node resolves `graphql` to its CommonJS build (the package has no "exports"), and Apollo's CommonJS code
    // loads that one; Vite would pick the ESM build for our sources, giving two graphql realms. Use Node's choice.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    include: ['**/test/**/*.test.ts'],
    exclude: ['node_modules/**', 'dist/**', 'data/**'],
    globalSetup: ['./test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    // Test files share their worker's module graph: importing the platform (type-graphql, Apollo, the subgraphs) once
    // per worker instead of once per file took the suite from 11.9 to 9.0 minutes on 2 cores. Every file starts
    // its own platform on its own database, so no state of interest lives in modules (checked: the whole suite passes
    // either way).
    isolate: false,
  },
});
