// The bearer token one host of a fleet presents to another: an HS256 JWT signed with the
// fleet secret (`fleet_secret_file`), checked by the same code as a client's signed bearer
// token (ws-authenticator.ts), with an issuer and audience of its own so a client's token
// signed with some other secret is never taken for a peer's. A connection that presents one is
// a peer link: what arrives on it is served here and never forwarded again (the hop limit).
import { readFileSync } from 'node:fs';
import { SignJWT } from 'jose';
import { ioErrorText, StartupError } from '../startup-error.js';
import type { WsAuthPolicy } from '../transport/ws-auth-options.js';

/** The `iss` and `aud` of every fleet token. */
export const FLEET_TOKEN_PARTY = 'thread-host-fleet';
// Long enough for a link opened on a slow machine, short enough that a leaked one soon stops working.
const TOKEN_LIFETIME_SECONDS = 300;
// As the reference refuses HS256 keys shorter than the hash output for client tokens.
const MIN_SECRET_BYTES = 32;
const MAX_CLOCK_SKEW_SECONDS = 30;

export type FleetTokenPolicy = Extract<WsAuthPolicy, { mode: 'signedBearerToken' }>;

/** Reads `fleet_secret_file` at start: a missing, empty or short secret stops the start. */
export function readFleetSecret(path: string): Uint8Array {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (error) {
    throw new StartupError(`failed to read fleet_secret_file ${path}: ${ioErrorText(error)}`);
  }
  const secret = Buffer.from(text, 'utf8');
  if (secret.length < MIN_SECRET_BYTES) throw new StartupError(`fleet_secret_file ${path} must hold at least ${MIN_SECRET_BYTES} bytes`);
  return secret;
}

/** How this host's listener recognizes a peer's token. */
export function fleetTokenPolicy(secret: Uint8Array): FleetTokenPolicy {
  return { mode: 'signedBearerToken', secret, issuer: FLEET_TOKEN_PARTY, audience: FLEET_TOKEN_PARTY, maxClockSkewSeconds: MAX_CLOCK_SKEW_SECONDS };
}

/** A fresh token for one peer link, naming this host as its subject. */
export function signFleetToken(secret: Uint8Array, hostId: string, nowSeconds: number): Promise<string> {
  return new SignJWT({ sub: hostId })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer(FLEET_TOKEN_PARTY)
    .setAudience(FLEET_TOKEN_PARTY)
    .setIssuedAt(nowSeconds)
    .setExpirationTime(nowSeconds + TOKEN_LIFETIME_SECONDS)
    .sign(secret);
}
