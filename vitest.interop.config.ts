import { defineConfig } from 'vitest/config';

// `npm run test:interop`: thread-host against the real reference (installed on demand).
export default defineConfig({
  test: {
    include: ['test/interop/**/*.test.ts'],
    // One throwaway PostgreSQL cluster for the run; each file that needs it makes a database there.
    globalSetup: ['test/helpers/postgres-global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
