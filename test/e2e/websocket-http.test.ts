// What the ws:// listener answers over plain HTTP, as the reference does: the banner on stderr,
// /readyz and /healthz, 403 for any Origin, axum's rejections of a request that is not an
// upgrade; plus thread-host's /metrics.
import { expect, test } from 'vitest';
import { httpProbe } from '../helpers/http-probe.js';
import { HttpRefusal, WsServer } from '../helpers/ws-server.js';

test('the banner, health endpoints, Origin refusal and non-upgrade answers', async () => {
  const server = await WsServer.start();
  const address = server.baseUrl.slice('ws://'.length);
  expect(server.process.stderr).toBe(
    [
      'thread-host app-server (WebSockets)',
      `  listening on: ws://${address}`,
      `  readyz: http://${address}/readyz`,
      `  healthz: http://${address}/healthz`,
      '  note: binds localhost only (use SSH port-forwarding for remote access)',
      '',
    ].join('\n'),
  );
  const probe = async (path: string, options: Parameters<typeof httpProbe>[1] = {}) => {
    const { status, headers, body } = await httpProbe(server.httpUrl + path, options);
    return { status, body, allow: headers.allow, type: headers['content-type'] };
  };
  const empty = { body: '', allow: undefined, type: undefined };
  expect(await probe('/readyz')).toEqual({ status: 200, ...empty });
  expect(await probe('/healthz?x=1')).toEqual({ status: 200, ...empty });
  expect(await probe('/healthz', { method: 'HEAD' })).toEqual({ status: 200, ...empty });
  expect(await probe('/readyz', { method: 'POST' })).toEqual({ status: 405, ...empty, allow: 'GET,HEAD' });
  expect(await probe('/healthz', { headers: { origin: 'http://localhost' } })).toEqual({ status: 403, ...empty });
  const text = 'text/plain; charset=utf-8';
  expect(await probe('/')).toEqual({ status: 400, body: "Connection header did not include 'upgrade'", allow: undefined, type: text });
  expect(await probe('/ws', { method: 'POST' })).toEqual({ status: 405, body: 'Request method must be `GET`', allow: undefined, type: text });
  expect(await probe('/', { headers: { connection: 'upgrade', upgrade: 'websocket' } })).toEqual({
    status: 400,
    body: '`Sec-WebSocket-Key` header missing',
    allow: undefined,
    type: text,
  });
  await expect(server.connect({ headers: { origin: 'http://localhost' } })).rejects.toEqual(new HttpRefusal(403, ''));
  // Any other path upgrades.
  const client = await server.connect({ path: '/any/path?q=1' });
  expect(await client.request('thread/loaded/list', {})).toEqual({ data: [], nextCursor: null });
  expect(await server.metric('thread_host_connections')).toBe(1);
  expect(await server.metric('thread_host_loaded_threads{status="idle"}')).toBe(0);
  // Read off the main thread (host-metrics.ts), and still the process's whole count: the
  // scrape's own connection stays open after it (keep-alive). The pool's workers open their
  // event loops' descriptors as they come up, so compare once the count holds across a scrape.
  expect(await steadyOpenFds(server)).toEqual({ steady: true, metricMatches: true });
  expect(await server.stop()).toBe(0);
});

async function steadyOpenFds(server: WsServer): Promise<{ steady: boolean; metricMatches: boolean }> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const before = server.openFds();
    const reported = await server.metric('process_open_fds');
    if (server.openFds() === before) return { steady: true, metricMatches: reported === before };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { steady: false, metricMatches: false };
}
