// A thread's settings: the host's own configuration is resolved once and shared (frozen) by
// every request that overrides nothing; a request's overrides are resolved on their own; a bad
// config.toml is the same error at every request, naming the file.
import { expect, test } from 'vitest';
import { type SessionOverrides, resolveSession } from '../../../../src/main/threads/thread-settings.js';
import { stubHostContext } from '../../../helpers/stub-host-context.js';
import { threadStartParams } from '../../../../src/main/protocol/method-params.js';

// What thread/start with no params decodes to: a request that overrides nothing.
const none: SessionOverrides = threadStartParams({});

test('requests without overrides share one frozen resolution of the host configuration', () => {
  const ctx = stubHostContext('/tmp/home', { configDocument: { model: 'm1', thread_unload_delay_secs: 7 } });
  const first = resolveSession(ctx, none);
  const second = resolveSession(ctx, none);
  expect(second.config).toBe(first.config);
  expect(Object.isFrozen(first.config) && Object.isFrozen(first.config.provider)).toBe(true);
  expect([first.config.model, first.config.threadUnloadDelaySecs, first.settings.model]).toEqual(['m1', 7, 'm1']);
});

test('an unload delay within the system uptime of i64::MAX is checked again at every request, as its answer depends on the clock', () => {
  const ctx = stubHostContext('/tmp/home', { configDocument: { thread_unload_delay_secs: 2n ** 63n - 1n - 2n ** 40n + 1n } });
  const first = resolveSession(ctx, none).config;
  expect(resolveSession(ctx, none).config).not.toBe(first);
  expect(first.threadUnloadDelaySecs).toBeNull();
});

test("a request's config map is resolved on its own and leaves the shared resolution as it was", () => {
  const ctx = stubHostContext('/tmp/home', { configDocument: { model: 'm1' } });
  const shared = resolveSession(ctx, none).config;
  const overridden = resolveSession(ctx, { ...none, config: { model: 'm2' } });
  expect(overridden.config).not.toBe(shared);
  expect([overridden.config.model, shared.model, resolveSession(ctx, none).config.model]).toEqual(['m2', 'm1', 'm1']);
});

test('a bad config.toml fails every request that overrides nothing with the same answer, naming the file', () => {
  const ctx = stubHostContext('/tmp/home', { configDocument: { thread_unload_delay_secs: 'soon' } });
  const failure = () => {
    try {
      resolveSession(ctx, none);
    } catch (error) {
      return { code: (error as { code?: number }).code, message: (error as Error).message };
    }
    return null;
  };
  const first = failure();
  expect(first).toEqual({ code: -32600, message: 'failed to load configuration: /tmp/home/config.toml: thread_unload_delay_secs: invalid type: string "soon", expected u64' });
  expect(failure()).toEqual(first);
});

test("a request's mcp_servers table adds to config.toml's servers and takes the -c ones' place", () => {
  const server = (name: string) => ({ command: 'node', args: [`${name}.mjs`] });
  const ctx = stubHostContext('/tmp/home', {
    configDocument: { mcp_servers: { a: server('a'), k2: server('k2') } },
    configLayers: { userFile: '/tmp/home/config.toml', user: { mcp_servers: { a: server('a') } }, flags: { mcp_servers: { k2: server('k2') } } },
  });
  const names = (config: Record<string, unknown> | null) => resolveSession(ctx, { ...none, config }).mcpServers.map((s) => s.name);
  expect([names(null), names({ mcp_servers: { k: server('k') } }), names({ 'mcp_servers.k': server('k') })]).toEqual([['a', 'k2'], ['a', 'k'], ['a', 'k2', 'k']]);
});
