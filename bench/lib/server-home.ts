// A throw-away CODEX_HOME with the config.toml the reference's test harness writes
// (protocol.md §8.2), so both servers read the same file. The text is copied from
// test/helpers/test-server.ts `mockModelConfig`, because bench code never imports tests.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The harness's config.toml; `rootConfig` lines go before the provider, as with_root_config does. */
export function mockModelConfig(modelUrl: string, rootConfig = ''): string {
  return [
    'model = "mock-model"',
    'approval_policy = "never"',
    'sandbox_mode = "read-only"',
    rootConfig,
    'model_provider = "mock_provider"',
    '',
    '[model_providers.mock_provider]',
    'name = "Mock provider for test"',
    `base_url = "${modelUrl}"`,
    'wire_api = "responses"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
  ].join('\n');
}

/** Creates a fresh home holding config.toml; the caller removes it with `removeHome`. */
export function createHome(modelUrl: string, rootConfig = ''): string {
  const home = mkdtempSync(join(tmpdir(), 'thread-host-bench-'));
  writeFileSync(join(home, 'config.toml'), mockModelConfig(modelUrl, rootConfig));
  return home;
}

export function removeHome(home: string): void {
  rmSync(home, { recursive: true, force: true });
}
