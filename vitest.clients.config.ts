import { defineConfig } from 'vitest/config';

// `npm run test:clients`: the reference's own clients (codex exec, codex queue, the interactive
// client in tmux) and others that spawn `codex app-server` (the AI SDK provider for Codex)
// against thread-host. Opt-in: it installs the reference and tmux on demand.
export default defineConfig({
  test: {
    include: ['test/clients/**/*.test.ts'],
    globalSetup: ['test/clients/suite-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
