import { describe, expect, test } from 'vitest';
import { ConfigError, parseOverride, withValueAt, type ConfigDocument } from '../../../../src/main/config/config-document.js';
import { resolveHostConfig, resolveMaxLoadedThreads, type HostConfig } from '../../../../src/main/config/host-config.js';

/** The message of the ConfigError `resolveHostConfig` throws, or its result. */
function resolve(document: ConfigDocument): { config: HostConfig } | { error: string } {
  try {
    return { config: resolveHostConfig(document) };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { error: error.message };
  }
}

const DEFAULTS: HostConfig = {
  model: 'thread-host-echo',
  provider: { kind: 'embedded', id: 'embedded', name: 'thread-host embedded responder' },
  threadUnloadDelaySecs: 60,
  approvalPolicy: 'on-request',
  approvalsReviewer: 'user',
  sandboxMode: 'read-only',
  writerLockTimeoutMs: 30_000,
  historyMode: 'paginated',
  reasoningEffort: null,
};

/** A document with a `mock` Responses provider selected, its table extended by `provider`. */
const withMock = (provider: Record<string, unknown>, rest: ConfigDocument = {}): ConfigDocument => ({
  model_provider: 'mock',
  model_providers: { mock: { name: 'Mock', base_url: 'http://127.0.0.1:9/v1', ...provider } },
  ...rest,
});

describe('resolveHostConfig defaults', () => {
  test('model_reasoning_effort is taken as written, and refused only when empty', () => {
    expect(resolve({ model_reasoning_effort: 'x' })).toEqual({ config: { ...DEFAULTS, reasoningEffort: 'x' } });
    expect(resolve({ model_reasoning_effort: '' })).toEqual({ error: 'model_reasoning_effort: reasoning_effort must not be empty' });
  });

  test('an empty document gives the embedded provider, a 60 s unload delay and a 30 s lock timeout', () => {
    expect(resolve({})).toEqual({ config: DEFAULTS });
  });

  test('the top-level keys override the defaults', () => {
    expect(
      resolve({
        model: 'm',
        thread_unload_delay_secs: 0,
        approval_policy: 'never',
        approvals_reviewer: 'auto_review',
        sandbox_mode: 'workspace-write',
        writer_lock_timeout_ms: 5,
      }),
    ).toEqual({
      config: {
        ...DEFAULTS,
        model: 'm',
        threadUnloadDelaySecs: 0,
        approvalPolicy: 'never',
        approvalsReviewer: 'auto_review',
        sandboxMode: 'workspace-write',
        writerLockTimeoutMs: 5,
      },
    });
  });

  test('the deprecated on-failure approval policy is on-request, as the reference takes it', () => {
    expect(resolve({ approval_policy: 'on-failure' })).toEqual({ config: { ...DEFAULTS, approvalPolicy: 'on-request' } });
  });

  test('a configured Responses provider gets the reference retry and timeout defaults', () => {
    expect(resolve(withMock({ base_url: 'http://127.0.0.1:9/v1/', env_key: 'MOCK_KEY' }))).toEqual({
      config: {
        ...DEFAULTS,
        model: 'gpt-5-codex',
        provider: {
          kind: 'responses',
          id: 'mock',
          name: 'Mock',
          baseUrl: 'http://127.0.0.1:9/v1',
          envKey: 'MOCK_KEY',
          requestMaxRetries: 4,
          streamMaxRetries: 5,
          streamIdleTimeoutMs: 300_000,
          requestTimeoutMs: 30_000,
        },
      },
    });
  });

  test('provider numbers set in the table are used', () => {
    const resolved = resolve(withMock({ request_max_retries: 0, stream_max_retries: 1, stream_idle_timeout_ms: 2, request_timeout_ms: 3 }));
    expect('config' in resolved && resolved.config.provider).toEqual({
      kind: 'responses',
      id: 'mock',
      name: 'Mock',
      baseUrl: 'http://127.0.0.1:9/v1',
      envKey: null,
      requestMaxRetries: 0,
      streamMaxRetries: 1,
      streamIdleTimeoutMs: 2,
      requestTimeoutMs: 3,
    });
  });

  test('the built-in openai provider needs no table', () => {
    const resolved = resolve({ model_provider: 'openai' });
    expect('config' in resolved && resolved.config.provider).toEqual({
      kind: 'responses',
      id: 'openai',
      name: 'OpenAI',
      baseUrl: 'https://api.openai.com/v1',
      envKey: 'OPENAI_API_KEY',
      requestMaxRetries: 4,
      streamMaxRetries: 5,
      streamIdleTimeoutMs: 300_000,
      requestTimeoutMs: 30_000,
    });
  });
});

describe('thread_unload_delay_secs', () => {
  test.each([
    { name: '-1', value: -1, result: { error: 'thread_unload_delay_secs: invalid value: integer `-1`, expected u64' } },
    { name: '1.5', value: 1.5, result: { error: 'thread_unload_delay_secs: invalid type: floating point `1.5`, expected u64' } },
    { name: '"x"', value: 'x', result: { error: 'thread_unload_delay_secs: invalid type: string "x", expected u64' } },
    { name: 'true', value: true, result: { error: 'thread_unload_delay_secs: invalid type: boolean `true`, expected u64' } },
    { name: 'i64::MAX - 1 (its deadline overflows)', value: 9223372036854775806n, result: { error: 'thread_unload_delay_secs is too large' } },
    { name: 'u64::MAX', value: 18446744073709551615n, result: { error: 'thread_unload_delay_secs is too large' } },
  ])('$name is refused, naming the key', ({ value, result }) => {
    expect(resolve({ thread_unload_delay_secs: value })).toEqual(result);
  });

  test('9223372036000000000 is accepted and means never', () => {
    expect(resolve({ thread_unload_delay_secs: 9223372036000000000n })).toEqual({ config: { ...DEFAULTS, threadUnloadDelaySecs: null } });
  });

  test('the largest delay a timer can hold in ms is kept as a number', () => {
    const max = Math.floor(Number.MAX_SAFE_INTEGER / 1000);
    expect([resolve({ thread_unload_delay_secs: max }), resolve({ thread_unload_delay_secs: max + 1 })]).toEqual([
      { config: { ...DEFAULTS, threadUnloadDelaySecs: max } },
      { config: { ...DEFAULTS, threadUnloadDelaySecs: null } },
    ]);
  });

  test('values arriving through -c are parsed as TOML integers, big ones as BigInt', () => {
    const apply = (text: string) => {
      const { path, value } = parseOverride(text);
      return resolve(withValueAt({}, path, value));
    };
    expect([
      apply('thread_unload_delay_secs=2'),
      apply('thread_unload_delay_secs=9223372036854775806'),
      apply('thread_unload_delay_secs=9223372036000000000'),
      apply('thread_unload_delay_secs=soon'),
    ]).toEqual([
      { config: { ...DEFAULTS, threadUnloadDelaySecs: 2 } },
      { error: 'thread_unload_delay_secs is too large' },
      { config: { ...DEFAULTS, threadUnloadDelaySecs: null } },
      { error: 'thread_unload_delay_secs: invalid type: string "soon", expected u64' },
    ]);
  });
});

describe('errors name the key', () => {
  test.each([
    {
      name: 'a provider with a string request_max_retries',
      document: withMock({ request_max_retries: 'three' }),
      error: 'model_providers.mock.request_max_retries: invalid type: string "three", expected u64',
    },
    {
      name: 'a provider with a negative request_max_retries',
      document: withMock({ request_max_retries: -1 }),
      error: 'model_providers.mock.request_max_retries: invalid value: integer `-1`, expected u64',
    },
    {
      name: 'a provider with a fractional request_max_retries',
      document: withMock({ request_max_retries: 2.5 }),
      error: 'model_providers.mock.request_max_retries: invalid type: floating point `2.5`, expected u64',
    },
    {
      name: 'a provider with a request_max_retries beyond 2^53',
      document: withMock({ request_max_retries: 2n ** 60n }),
      error: 'model_providers.mock.request_max_retries: value is too large',
    },
    { name: 'an unknown model_provider', document: { model_provider: 'nope' }, error: 'Model provider `nope` not found' },
    {
      name: 'an unknown approval_policy',
      document: { approval_policy: 'bogus' },
      error: 'approval_policy: unknown variant `bogus`, expected one of `untrusted`, `on-failure`, `on-request`, `granular`, `never`',
    },
    { name: 'approval_policy "granular" as a string', document: { approval_policy: 'granular' }, error: 'approval_policy: invalid type: unit variant, expected newtype variant' },
    {
      name: 'an unknown sandbox_mode',
      document: { sandbox_mode: '' },
      error: 'sandbox_mode: unknown variant ``, expected one of `read-only`, `workspace-write`, `danger-full-access`',
    },
    {
      name: 'a model_provider named in the config but with no table',
      document: { model_provider: 'mock', model_providers: { other: { base_url: 'http://x' } } },
      error: 'Model provider `mock` not found',
    },
    {
      name: 'a provider without base_url',
      document: { model_provider: 'mock', model_providers: { mock: { name: 'Mock' } } },
      error: 'model_providers.mock.base_url: missing field `base_url`',
    },
    {
      name: 'a provider whose base_url is not a URL',
      document: withMock({ base_url: 'not a url' }),
      error: 'model_providers.mock.base_url: not a URL: not a url',
    },
    {
      name: 'wire_api "chat"',
      document: withMock({ wire_api: 'chat' }),
      error: 'model_providers.mock.wire_api: unknown variant `chat`, expected `responses`',
    },
    {
      name: 'a provider that is not a table',
      document: { model_provider: 'mock', model_providers: { mock: 'http://x' } },
      error: 'model_providers.mock: expected a table',
    },
    { name: 'a non-string model', document: { model: 5 }, error: 'model: invalid type: integer `5`, expected a string' },
    {
      name: 'a non-integer writer_lock_timeout_ms',
      document: { writer_lock_timeout_ms: '1s' },
      error: 'writer_lock_timeout_ms: invalid type: string "1s", expected u64',
    },
  ])('$name', ({ document, error }) => {
    expect(resolve(document)).toEqual({ error });
  });

  test('wire_api "responses" is accepted explicitly', () => {
    const resolved = resolve(withMock({ wire_api: 'responses' }));
    expect('config' in resolved && resolved.config.provider.kind).toEqual('responses');
  });
});

test('max_loaded_threads is a positive integer; unset, the open-file limit decides', () => {
  expect([resolveMaxLoadedThreads({}), resolveMaxLoadedThreads({ max_loaded_threads: 500n })]).toEqual([null, 500]);
  expect(() => resolveHostConfig({ max_loaded_threads: 0n })).toThrow(
    ConfigError.at('max_loaded_threads', 'invalid value: integer `0`, expected a positive integer'),
  );
});
