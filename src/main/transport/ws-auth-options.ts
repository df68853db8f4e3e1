// The `--ws-auth` flags, checked as the reference checks them at start (same texts, exit 1),
// and turned into the policy the listener applies. Secrets are read once, trimmed; a
// capability token is kept only as its SHA-256 digest.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ioErrorText, StartupError } from '../startup-error.js';

/** How an incoming WebSocket upgrade is authenticated. */
export type WsAuthPolicy =
  | { mode: 'none' }
  | { mode: 'capabilityToken'; tokenSha256: Buffer }
  | { mode: 'signedBearerToken'; secret: Uint8Array; issuer: string | null; audience: string | null; maxClockSkewSeconds: number };

/** The auth flags as given on the command line. */
export interface WsAuthFlags {
  mode?: 'capability-token' | 'signed-bearer-token';
  tokenFile?: string;
  tokenSha256?: string;
  sharedSecretFile?: string;
  issuer?: string;
  audience?: string;
  maxClockSkewSeconds?: number;
}

// The reference's DEFAULT_MAX_CLOCK_SKEW_SECONDS.
const DEFAULT_MAX_CLOCK_SKEW_SECONDS = 30;
// HS256 keys shorter than the hash output are refused, as the reference refuses them.
const MIN_SHARED_SECRET_BYTES = 32;

const JWT_FLAGS_NEED_SIGNED =
  '`--ws-shared-secret-file`, `--ws-issuer`, `--ws-audience`, and `--ws-max-clock-skew-seconds` require `--ws-auth signed-bearer-token`';

export function resolveWsAuth(flags: WsAuthFlags, cwd: string): WsAuthPolicy {
  const tokenFlags = flags.tokenFile !== undefined || flags.tokenSha256 !== undefined;
  const jwtFlags =
    flags.sharedSecretFile !== undefined || flags.issuer !== undefined || flags.audience !== undefined || flags.maxClockSkewSeconds !== undefined;
  switch (flags.mode) {
    case undefined:
      if (tokenFlags || jwtFlags) throw new StartupError('websocket auth flags require `--ws-auth capability-token` or `--ws-auth signed-bearer-token`');
      return { mode: 'none' };
    case 'capability-token':
      if (jwtFlags) throw new StartupError(JWT_FLAGS_NEED_SIGNED);
      if (flags.tokenFile !== undefined && flags.tokenSha256 !== undefined)
        throw new StartupError('`--ws-token-file` and `--ws-token-sha256` are mutually exclusive');
      if (flags.tokenFile !== undefined) {
        const token = readSecret(resolve(cwd, flags.tokenFile));
        return { mode: 'capabilityToken', tokenSha256: createHash('sha256').update(token).digest() };
      }
      if (flags.tokenSha256 !== undefined) {
        if (!/^[0-9a-fA-F]{64}$/.test(flags.tokenSha256)) throw new StartupError('--ws-token-sha256 must be a 64-character hex SHA-256 digest');
        return { mode: 'capabilityToken', tokenSha256: Buffer.from(flags.tokenSha256, 'hex') };
      }
      throw new StartupError('`--ws-token-file` or `--ws-token-sha256` is required when `--ws-auth capability-token` is set');
    case 'signed-bearer-token': {
      if (tokenFlags) throw new StartupError('`--ws-token-file` and `--ws-token-sha256` require `--ws-auth capability-token`, not `signed-bearer-token`');
      if (flags.sharedSecretFile === undefined)
        throw new StartupError('`--ws-shared-secret-file` is required when `--ws-auth signed-bearer-token` is set');
      const path = resolve(cwd, flags.sharedSecretFile);
      const secret = Buffer.from(readSecret(path), 'utf8');
      if (secret.length < MIN_SHARED_SECRET_BYTES) throw new StartupError(`signed websocket bearer secret ${path} must be at least ${MIN_SHARED_SECRET_BYTES} bytes`);
      return {
        mode: 'signedBearerToken',
        secret,
        issuer: nonEmpty(flags.issuer),
        audience: nonEmpty(flags.audience),
        maxClockSkewSeconds: flags.maxClockSkewSeconds ?? DEFAULT_MAX_CLOCK_SKEW_SECONDS,
      };
    }
  }
}

function readSecret(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new StartupError(`failed to read websocket auth secret ${path}: ${ioErrorText(error)}`);
  }
  const trimmed = text.trim();
  if (trimmed === '') throw new StartupError(`websocket auth secret ${path} must not be empty`);
  return trimmed;
}

const nonEmpty = (value: string | undefined): string | null => (value === undefined || value.trim() === '' ? null : value.trim());
