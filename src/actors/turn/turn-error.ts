// How a failed sampling is classified for clients (`codexErrorInfo`, camelCase on the wire)
// and in the rollout (`codex_error_info`, snake_case), as the reference classifies it.
import { ModelStreamError, type ModelErrorKind } from '../model/model-client.js';
import type { TurnError } from '../../common/wire-types.js';

const INFO_BY_KIND: Partial<Record<ModelErrorKind, string>> = {
  internalServerError: 'internalServerError',
  serverOverloaded: 'serverOverloaded',
  contextWindowExceeded: 'contextWindowExceeded',
  quotaExceeded: 'usageLimitExceeded',
  retryLimit: 'rateLimitExceeded',
  invalidRequest: 'badRequest',
};

/** The wire `TurnError` for a failure that ended a turn. */
export function turnErrorOf(error: unknown): TurnError {
  const message = error instanceof Error ? error.message : String(error);
  const codexErrorInfo = error instanceof ModelStreamError ? (INFO_BY_KIND[error.kind] ?? 'other') : 'other';
  return { message, codexErrorInfo, additionalDetails: null, misalignment: null };
}

/** `internalServerError` → `internal_server_error`, as the rollout stores it. */
export const snakeCaseInfo = (info: string | null): string | null =>
  info === null ? null : info.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
