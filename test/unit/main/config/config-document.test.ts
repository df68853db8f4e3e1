import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { ConfigError, parseOverride, readConfigFile, withOverrides, withValueAt } from '../../../../src/main/config/config-document.js';

const homes: string[] = [];
afterAll(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

/** A temporary CODEX_HOME, with `config.toml` holding `toml` when given. */
function home(toml?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'thread-host-config-'));
  homes.push(dir);
  if (toml !== undefined) writeFileSync(join(dir, 'config.toml'), toml);
  return dir;
}

function parseError(text: string): { error: string; isConfigError: boolean } | { parsed: unknown } {
  try {
    return { parsed: parseOverride(text) };
  } catch (error) {
    return { error: (error as Error).message, isConfigError: error instanceof ConfigError };
  }
}

describe('parseOverride (-c key=value)', () => {
  test.each([
    { text: 'thread_unload_delay_secs=5', parsed: { path: ['thread_unload_delay_secs'], value: 5 } },
    { text: 'model="o3"', parsed: { path: ['model'], value: 'o3' } },
    { text: "model='o3'", parsed: { path: ['model'], value: 'o3' } },
    { text: 'model=o3', parsed: { path: ['model'], value: 'o3' } },
    { text: 'model=gpt-5.1-codex', parsed: { path: ['model'], value: 'gpt-5.1-codex' } },
    { text: 'flag=true', parsed: { path: ['flag'], value: true } },
    { text: 'ratio=1.5', parsed: { path: ['ratio'], value: 1.5 } },
    { text: 'list=[1, "a"]', parsed: { path: ['list'], value: [1, 'a'] } },
    { text: 'table={ a = 1, b = "x" }', parsed: { path: ['table'], value: { a: 1, b: 'x' } } },
    { text: 'big=9223372036854775806', parsed: { path: ['big'], value: 9223372036854775806n } },
    { text: ' model = o3 ', parsed: { path: ['model'], value: 'o3' } },
    { text: 'url=http://127.0.0.1:8080/v1', parsed: { path: ['url'], value: 'http://127.0.0.1:8080/v1' } },
    { text: 'a=b=c', parsed: { path: ['a'], value: 'b=c' } },
    { text: 'empty=', parsed: { path: ['empty'], value: '' } },
    {
      text: 'model_providers.mock.base_url="http://127.0.0.1:1/v1"',
      parsed: { path: ['model_providers', 'mock', 'base_url'], value: 'http://127.0.0.1:1/v1' },
    },
  ])('$text', ({ text, parsed }) => {
    expect(parseError(text)).toEqual({ parsed });
  });

  test.each(['model', '', 'thread_unload_delay_secs'])('%j without "=" is refused with the reference text', (text) => {
    expect(parseError(text)).toEqual({ error: `error parsing -c overrides: Invalid override (missing '='): ${text}`, isConfigError: true });
  });

  // codex-rs/common/src/config_override.rs checks the key after the '=': an empty key has
  // its own message ("Empty key in override: {s}"), not the missing-'=' one.
  test.each(['=5', ' =5'])('%j with an empty key is refused as the reference refuses it', (text) => {
    expect(parseError(text)).toEqual({ error: `error parsing -c overrides: Empty key in override: ${text}`, isConfigError: true });
  });
});

describe('layering config.toml, -c overrides and a thread config map', () => {
  test('a missing config.toml is an empty document', () => {
    expect(readConfigFile(home())).toEqual({});
  });

  test('a malformed config.toml is a ConfigError naming the file', () => {
    const dir = home('model = \n');
    let thrown: unknown;
    try {
      readConfigFile(dir);
    } catch (error) {
      thrown = error;
    }
    expect({ isConfigError: thrown instanceof ConfigError, startsWithPath: (thrown as Error).message.startsWith(`${join(dir, 'config.toml')}: `) }).toEqual({
      isConfigError: true,
      startsWithPath: true,
    });
  });

  test('a config.toml that cannot be read (a directory) is a ConfigError', () => {
    const dir = home();
    mkdirSync(join(dir, 'config.toml'));
    expect(() => readConfigFile(dir)).toThrow(ConfigError);
  });

  test('each layer overrides the last, key by key, and tables merge', () => {
    const file = readConfigFile(
      home(
        [
          'model = "from-file"',
          'thread_unload_delay_secs = 60',
          'model_provider = "mock"',
          '',
          '[model_providers.mock]',
          'name = "Mock"',
          'base_url = "http://127.0.0.1:1/v1"',
          'request_max_retries = 0',
          '',
        ].join('\n'),
      ),
    );
    let document = file;
    for (const text of ['thread_unload_delay_secs=2', 'model_providers.mock.base_url="http://127.0.0.1:2/v1"', 'sandbox_mode=workspace-write']) {
      const { path, value } = parseOverride(text);
      document = withValueAt(document, path, value);
    }
    const threadLayer = withOverrides(document, { model: 'from-thread', 'model_providers.mock.stream_max_retries': 3 });
    expect({ file, document, threadLayer }).toEqual({
      file: {
        model: 'from-file',
        thread_unload_delay_secs: 60,
        model_provider: 'mock',
        model_providers: { mock: { name: 'Mock', base_url: 'http://127.0.0.1:1/v1', request_max_retries: 0 } },
      },
      document: {
        model: 'from-file',
        thread_unload_delay_secs: 2,
        model_provider: 'mock',
        sandbox_mode: 'workspace-write',
        model_providers: { mock: { name: 'Mock', base_url: 'http://127.0.0.1:2/v1', request_max_retries: 0 } },
      },
      threadLayer: {
        model: 'from-thread',
        thread_unload_delay_secs: 2,
        model_provider: 'mock',
        sandbox_mode: 'workspace-write',
        model_providers: { mock: { name: 'Mock', base_url: 'http://127.0.0.1:2/v1', request_max_retries: 0, stream_max_retries: 3 } },
      },
    });
  });

  test('withValueAt copies: the document it was given is unchanged', () => {
    const original = { a: { b: 1, c: 2 }, d: 3 };
    const updated = withValueAt(original, ['a', 'b'], 9);
    expect({ original, updated }).toEqual({ original: { a: { b: 1, c: 2 }, d: 3 }, updated: { a: { b: 9, c: 2 }, d: 3 } });
  });

  test('a dotted path through a non-table value replaces it with a table', () => {
    expect(withValueAt({ a: 5 }, ['a', 'b'], 1)).toEqual({ a: { b: 1 } });
  });

  test('withOverrides applies every key of a thread config map, dotted or nested', () => {
    expect(withOverrides({ x: 1 }, { 'a.b': 1, c: { d: 2 } })).toEqual({ x: 1, a: { b: 1 }, c: { d: 2 } });
  });
});
