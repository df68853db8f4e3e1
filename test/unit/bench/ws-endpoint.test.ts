import { expect, test } from 'vitest';
import { wsCommandOf } from '../../../bench/lib/ws-endpoint.js';

test('fanout drives a command with {port} as given, switches --listen stdio:// to ws, and refuses anything else', () => {
  const ref = { name: 'codex', argv: ['codex', 'app-server', '--listen', 'ws://127.0.0.1:{port}'], env: {} };
  expect(wsCommandOf(ref)).toBe(ref);
  expect(wsCommandOf({ name: 'thread-host', argv: ['node', 'cli.js', 'app-server', '--listen', 'stdio://'], env: { A: '1' } })).toEqual({
    name: 'thread-host',
    argv: ['node', 'cli.js', 'app-server', '--listen', 'ws://127.0.0.1:{port}'],
    env: { A: '1' },
  });
  expect(wsCommandOf({ name: 'x', argv: ['x', 'app-server'], env: {} })).toBe(null);
});
