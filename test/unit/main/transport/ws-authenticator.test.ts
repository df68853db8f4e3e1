import { createHash } from 'node:crypto';
import { SignJWT } from 'jose';
import { expect, test } from 'vitest';
import { authorizeUpgrade } from '../../../../src/main/transport/ws-authenticator.js';
import type { WsAuthPolicy } from '../../../../src/main/transport/ws-auth-options.js';

const NOW = 1_800_000_000;
const SECRET = new TextEncoder().encode('k'.repeat(32));
const signed = (overrides: Partial<Extract<WsAuthPolicy, { mode: 'signedBearerToken' }>> = {}): WsAuthPolicy => ({
  mode: 'signedBearerToken',
  secret: SECRET,
  issuer: null,
  audience: null,
  maxClockSkewSeconds: 0,
  ...overrides,
});
const jwt = (claims: Record<string, unknown>) => new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(SECRET);
const body = async (policy: WsAuthPolicy, header: string | undefined) => {
  const verdict = await authorizeUpgrade(policy, header, NOW);
  return verdict.kind === 'allowed' ? 'allowed' : verdict.body;
};

test('no auth allows everything; a capability token is compared by digest', async () => {
  expect(await body({ mode: 'none' }, undefined)).toBe('allowed');
  const policy: WsAuthPolicy = { mode: 'capabilityToken', tokenSha256: createHash('sha256').update('tok').digest() };
  expect(await Promise.all(['Bearer tok', 'BEARER  tok ', 'Bearer tok2', 'Bearer', 'Bearer\ttok', 'Basic tok', 'Bearer tök'].map((h) => body(policy, h)))).toEqual([
    'allowed',
    'allowed',
    'invalid websocket bearer token',
    'invalid authorization header',
    'invalid authorization header',
    'invalid authorization header',
    'invalid authorization header',
  ]);
  expect(await body(policy, undefined)).toBe('missing websocket bearer token');
});

test('JWT claims are checked exp → nbf → iss → aud, with the skew at the reference edges', async () => {
  const b = async (policy: WsAuthPolicy, claims: Record<string, unknown>) => body(policy, `Bearer ${await jwt(claims)}`);
  expect(await b(signed(), { exp: NOW })).toBe('allowed');
  expect(await b(signed(), { exp: NOW - 1 })).toBe('expired websocket jwt');
  expect(await b(signed({ maxClockSkewSeconds: 5 }), { exp: NOW - 5 })).toBe('allowed');
  expect(await b(signed({ maxClockSkewSeconds: 5 }), { exp: NOW - 6 })).toBe('expired websocket jwt');
  expect(await b(signed(), { exp: NOW, nbf: NOW })).toBe('allowed');
  expect(await b(signed(), { exp: NOW, nbf: NOW + 1 })).toBe('websocket jwt is not valid yet');
  expect(await b(signed({ issuer: 'i' }), { exp: NOW, iss: 'i ' })).toBe('websocket jwt issuer mismatch');
  expect(await b(signed({ audience: 'a' }), { exp: NOW, aud: ['b', 'a'] })).toBe('allowed');
  expect(await b(signed({ audience: 'a' }), { exp: NOW })).toBe('websocket jwt audience mismatch');
  // Expiry is checked before the issuer.
  expect(await b(signed({ issuer: 'i' }), { exp: NOW - 1, iss: 'x' })).toBe('expired websocket jwt');
  expect(await b(signed(), { exp: String(NOW) })).toBe('invalid websocket jwt');
  expect(await b(signed(), { exp: NOW, aud: 3 })).toBe('invalid websocket jwt');
});
