import { defineConfig } from 'vitest/config';

// Measurements that take longer than a test should and print figures (test/measure/): run one
// by name, after `npm run build`, e.g. `npx vitest run --config vitest.measure.config.ts`.
export default defineConfig({
  test: {
    include: ['test/measure/**/*.measure.ts'],
    globalSetup: ['test/helpers/postgres-global-setup.ts'],
    testTimeout: 300_000,
    hookTimeout: 30_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
