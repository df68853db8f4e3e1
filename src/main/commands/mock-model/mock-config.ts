// The config.toml the reference's test harness writes for a mock model (protocol.md §8.2,
// `write_mock_responses_config_toml`): tests and the bench point a home at a mock with it.

/** config.toml text for a mock Responses provider at `modelUrl` (`http://127.0.0.1:PORT/v1`). */
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
