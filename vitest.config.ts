import { defineConfig } from 'vitest/config';

// e2e tests spawn the compiled CLI (dist/), so `npm test` builds first.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Need the reference binary (and tmux): `npm run test:interop` and `npm run test:clients` run them.
    exclude: ['test/interop/**', 'test/clients/**', '**/node_modules/**'],
    // One throwaway PostgreSQL cluster for the run; each file that needs it makes a database there.
    globalSetup: ['test/helpers/postgres-global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Real processes and real flocks: keep files in separate workers, but bounded for 2 cores.
    pool: 'forks',
    maxWorkers: 2,
  },
});
