import { expect, test } from 'vitest';
import { formatSocketAddress, isLoopback, ListenUrlError, parseListenUrl } from '../../../../src/main/transport/listen-url.js';

test('--listen values parse as the reference parses them', () => {
  expect(parseListenUrl('stdio://', '/w')).toEqual({ kind: 'stdio' });
  expect(parseListenUrl('off', '/w')).toEqual({ kind: 'off' });
  expect(parseListenUrl('unix://', '/w')).toEqual({ kind: 'unix', path: null });
  expect(parseListenUrl('unix://rel/a.sock', '/w')).toEqual({ kind: 'unix', path: '/w/rel/a.sock' });
  expect(parseListenUrl('unix:///abs/a.sock', '/w')).toEqual({ kind: 'unix', path: '/abs/a.sock' });
  expect(parseListenUrl('ws://127.0.0.1:0', '/w')).toEqual({ kind: 'ws', host: '127.0.0.1', port: 0 });
  expect(parseListenUrl('ws://[::1]:65535', '/w')).toEqual({ kind: 'ws', host: '::1', port: 65535 });
});

test('refused values carry the reference texts', () => {
  const bad = (url: string) => {
    try {
      parseListenUrl(url, '/w');
      return null;
    } catch (error) {
      return error instanceof ListenUrlError ? error.message : String(error);
    }
  };
  const wsText = (url: string) => `invalid websocket --listen URL \`${url}\`; expected \`ws://IP:PORT\``;
  for (const url of ['ws://localhost:1', 'ws://127.0.0.1', 'ws://127.0.0.1:65536', 'ws://::1:80', 'ws://[127.0.0.1]:80', 'ws://1.2.3:80']) {
    expect([url, bad(url)]).toEqual([url, wsText(url)]);
  }
  for (const url of ['stdio', 'tcp://127.0.0.1:1', 'WS://127.0.0.1:1', '']) {
    expect(bad(url)).toBe(`unsupported --listen URL \`${url}\`; expected \`stdio://\`, \`unix://\`, \`unix://PATH\`, \`ws://IP:PORT\`, or \`off\``);
  }
});

test('loopback means 127.0.0.0/8 and ::1; addresses display as Rust SocketAddr does', () => {
  expect(['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1', '0.0.0.0', '::', '10.0.0.1', '128.0.0.1'].map(isLoopback)).toEqual([
    true,
    true,
    true,
    true,
    false,
    false,
    false,
    false,
  ]);
  expect([formatSocketAddress('0.0.0.0', 80), formatSocketAddress('::', 80)]).toEqual(['0.0.0.0:80', '[::]:80']);
});
