import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { ConfigError, mergedOver, parseOverride, readConfigFile, threadDocument, tomlValueOf, withOverrides, withValueAt, type ConfigDocument } from '../../../../src/main/config/config-document.js';

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
    let flags: ConfigDocument = {};
    for (const text of ['thread_unload_delay_secs=2', 'model_providers.mock.base_url="http://127.0.0.1:2/v1"', 'sandbox_mode=workspace-write']) {
      const { path, value } = parseOverride(text);
      flags = withValueAt(flags, path, value);
    }
    const document = mergedOver(file, flags);
    const threadLayer = threadDocument(file, flags, { model: 'from-thread', 'model_providers.mock.stream_max_retries': 3 });
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

// The rule as codex 0.171.0 showed it, a thread's servers seen in the tools its model is offered:
// config.toml names `a`, `-c mcp_servers.k2={…}` names `k2`.
describe("a thread's config map over config.toml and the -c overrides", () => {
  const a = { command: 'node', args: ['a.mjs'], env: { PID_FILE: 'starts', TAG: 'a' } };
  const k2 = { command: 'node', args: ['k2.mjs'] };
  const k = { command: 'node', args: ['k.mjs'] };
  const user: ConfigDocument = { model: 'from-file', mcp_servers: { a } };
  const flags = withValueAt({}, ['mcp_servers', 'k2'], k2);

  test('a whole mcp_servers table adds to config.toml\'s servers and replaces the -c ones', () => {
    expect(threadDocument(user, flags, { mcp_servers: { k } })).toEqual({ model: 'from-file', mcp_servers: { a, k } });
  });

  test('dotted keys add a server beside both', () => {
    expect(threadDocument(user, flags, { 'mcp_servers.k.command': 'node', 'mcp_servers.k.args': ['k.mjs'] })).toEqual({ model: 'from-file', mcp_servers: { a, k2, k } });
  });

  test("a partial table for config.toml's server merges into its table, nested tables too; arrays replace", () => {
    expect(threadDocument(user, flags, { mcp_servers: { a: { args: ['other.mjs'], env: { TAG: 'ca' } } } })).toEqual({
      model: 'from-file',
      mcp_servers: { a: { command: 'node', args: ['other.mjs'], env: { PID_FILE: 'starts', TAG: 'ca' } } },
    });
  });

  test("a partial table for a -c server replaces it, as the -c and request keys share one layer", () => {
    expect(threadDocument(user, flags, { mcp_servers: { k2: { args: ['other.mjs'] } } })).toEqual({ model: 'from-file', mcp_servers: { a, k2: { args: ['other.mjs'] } } });
  });

  test('a scalar beside a table replaces its key and leaves the merge as it was', () => {
    expect(threadDocument(user, flags, { model: 'x', mcp_servers: { k } })).toEqual({ model: 'x', mcp_servers: { a, k } });
  });

  test('a whole mcp_servers table from -c merges over config.toml too', () => {
    expect(mergedOver(user, withValueAt({}, ['mcp_servers'], { k2 }))).toEqual({ model: 'from-file', mcp_servers: { a, k2 } });
  });

  test('with no -c overrides the request config is the one layer over config.toml', () => {
    expect(threadDocument(user, null, { mcp_servers: { k } })).toEqual({ model: 'from-file', mcp_servers: { a, k } });
  });

  test('a date or an array over a table replaces it, and a table over a date replaces the date', () => {
    const date = new Date('2026-01-02T03:04:05Z');
    expect(mergedOver({ x: { y: 1 }, z: [1], d: date }, { x: date, z: [2], d: { e: 1 } })).toEqual({ x: date, z: [2], d: { e: 1 } });
  });

  test('merging copies: neither layer it was given changes', () => {
    const base: ConfigDocument = { t: { u: 1 } };
    const overlay: ConfigDocument = { t: { v: 2 } };
    expect({ merged: mergedOver(base, overlay), base, overlay }).toEqual({ merged: { t: { u: 1, v: 2 } }, base: { t: { u: 1 } }, overlay: { t: { v: 2 } } });
  });
});

// codex 0.171.0 converts a request's JSON `config` to TOML, where a null is `""`.
describe("a JSON null in a thread's config map", () => {
  test('reads as the empty string, at the top, inside tables and inside arrays', () => {
    expect(withOverrides({}, { model: null, 'mcp_servers.k.cwd': null, mcp_servers: { k: { env: { A: null, B: 'b' }, args: [null, 'x'] } }, n: 3 })).toEqual({
      model: '', mcp_servers: { k: { env: { A: '', B: 'b' }, args: ['', 'x'] } }, n: 3,
    });
  });

  test('tomlValueOf leaves every other value as it is', () => {
    expect([tomlValueOf('s'), tomlValueOf(1), tomlValueOf(true), tomlValueOf([]), tomlValueOf({})]).toEqual(['s', 1, true, [], {}]);
  });
});

describe('ConfigError', () => {
  test('a problem at a key is `key: problem`, and keyed as the reference words a request config value', () => {
    const error = ConfigError.at('mcp_servers.k.command', 'invalid type: integer `3`, expected a string');
    expect({ message: error.message, key: error.key, problem: error.problem, keyed: error.keyed }).toEqual({
      message: 'mcp_servers.k.command: invalid type: integer `3`, expected a string',
      key: 'mcp_servers.k.command',
      problem: 'invalid type: integer `3`, expected a string',
      keyed: 'invalid type: integer `3`, expected a string\nin `mcp_servers.k.command`\n',
    });
  });

  test('a problem with no key keeps its message', () => {
    const error = new ConfigError('Model provider `nope` not found');
    expect({ key: error.key, keyed: error.keyed }).toEqual({ key: null, keyed: 'Model provider `nope` not found' });
  });
});
