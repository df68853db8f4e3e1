// Decides whether a WebSocket upgrade may proceed, as the reference's `authorize_upgrade` does:
// the bearer token comes only from `Authorization`, a capability token is compared by its
// SHA-256 in constant time, and a JWT must be HS256 with an integer `exp`, then pass
// exp → nbf → iss → aud, in that order, with the configured clock skew. A refusal carries the
// reference's fixed response body and, separately, the detailed reason for the log.
import { createHash, timingSafeEqual } from 'node:crypto';
import { compactVerify } from 'jose';
import type { WsAuthPolicy } from './ws-auth-options.js';

/** The outcome of one upgrade's auth check. */
export type AuthVerdict = { kind: 'allowed' } | { kind: 'refused'; body: string; reason: string };

const ALLOWED: AuthVerdict = { kind: 'allowed' };
const refused = (body: string, reason: string = body): AuthVerdict => ({ kind: 'refused', body, reason });

/** Checks one upgrade request's `Authorization` header; `nowSeconds` is the Unix time. */
export async function authorizeUpgrade(policy: WsAuthPolicy, header: string | undefined, nowSeconds: number): Promise<AuthVerdict> {
  if (policy.mode === 'none') return ALLOWED;
  if (header === undefined) return refused('missing websocket bearer token');
  const token = bearerToken(header);
  if (token === null) return refused('invalid authorization header');
  if (policy.mode === 'capabilityToken') {
    const presented = createHash('sha256').update(token).digest();
    return timingSafeEqual(presented, policy.tokenSha256) ? ALLOWED : refused('invalid websocket bearer token');
  }
  return checkJwt(policy, token, nowSeconds);
}

/** `Bearer <token>`: split at the first space, scheme case-insensitive, token trimmed and non-empty. */
function bearerToken(header: string): string | null {
  // A header value outside visible ASCII is not a string the reference's `to_str()` accepts.
  if (!/^[\x20-\x7e\t]*$/.test(header)) return null;
  const space = header.indexOf(' ');
  if (space < 0 || header.slice(0, space).toLowerCase() !== 'bearer') return null;
  const token = header.slice(space + 1).trim();
  return token === '' ? null : token;
}

type Policy = Extract<WsAuthPolicy, { mode: 'signedBearerToken' }>;

async function checkJwt(policy: Policy, token: string, now: number): Promise<AuthVerdict> {
  let claims: Record<string, unknown>;
  try {
    // Signature only: jose's own claim checks differ from the reference's at the edges
    // (`exp == now` is valid there), so the claims are checked below.
    const { payload } = await compactVerify(token, policy.secret, { algorithms: ['HS256'] });
    const parsed: unknown = JSON.parse(new TextDecoder().decode(payload));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return refused('invalid websocket jwt', 'claims are not a JSON object');
    claims = parsed as Record<string, unknown>;
  } catch (error) {
    return refused('invalid websocket jwt', error instanceof Error ? error.message : String(error));
  }
  const shapeProblem = claimShapeProblem(claims);
  if (shapeProblem !== null) return refused('invalid websocket jwt', shapeProblem);
  const skew = policy.maxClockSkewSeconds;
  const exp = claims.exp as number;
  if (now > exp + skew) return refused('expired websocket jwt', `exp ${exp} is before now ${now} minus skew ${skew}`);
  const nbf = typeof claims.nbf === 'number' ? claims.nbf : undefined;
  if (nbf !== undefined && now < nbf - skew) return refused('websocket jwt is not valid yet', `nbf ${nbf} is after now ${now} plus skew ${skew}`);
  if (policy.issuer !== null && claims.iss !== policy.issuer)
    return refused('websocket jwt issuer mismatch', `iss ${JSON.stringify(claims.iss ?? null)} is not ${JSON.stringify(policy.issuer)}`);
  if (policy.audience !== null && !audienceMatches(claims.aud, policy.audience))
    return refused('websocket jwt audience mismatch', `aud ${JSON.stringify(claims.aud ?? null)} does not include ${JSON.stringify(policy.audience)}`);
  return ALLOWED;
}

/** The reference's claims struct: `exp: i64` required, `nbf: Option<i64>`, `iss: Option<String>`, `aud: Option<String | [String]>`. */
function claimShapeProblem(claims: Record<string, unknown>): string | null {
  if (!isI64(claims.exp)) return 'exp is missing or not an integer';
  if (claims.nbf !== undefined && claims.nbf !== null && !isI64(claims.nbf)) return 'nbf is not an integer';
  if (claims.iss !== undefined && claims.iss !== null && typeof claims.iss !== 'string') return 'iss is not a string';
  const aud = claims.aud;
  if (aud !== undefined && aud !== null && typeof aud !== 'string' && !(Array.isArray(aud) && aud.every((a) => typeof a === 'string')))
    return 'aud is not a string or a list of strings';
  return null;
}

const isI64 = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value);

const audienceMatches = (aud: unknown, expected: string): boolean => aud === expected || (Array.isArray(aud) && aud.includes(expected));
