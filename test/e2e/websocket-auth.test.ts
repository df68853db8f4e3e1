// The reference's two auth modes, checked before the upgrade: a refused client gets 401 with
// the reference's fixed body, the detailed reason goes to the log; health endpoints need no
// auth; /metrics is behind the same auth unless --metrics-without-auth.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, expect, test } from 'vitest';
import { httpProbe } from '../helpers/http-probe.js';
import { HttpRefusal, WsServer } from '../helpers/ws-server.js';

const dir = mkdtempSync(join(tmpdir(), 'thread-host-auth-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SECRET = 'a-shared-secret-of-at-least-32-bytes!!';
writeFileSync(join(dir, 'token'), '  tok-ABC_123 \n\n');
writeFileSync(join(dir, 'secret'), `${SECRET}\n`);

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Resolves with 'connected' or the HTTP refusal's status and body. */
async function attempt(server: WsServer, headers: Record<string, string>): Promise<string> {
  try {
    const client = await server.connect({ headers });
    await client.disconnect('terminate');
    return 'connected';
  } catch (error) {
    if (error instanceof HttpRefusal) return `${error.status} ${error.body}`;
    throw error;
  }
}

test('capability token from a file (trimmed): missing, malformed and wrong tokens get 401 with fixed bodies', async () => {
  const server = await WsServer.start({ args: ['--ws-auth', 'capability-token', '--ws-token-file', join(dir, 'token')] });
  expect(await attempt(server, {})).toBe('401 missing websocket bearer token');
  expect(await attempt(server, { authorization: 'Basic dG9rOng=' })).toBe('401 invalid authorization header');
  expect(await attempt(server, { authorization: 'Bearer ' })).toBe('401 invalid authorization header');
  expect(await attempt(server, bearer('tok-ABC_124'))).toBe('401 invalid websocket bearer token');
  expect(await attempt(server, bearer('tok-ABC_123'))).toBe('connected');
  expect(await attempt(server, { authorization: 'bEaReR   tok-ABC_123  ' })).toBe('connected');
  // The log has the reason, with the peer.
  const refusals = server.process.logLines().filter((l) => l.msg === 'rejecting websocket client during upgrade');
  expect(refusals.map((l) => l.message)).toEqual([
    'missing websocket bearer token',
    'invalid authorization header',
    'invalid authorization header',
    'invalid websocket bearer token',
  ]);
  // Health without auth; metrics behind it.
  expect((await httpProbe(`${server.httpUrl}/readyz`)).status).toBe(200);
  expect(await httpProbe(`${server.httpUrl}/metrics`)).toMatchObject({ status: 401, body: 'missing websocket bearer token' });
  expect(await server.metric('thread_host_connections', bearer('tok-ABC_123'))).toBe(0);
  expect(await server.stop()).toBe(0);
});

test('capability token given as its SHA-256 (any case), with metrics served without auth when asked', async () => {
  const digest = createHash('sha256').update('s3cret').digest('hex').toUpperCase();
  const server = await WsServer.start({ args: ['--ws-auth', 'capability-token', '--ws-token-sha256', digest, '--metrics-without-auth'] });
  expect(await attempt(server, bearer('s3cret'))).toBe('connected');
  expect(await attempt(server, bearer('s3cret2'))).toBe('401 invalid websocket bearer token');
  expect(await server.metric('thread_host_connections')).toBe(0);
  expect(await server.stop()).toBe(0);
});

test('signed bearer tokens: signature, expiry with skew just inside and outside, nbf, issuer, audience', async () => {
  const server = await WsServer.start({
    args: [
      ...['--ws-auth', 'signed-bearer-token', '--ws-shared-secret-file', join(dir, 'secret')],
      ...['--ws-issuer', 'issuer-a', '--ws-audience', 'aud-a', '--ws-max-clock-skew-seconds', '10'],
    ],
  });
  const now = Math.floor(Date.now() / 1000);
  const key = new TextEncoder().encode(SECRET);
  const jwt = (claims: Record<string, unknown>, alg = 'HS256', secret = key) =>
    new SignJWT(claims).setProtectedHeader({ alg, typ: 'JWT' }).sign(secret);
  const good = { iss: 'issuer-a', aud: 'aud-a', exp: now + 60 };
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['good', good, 'connected'],
    ['audience in a list', { ...good, aud: ['other', 'aud-a'] }, 'connected'],
    ['expired, just inside the skew', { ...good, exp: now - 8 }, 'connected'],
    ['expired, just outside the skew', { ...good, exp: now - 12 }, '401 expired websocket jwt'],
    ['nbf just inside the skew', { ...good, nbf: now + 8 }, 'connected'],
    ['nbf outside the skew', { ...good, nbf: now + 30 }, '401 websocket jwt is not valid yet'],
    ['wrong issuer', { ...good, iss: 'issuer-b' }, '401 websocket jwt issuer mismatch'],
    ['no issuer', { aud: 'aud-a', exp: now + 60 }, '401 websocket jwt issuer mismatch'],
    ['wrong audience', { ...good, aud: 'aud-b' }, '401 websocket jwt audience mismatch'],
    ['no exp', { iss: 'issuer-a', aud: 'aud-a' }, '401 invalid websocket jwt'],
    ['exp not an integer', { ...good, exp: now + 60.5 }, '401 invalid websocket jwt'],
  ];
  const outcomes: Array<[string, string]> = [];
  for (const [name, claims] of cases) outcomes.push([name, await attempt(server, bearer(await jwt(claims)))]);
  expect(outcomes).toEqual(cases.map(([name, , expected]) => [name, expected]));
  expect(await attempt(server, bearer(await jwt(good, 'HS384')))).toBe('401 invalid websocket jwt');
  expect(await attempt(server, bearer(await jwt(good, 'HS256', new TextEncoder().encode('x'.repeat(32)))))).toBe('401 invalid websocket jwt');
  expect(await attempt(server, bearer('not.a.jwt'))).toBe('401 invalid websocket jwt');
  expect(await attempt(server, {})).toBe('401 missing websocket bearer token');
  expect(await server.stop()).toBe(0);
});
