import { defineConfig } from 'vitest/config';

// `npm run test:interop`: thread-host against the real reference (installed on demand).
export default defineConfig({
  test: {
    include: ['test/interop/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
